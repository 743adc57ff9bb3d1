// The fulfil handler's expansion of a payee's answer to a bulk (handlers/README.md, "Bulk
// transfers"): PUT /bulkTransfers/{ID} becomes one fulfil per individual transfer it names,
// each then decided by the same fulfil decisions as a single PUT /transfers/{ID} (fulfil.js:
// who calls, duplicates, expiry, state, the fulfilment against the condition), so that a bad
// fulfilment aborts its transfer alone. PUT …/error aborts every transfer of the bulk that
// reserved. Each expanded event carries its `bulkTransferId`, so that its transfer's commit
// or abort reaches the bulk handler as an item result instead of a callback of its own.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { BULK_STATE } from './bulk-transfer-states.js';
import { tellBulk } from './outcomes.js';

const RESERVED = 'RESERVED';

/** A fulfil of one individual transfer, as the payee's PUT /transfers/{ID} would carry it. */
function itemEvent(event, transferId, action, body) {
  return {
    id: transferId, type: 'transfer', action, from: event.from, to: event.to, headers: event.headers, body, at: event.at, bulkTransferId: event.id,
  };
}

/**
 * The body of an item's fulfil: with errorInformation, the payee's error (an abort); otherwise
 * a commit with the item's fulfilment and the bulk's completion time. An item with neither is
 * a commit without a fulfilment, which the fulfil decision refuses and aborts.
 */
function itemFulfil(event, result) {
  if (result.errorInformation) return itemEvent(event, result.transferId, 'abort', { errorInformation: result.errorInformation });
  const body = {
    transferState: 'COMMITTED',
    ...(result.fulfilment !== undefined ? { fulfilment: result.fulfilment } : {}),
    ...(event.body.completedTimestamp ? { completedTimestamp: event.body.completedTimestamp } : {}),
    ...(result.extensionList ? { extensionList: result.extensionList } : {}),
  };
  return itemEvent(event, result.transferId, 'commit', body);
}

/** Why the answer cannot be expanded (a refusal to its sender), or null. */
function answerProblem(event, bulk, items) {
  if (!bulk) return failure(FAILURE.transferNotFound, `bulk transfer ${event.id} was not found`);
  if (event.from !== bulk.payeeFsp) return failure(FAILURE.validation, `FSPIOP-Source ${event.from} is not the payee FSP of the bulk transfer`);
  // A bulk set aside as a dead letter was told to both parties as the switch's failure: its
  // reserved transfers are left to expire, not committed.
  if (bulk.state === BULK_STATE.failed) return failure(FAILURE.processingFailed, `bulk transfer ${event.id} could not be processed and was ended`);
  if (event.action !== 'bulk-fulfil') return null;
  const known = new Set(items.map((item) => item.transferId));
  const results = event.body?.individualTransferResults ?? [];
  const foreign = results.find((result) => !known.has(result.transferId));
  if (foreign) return failure(FAILURE.validation, `transfer ${foreign.transferId} is not an individual transfer of bulk transfer ${event.id}`);
  const seen = new Set();
  for (const result of results) {
    if (seen.has(result.transferId)) return failure(FAILURE.validation, `transfer ${result.transferId} is answered twice`);
    seen.add(result.transferId);
  }
  return null;
}

/**
 * `events`: bulk-fulfil and bulk-abort events in consumption order. `bulks`: bulkTransferId →
 * stored bulk; `items`: bulkTransferId → its items (bulkItemsFromRows). Returns the individual
 * fulfils (for decideFulfilBatch) and the refusals of whole answers, to their senders on the
 * bulk's error endpoint: a bulk not known, an answer not from its payee, an item not of it.
 */
export function expandBulkAnswers({ events, bulks, items }) {
  const expanded = { fulfils: [], outcomes: [] };
  for (const event of events) {
    const bulk = bulks.get(event.id);
    const bulkItems = items.get(event.id) ?? [];
    const problem = answerProblem(event, bulk, bulkItems);
    if (problem) {
      expanded.outcomes.push(tellBulk.error(event.id, event.from, problem));
      continue;
    }
    if (event.action === 'bulk-fulfil') {
      expanded.fulfils.push(...event.body.individualTransferResults.map((result) => itemFulfil(event, result)));
      continue;
    }
    // The payee refuses the whole bulk: each transfer that reserved is aborted with its error.
    const { errorInformation } = event.body ?? {};
    expanded.fulfils.push(...bulkItems.filter((item) => item.prepareResult === RESERVED)
      .map((item) => itemEvent(event, item.transferId, 'abort', { errorInformation })));
  }
  return expanded;
}
