// A party as account lookup names it: `{ type, id, subId? }`, from the path of a /parties or
// /participants request.

/**
 * A party as the path names it: `{ type, id, subId? }` from hapi's `{Type}/{ID}/{SubId}`.
 * A sub-id selects other endpoints (Mojaloop's `..._SUB_ID_...` types) and other templates.
 */
export function partyOf(params) {
  return params.SubId ? { type: params.Type, id: params.ID, subId: params.SubId } : { type: params.Type, id: params.ID };
}

/** The party's key, `Type/ID[/SubId]`: the Kafka key of its events, so that a lookup and its answer stay in order. */
export function partyKey(party) {
  return party.subId ? `${party.type}/${party.id}/${party.subId}` : `${party.type}/${party.id}`;
}
