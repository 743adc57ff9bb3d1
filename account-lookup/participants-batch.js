// POST /participants: one DFSP registers many parties at once. The rules (whose parties, which
// oracle, what each result says) are domain/participants-batch.js's; this file reads the
// oracles' URLs, makes one batch call to each oracle and answers in FSPIOP's words.
import { failureToFspiop } from '../platform/fspiop/errors.js';
import { batchIdTypes, groupByOracle, groupRefused, groupResults, planBatchRegistration } from './domain/participants-batch.js';
import { OracleRefusalError } from './oracle-client.js';

/** A PartyResult of the callback: a domain failure becomes its errorInformation. */
function partyResult(result) {
  if (!result.failure) return result;
  return { partyId: result.partyId, errorInformation: failureToFspiop(result.failure).body.errorInformation };
}

/**
 * Registers `request.partyList` (`{ requestId, partyList, currency? }`) for `source` and
 * resolves to the PartyResult list of the callback. An oracle that refuses the whole batch
 * fails its parties with 3003; one that cannot be reached rejects (the request is refused).
 */
export async function registerBatch({ registry, client, request, source }) {
  const { results, members } = planBatchRegistration({ partyList: request.partyList, source });
  const types = batchIdTypes(members);
  const urls = await Promise.all(types.map((type) => registry.urlFor({ type, currency: request.currency })));
  const groups = groupByOracle(members, new Map(types.map((type, index) => [type, urls[index]])));
  for (const [url, group] of groups) {
    let filled;
    try {
      const answered = await client.registerBatch(url, {
        requestId: request.requestId, partyList: group.map((member) => member.partyId), currency: request.currency, source,
      });
      filled = groupResults(group, answered);
    } catch (error) {
      if (!(error instanceof OracleRefusalError)) throw error;
      filled = groupRefused(group, error.detail);
    }
    for (const { index, result } of filled) results[index] = result;
  }
  return results.map(partyResult);
}
