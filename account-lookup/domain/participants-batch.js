// The rules of POST /participants, where one DFSP registers many parties at once: a DFSP
// registers only its own parties (an entry without fspId is the requester's), the parties are
// grouped by the oracle that serves their id type so that each oracle gets one batch call,
// and the answer lists every party of the request, in its order, each with what became of it.
// A result is `{ partyId }` (registered), `{ partyId, failure }` (refused by the switch, a
// domain failure) or `{ partyId, errorInformation }` (refused by the oracle, in its words).
import { FAILURE, failure } from '../../platform/domain/failures.js';

function keyOf(partyId) {
  return `${partyId.partyIdType}/${partyId.partyIdentifier}/${partyId.partySubIdOrType ?? ''}`;
}

/**
 * Splits `partyList` into the results of parties refused outright (another DFSP's fspId, as
 * Mojaloop's ALS requires) and the `members` (`{ index, partyId }`) to register. `results`
 * has a slot per party of the request; the members' slots are filled by the oracles' answers.
 */
export function planBatchRegistration({ partyList, source }) {
  const results = new Array(partyList.length);
  const members = [];
  for (const [index, party] of partyList.entries()) {
    const partyId = { ...party, fspId: party.fspId ?? source };
    if (partyId.fspId === source) members.push({ index, partyId });
    else results[index] = { partyId, failure: failure(FAILURE.validation, `fspId ${partyId.fspId} is not the FSPIOP-Source ${source}`) };
  }
  return { results, members };
}

/** The id types whose oracle must be known to group `members`, each once. */
export function batchIdTypes(members) {
  return [...new Set(members.map((member) => member.partyId.partyIdType))];
}

/** `members` grouped by the base URL of their oracle (`oracleUrls`: id type → URL), in the order they come. */
export function groupByOracle(members, oracleUrls) {
  const groups = new Map();
  for (const member of members) {
    const url = oracleUrls.get(member.partyId.partyIdType);
    if (!groups.has(url)) groups.set(url, []);
    groups.get(url).push(member);
  }
  return groups;
}

/**
 * The results of one oracle's group from its answer (`answered`: PartyResults, matched by
 * party id): a party it did not answer for was not registered.
 */
export function groupResults(members, answered) {
  const byKey = new Map(answered.filter((entry) => entry?.partyId).map((entry) => [keyOf(entry.partyId), entry]));
  return members.map(({ index, partyId }) => {
    const entry = byKey.get(keyOf(partyId));
    if (!entry) return { index, result: { partyId, failure: failure(FAILURE.partyRegistrationRefused, 'the oracle did not answer for this party') } };
    if (entry.errorInformation) return { index, result: { partyId, errorInformation: entry.errorInformation } };
    return { index, result: { partyId } };
  });
}

/** The results of one oracle's group when it refused the whole batch, in its words (`detail`): 3003 for each party. */
export function groupRefused(members, detail) {
  const refusal = failure(FAILURE.partyRegistrationRefused, detail);
  return members.map(({ index, partyId }) => ({ index, result: { partyId, failure: refusal } }));
}
