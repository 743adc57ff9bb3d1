// The routing of an individual transfer's results to its bulk: for a transfer that belongs to
// a bulk, the outcome a handler decided (its reservation forwarded to the payee, its failure
// told to the payer) becomes one item result on topic-bulk-processing, keyed by the
// bulkTransferId, instead of a callback of its own. The bulk handler records the results and
// tells the parties about the bulk as a whole (handlers/README.md, "Bulk transfers"). The
// decisions stay as they are: only the produce step looks at which transfer an outcome is about.
import { encodeEvent } from '../platform/kafka/envelope.js';
import { FAILURE } from '../platform/domain/failures.js';
import { failureToFspiop } from '../platform/fspiop/errors.js';
import { FINAL_RESULT_ACTION } from '../ledger/domain/bulk-results.js';
import { OUTCOME } from '../ledger/domain/outcomes.js';
import { fspiopTransferState } from '../ledger/domain/transfer-states.js';

/** An individual transfer's prepare result as the bulk handler records it. */
export const ITEM_RESULT = Object.freeze({ reserved: 'RESERVED', failed: 'FAILED' });
/** An individual transfer's final result (its commit or abort) as the bulk handler records it. */
export const FINAL_RESULT = Object.freeze({ committed: 'COMMITTED', aborted: 'ABORTED', expired: 'EXPIRED' });

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
 * The final result a commit's or abort's outcome says: the payee's fulfil forwarded to the
 * payer is COMMITTED with its fulfilment; the payee's error forwarded, or the switch's failure
 * (a wrong fulfilment), is ABORTED with the errorInformation the payer would have been told.
 * Null for any other outcome, which goes on as a callback.
 */
function finalResultOf(outcome) {
  if (outcome.type === OUTCOME.forwardFulfil) return { result: FINAL_RESULT.committed, fulfilment: outcome.message.body?.fulfilment };
  if (outcome.type === OUTCOME.forwardError) return { result: FINAL_RESULT.aborted, errorInformation: outcome.message.body?.errorInformation };
  if (outcome.type === OUTCOME.error) {
    // A reserved transfer's expiry (the timeout handler's release) is told as its 3303.
    const result = outcome.failure.code === FAILURE.transferExpired ? FINAL_RESULT.expired : FINAL_RESULT.aborted;
    return { result, errorInformation: failureToFspiop(outcome.failure).body.errorInformation };
  }
  return null;
}

/**
 * Splits `outcomes` into those told to the parties as before and the item results of
 * individual transfers of a bulk. `bulkOf`: transferId → bulkTransferId, for the transfers of
 * the batch being prepared that belong to one; `finalOf`: the same for those being committed
 * or aborted. A switch-decided abort tells both parties: the bulk's transfer has one final
 * result, and the payee hears of it in the bulk's answer to the payer, not on its own.
 */
export function routeBulkOutcomes(outcomes, bulkOf, finalOf = new Map()) {
  if (bulkOf.size === 0 && finalOf.size === 0) return { outcomes, itemResults: [] };
  const told = [];
  const itemResults = [];
  const ended = new Set();
  for (const outcome of outcomes) {
    const preparing = outcome.resource ? undefined : bulkOf.get(outcome.transferId);
    const ending = outcome.resource ? undefined : finalOf.get(outcome.transferId);
    const prepared = preparing ? prepareResultOf(outcome) : null;
    const final = ending ? finalResultOf(outcome) : null;
    if (prepared) itemResults.push({ bulkTransferId: preparing, transferId: outcome.transferId, ...prepared });
    else if (final && !ended.has(outcome.transferId)) {
      ended.add(outcome.transferId);
      itemResults.push({ bulkTransferId: ending, transferId: outcome.transferId, action: FINAL_RESULT_ACTION, ...final });
    } else if (!final) told.push(outcome);
  }
  return { outcomes: told, itemResults };
}

const ENDING_ACTIONS = new Set(['commit', 'abort', 'timeout-reserved']);

/**
 * transferId → bulkTransferId of the events of a batch that carry one: `bulkOf` for those
 * that prepare, `finalOf` for those that commit, abort or release an expired reservation.
 */
export function bulkOfEvents(events) {
  const bulkOf = new Map();
  const finalOf = new Map();
  for (const event of events) {
    if (event.bulkTransferId) (ENDING_ACTIONS.has(event.action) ? finalOf : bulkOf).set(event.id, event.bulkTransferId);
  }
  return { bulkOf, finalOf };
}

/** The item results as records of topic-bulk-processing, keyed by their bulk. */
export function bulkItemResultRecords(topics, itemResults, now) {
  return itemResults.map(({ bulkTransferId, transferId, action = 'prepare-result', ...result }) => ({
    topic: topics.bulkProcessing,
    key: bulkTransferId,
    value: encodeEvent({ id: bulkTransferId, type: 'bulkItem', action, transferId, ...result, at: now.getTime() }),
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

/**
 * The timeout handler's request that the bulk handler end bulks that lost results
 * (selectStuckBulks: `{ bulkTransferId, state }`, the state the sweep saw) as EXPIRED, as
 * records of topic-bulk-processing keyed by their bulk.
 */
export function bulkExpiryRecords(topics, stuckBulks, now) {
  return stuckBulks.map(({ bulkTransferId, state }) => ({
    topic: topics.bulkProcessing,
    key: bulkTransferId,
    value: encodeEvent({ id: bulkTransferId, type: 'bulkTransfer', action: 'bulk-expire', state, at: now.getTime() }),
  }));
}

/**
 * Splits the fulfil decisions' `outcomes` into those told as before and the refusals of items
 * of a payee's bulk answer, gathered by bulk: an error the single fulfil decision tells the
 * sender of an item's fulfil (its transfer expired, completed with other content, not
 * RESERVED) goes to the payee as one PUT /bulkTransfers/{ID}/error per bulk instead of one
 * PUT /transfers/{ID}/error per transfer. `events`: the batch's events, the bulk answers
 * expanded into fulfils carrying `bulkTransferId`.
 */
export function gatherBulkRefusals(outcomes, events) {
  const itemEvents = new Map(events.filter((event) => event.bulkTransferId && ENDING_ACTIONS.has(event.action)).map((event) => [event.id, event]));
  if (itemEvents.size === 0) return { outcomes, refusals: [] };
  const told = [];
  const byBulk = new Map();
  for (const outcome of outcomes) {
    const event = outcome.resource ? undefined : itemEvents.get(outcome.transferId);
    if (!event || outcome.type !== OUTCOME.error || outcome.to !== event.from) {
      told.push(outcome);
      continue;
    }
    if (!byBulk.has(event.bulkTransferId)) byBulk.set(event.bulkTransferId, { bulkTransferId: event.bulkTransferId, to: event.from, headers: event.headers, items: [] });
    byBulk.get(event.bulkTransferId).items.push({ transferId: outcome.transferId, errorInformation: failureToFspiop(outcome.failure).body.errorInformation });
  }
  return { outcomes: told, refusals: [...byBulk.values()] };
}
