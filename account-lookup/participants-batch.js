// POST /participants: one DFSP registers many parties at once. Parties are grouped by the
// oracle that serves their id type and sent to each oracle in one batch call; the answer
// lists every party of the request, in its order, each with its errorInformation if it failed.
import { FAILURE, failure } from '../platform/domain/failures.js';
import { failureToFspiop } from '../platform/fspiop/errors.js';
import { OracleRefusalError } from './oracle-client.js';

function keyOf(partyId) {
  return `${partyId.partyIdType}/${partyId.partyIdentifier}/${partyId.partySubIdOrType ?? ''}`;
}

/** A PartyResult for a party that was not registered because of `problem`, a domain failure. */
function failed(partyId, problem) {
  return { partyId, errorInformation: failureToFspiop(problem).body.errorInformation };
}

/**
 * Splits the request's parties into those refused outright (another DFSP's fspId: a DFSP
 * registers only its own parties, as Mojaloop's ALS requires) and per-oracle groups.
 * A party without fspId is registered for the requester.
 */
async function groupByOracle(registry, request, source) {
  const results = new Array(request.partyList.length);
  const groups = new Map();
  for (const [index, party] of request.partyList.entries()) {
    const partyId = { ...party, fspId: party.fspId ?? source };
    if (partyId.fspId !== source) {
      results[index] = failed(partyId, failure(FAILURE.validation, `fspId ${partyId.fspId} is not the FSPIOP-Source ${source}`));
      continue;
    }
    const url = await registry.urlFor({ type: partyId.partyIdType, currency: request.currency });
    if (!groups.has(url)) groups.set(url, []);
    groups.get(url).push({ index, partyId });
  }
  return { results, groups };
}

/** Fills in the results of one oracle's group from its answer, matched by party id. */
function collect(results, members, answered) {
  const byKey = new Map(answered.filter((entry) => entry?.partyId).map((entry) => [keyOf(entry.partyId), entry]));
  for (const { index, partyId } of members) {
    const entry = byKey.get(keyOf(partyId));
    if (!entry) results[index] = failed(partyId, failure(FAILURE.partyRegistrationRefused, 'the oracle did not answer for this party'));
    else if (entry.errorInformation) results[index] = { partyId, errorInformation: entry.errorInformation };
    else results[index] = { partyId };
  }
}

/**
 * Registers `request.partyList` (`{ requestId, partyList, currency? }`) for `source` and
 * resolves to the PartyResult list of the callback. An oracle that refuses the whole batch
 * fails its parties with 3003; one that cannot be reached rejects (the request is refused).
 */
export async function registerBatch({ registry, client, request, source }) {
  const { results, groups } = await groupByOracle(registry, request, source);
  for (const [url, members] of groups) {
    try {
      const answered = await client.registerBatch(url, {
        requestId: request.requestId, partyList: members.map((member) => member.partyId), currency: request.currency, source,
      });
      collect(results, members, answered);
    } catch (error) {
      if (!(error instanceof OracleRefusalError)) throw error;
      const refusal = failure(FAILURE.partyRegistrationRefused, error.errorInformation?.errorDescription ?? error.message);
      for (const { index, partyId } of members) results[index] = failed(partyId, refusal);
    }
  }
  return results;
}
