// The lookups the switch forwarded and may still be answered (account-lookup's own state,
// shared by its replicas through MySQL). A GET /parties records one row per payee DFSP it
// is sent to; a PUT /parties or PUT …/error is relayed only if such a row names its sender
// as the payee and its destination as the requester and has not expired. Rows are kept until
// they expire, so a payee's retransmitted answer is relayed again, as a duplicate would be.

const partyColumns = (party) => ({ party_id_type: party.type, party_identifier: party.id, party_sub_id: party.subId ?? '' });

/** Records that `requester` asked each of `payees` about `party` until `expiresAt`. */
export async function recordPendingLookups(db, { party, requester, payees, expiresAt }) {
  if (payees.length === 0) return;
  await db('party_lookup').insert(payees.map((payee) => ({
    ...partyColumns(party), requester_fsp: requester, payee_fsp: payee, expires_at: expiresAt,
  })));
}

/** Whether `payee` was asked about `party` by `requester` and the lookup is still pending at `now`. */
export async function isPendingLookup(db, { party, requester, payee, now }) {
  const row = await db('party_lookup').where({ ...partyColumns(party), payee_fsp: payee, requester_fsp: requester })
    .andWhere('expires_at', '>', now).first('id');
  return row !== undefined;
}

/** Deletes up to `limit` lookups that expired before `now`; returns how many it deleted. */
export async function purgeExpiredLookups(db, now, limit) {
  return db('party_lookup').where('expires_at', '<=', now).orderBy('expires_at').limit(limit).delete();
}

/**
 * The pending lookups of one process: `record` and `isPending` read the clock themselves, and
 * a lookup stays pending for `ttlMs` after the GET was accepted.
 */
export function createPendingLookups({ db, ttlMs, clock = () => new Date() }) {
  return {
    record: (party, requester, payees) => recordPendingLookups(db, { party, requester, payees, expiresAt: new Date(clock().getTime() + ttlMs) }),
    isPending: (party, requester, payee) => isPendingLookup(db, { party, requester, payee, now: clock() }),
    purgeExpired: (limit) => purgeExpiredLookups(db, clock(), limit),
  };
}
