// The routing of an individual transfer's results to its bulk: for a transfer that belongs to
// a bulk, the outcome a handler decided (its reservation forwarded to the payee, its failure
// told to the payer) becomes one item result on topic-bulk-processing, keyed by the
// bulkTransferId, instead of a callback of its own. The bulk handler records the results and
// tells the parties about the bulk as a whole (handlers/README.md, "Bulk transfers"). The
// decisions stay as they are: only the produce step looks at which transfer an outcome is about.
import { encodeEvent } from '../platform/kafka/envelope.js';
import { OUTCOME } from '../ledger/domain/outcomes.js';
import { fspiopTransferState } from '../ledger/domain/transfer-states.js';

/** An individual transfer's prepare result as the bulk handler records it. */
export const ITEM_RESULT = Object.freeze({ reserved: 'RESERVED', failed: 'FAILED' });

/** The failure an aborted transfer's state names: the switch's, or the payee's own error. */
function stateFailure(view) {
  return view.failure ?? (view.payeeError ? { code: 'PAYEE_ERROR', detail: `${view.payeeError.errorCode}: ${view.payeeError.errorDescription}` } : undefined);
}

/**
 * The prepare result an outcome about an individual transfer says, or null for an outcome of a
 * later phase (its fulfilment, its expiry), which goes on as a callback for now.
 */
function prepareResultOf(outcome) {
  if (outcome.type === OUTCOME.forwardPrepare) return { result: ITEM_RESULT.reserved };
  if (outcome.type === OUTCOME.error) return { result: ITEM_RESULT.failed, failure: outcome.failure };
  if (outcome.type === OUTCOME.state) {
    // A redelivered bulk whose transfer had already ended: its result is its end.
    if (fspiopTransferState(outcome.view.state) !== 'ABORTED') return { result: ITEM_RESULT.reserved };
    return { result: ITEM_RESULT.failed, failure: stateFailure(outcome.view) };
  }
  return null;
}

/**
 * Splits `outcomes` into those told to the parties as before and the item results of
 * individual transfers of a bulk; `bulkOf`: transferId → bulkTransferId, for the transfers
 * of the batch that belong to one.
 */
export function routeBulkOutcomes(outcomes, bulkOf) {
  if (bulkOf.size === 0) return { outcomes, itemResults: [] };
  const told = [];
  const itemResults = [];
  for (const outcome of outcomes) {
    const bulkTransferId = outcome.resource ? undefined : bulkOf.get(outcome.transferId);
    const prepared = bulkTransferId ? prepareResultOf(outcome) : null;
    if (prepared) itemResults.push({ bulkTransferId, transferId: outcome.transferId, ...prepared });
    else told.push(outcome);
  }
  return { outcomes: told, itemResults };
}

/** transferId → bulkTransferId of the events of a batch that carry one. */
export function bulkOfEvents(events) {
  return new Map(events.filter((event) => event.bulkTransferId).map((event) => [event.id, event.bulkTransferId]));
}

/** The item results as records of topic-bulk-processing, keyed by their bulk. */
export function bulkItemResultRecords(topics, itemResults, now) {
  return itemResults.map(({ bulkTransferId, transferId, result, failure }) => ({
    topic: topics.bulkProcessing,
    key: bulkTransferId,
    value: encodeEvent({
      id: bulkTransferId, type: 'bulkItem', action: 'prepare-result', transferId, result, failure, at: now.getTime(),
    }),
  }));
}

/**
 * A payer's request for its bulk's current state (its bulk sent again) as a record of
 * topic-bulk-processing: the bulk handler, which holds the items' results, answers it.
 */
export function bulkStateRequestRecords(topics, messages) {
  return messages.map((message) => ({
    topic: topics.bulkProcessing,
    key: message.id,
    value: encodeEvent({ id: message.id, type: 'bulkTransfer', action: 'bulk-state', from: message.from, headers: message.headers, at: message.at }),
  }));
}
