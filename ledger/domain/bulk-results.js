// The bulk handler's decision for a batch of item results (handlers/README.md, "Bulk
// transfers"): each result is recorded on its item once; when every item of a bulk still
// RECEIVED has its prepare result, the bulk is forwarded to the payee with the items that
// reserved (ACCEPTED), or, when none did, rejected to the payer with every item's failure
// (REJECTED). The reserved items' final results (committed or aborted by the payee's answer)
// move it to PROCESSING, and when every item has its final result, to COMPLETED, with one
// aggregated answer to the payer. A result the bulk already holds is a redelivery (after a crash between a
// handler's commit and its produce): it changes nothing, and the bulk's forward or rejection,
// if already decided, is produced again, since it may be what the crash lost.
import { BULK_STATE, OPEN_BULK_STATES, bulkTransition, isBulkFinal } from './bulk-transfer-states.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';

const RESERVED = 'RESERVED';

/** What the parties must be told about a bulk, as plain values the handler addresses. */
export const BULK_OUTCOME = Object.freeze({
  // POST /bulkTransfers to the payee with the reserved items (all of them: the payer's request).
  forward: 'BULK_FORWARD',
  // PUT /bulkTransfers/{ID} to the payer: REJECTED, with every item's failure.
  rejected: 'BULK_REJECTED',
  // PUT /bulkTransfers/{ID} to the payer: COMPLETED, with every item's fulfilment or error,
  // the items refused at prepare included.
  completed: 'BULK_COMPLETED',
  // The same, REJECTED, when some of its transfers expired before the payee's answer, or when
  // it was swept as having lost results; and PUT /bulkTransfers/{ID}/error (3303) to the
  // payee, if it was sent the bulk (`forwarded`).
  expired: 'BULK_EXPIRED',
  // PUT /bulkTransfers/{ID} to the payer that sent its bulk again: its current state, with the
  // results its items have so far.
  state: 'BULK_STATE',
  // PUT /bulkTransfers/{ID}/error to a DFSP whose request about a bulk is refused: 3210 when
  // the switch does not hold the bulk or the DFSP is neither its payer nor its payee (as a
  // stranger's GET /transfers/{ID} is answered 3208, so that a bulk's existence is not told
  // to anyone outside it), 2001 when its request was set aside as a dead letter.
  refused: 'BULK_REFUSED',
  // PUT /bulkTransfers/{ID}/error (2001) to the payer, and to the payee if it was sent the
  // bulk: one of the bulk's results was set aside as a dead letter and the bulk is FAILED.
  failed: 'BULK_FAILED',
});

function outcomeOf(bulk, items) {
  const reserved = items.filter((item) => item.prepareResult === RESERVED);
  if (bulk.state === BULK_STATE.accepted) {
    return { type: BULK_OUTCOME.forward, bulk, reservedItems: reserved, complete: reserved.length === bulk.itemCount };
  }
  return { type: BULK_OUTCOME.rejected, bulk, failedItems: items.filter((item) => item.prepareResult !== RESERVED) };
}

/** The bulk's next state once every item has its prepare result. */
function settledState(items) {
  return items.some((item) => item.prepareResult === RESERVED) ? BULK_STATE.accepted : BULK_STATE.rejected;
}

/** Whether an item has its final result: refused at prepare, or committed or aborted since. */
const isItemFinal = (item) => (item.prepareResult && item.prepareResult !== RESERVED) || Boolean(item.finalResult);

const EXPIRED = 'EXPIRED';

/**
 * The state path of a bulk some of whose items have final results: ACCEPTED → PROCESSING at
 * the first, → COMPLETED when every item has one, or EXPIRED when some of them are the
 * expiries of reservations the payee never answered; null when the bulk does not move.
 */
function finalPath(state, items) {
  if (state !== BULK_STATE.accepted && state !== BULK_STATE.processing) return null;
  if (!items.some((item) => item.finalResult)) return null;
  const ended = items.every(isItemFinal);
  const expired = items.some((item) => item.finalResult === EXPIRED);
  const answered = items.some((item) => item.finalResult && item.finalResult !== EXPIRED);
  const steps = state === BULK_STATE.accepted && (answered || !ended) ? [BULK_STATE.processing] : [];
  if (ended) steps.push(expired ? BULK_STATE.expired : BULK_STATE.completed);
  return steps.length > 0 ? bulkTransition(state, ...steps) : null;
}

/**
 * Records the bulk's results on copies of its items, in order: a prepare result on an item
 * without one, a final result on an item without one. Returns the results recorded, those for
 * no item, and whether one was already held (a redelivery).
 */
function applyResults(bulkTransferId, bulkResults, byTransferId, bulk) {
  const hasBulk = Boolean(bulk);
  const applied = { recorded: [], finals: [], unknown: [], redelivered: false };
  for (const result of bulkResults) {
    const item = byTransferId.get(result.transferId);
    if (!hasBulk || !item) { applied.unknown.push(result); continue; }
    const final = result.action === FINAL_RESULT_ACTION;
    if (final ? item.finalResult : item.prepareResult) {
      if (sameEventAsHeld(item, result, final) && recordedWithLastChange(item, bulk)) applied.redelivered = true;
      continue;
    }
    const eventAtMs = result.at;
    if (final) {
      Object.assign(item, { finalResult: result.result, fulfilment: result.fulfilment, errorInformation: result.errorInformation, finalEventAtMs: eventAtMs });
      applied.finals.push({
        bulkTransferId, transferId: result.transferId, result: result.result, fulfilment: result.fulfilment, errorInformation: result.errorInformation, eventAtMs,
      });
      continue;
    }
    Object.assign(item, { prepareResult: result.result, failure: result.failure, prepareEventAtMs: eventAtMs });
    applied.recorded.push({ bulkTransferId, transferId: result.transferId, result: result.result, failure: result.failure, eventAtMs });
  }
  return applied;
}

/**
 * Whether the bulk was forwarded to its payee: it leaves RECEIVED for ACCEPTED exactly when
 * every item has its prepare result and some reserved, and prepare results never change.
 */
const wasForwarded = (items) => items.every((item) => item.prepareResult) && items.some((item) => item.prepareResult === RESERVED);

/**
 * Whether a result the item already holds came in the very event that recorded it (the same
 * `at`): a batch of the bulk handler's own, redelivered after a crash. A result produced again
 * by a handler upstream after its own crash is a new event with a new `at`, and tells nobody
 * anything again. Without the times, it may be either.
 */
function sameEventAsHeld(item, result, final) {
  const heldAtMs = final ? item.finalEventAtMs : item.prepareEventAtMs;
  return heldAtMs === undefined || result.at === undefined || heldAtMs === result.at;
}

/**
 * Whether an item's stored result was recorded in the transaction that made the bulk's last
 * state change (their `changedAtMs` are that transaction's time): only then may the callback
 * of that change have been lost to a crash between the bulk handler's commit and its produce,
 * and a redelivered result bring it back. A result recorded before, redelivered later (a
 * position handler that crashed between its commit and its acknowledgement produces its
 * batch's results again), must not tell the parties a second time. Without the times, it may.
 */
function recordedWithLastChange(item, bulk) {
  if (item.changedAtMs === undefined || bulk?.changedAtMs === undefined) return true;
  return item.changedAtMs === bulk.changedAtMs;
}

/** The outcome of a bulk whose items have their results, or null: what its state tells. */
function settledOutcome(bulk, items) {
  if (bulk.state === BULK_STATE.completed) return { type: BULK_OUTCOME.completed, bulk, items };
  if (bulk.state === BULK_STATE.expired) return { type: BULK_OUTCOME.expired, bulk, items, forwarded: wasForwarded(items) };
  if (bulk.state === BULK_STATE.accepted || bulk.state === BULK_STATE.rejected) return outcomeOf(bulk, items);
  return null;
}

/** The item-result events' action of a final result (a commit or an abort). */
export const FINAL_RESULT_ACTION = 'final-result';

/**
 * `results`: item-result events `{ id: bulkTransferId, transferId, action, result, failure?,
 * fulfilment?, errorInformation?, at }` in consumption order, `action` prepare-result or
 * final-result. `bulks`: bulkTransferId → stored bulk (locked). `items`: bulkTransferId → its
 * items in order (bulkItemsFromRows). `stateRequests`: bulk-state events `{ id, from,
 * headers }`, answered after the batch's results. `expiries`: bulk-expire events `{ id, state }`
 * of the timeout handler's sweep, decided after the results. Returns the prepare and final
 * results to record, the bulks' state updates and the outcomes.
 */
export function decideBulkResults({ results, bulks, items, stateRequests = [], expiries = [] }) {
  const decision = { recorded: [], finals: [], bulkUpdates: [], outcomes: [], unknown: [] };
  const current = new Map();
  const byBulk = new Map();
  for (const result of results) {
    if (!byBulk.has(result.id)) byBulk.set(result.id, []);
    byBulk.get(result.id).push(result);
  }
  for (const [bulkTransferId, bulkResults] of byBulk) {
    const bulk = bulks.get(bulkTransferId);
    const bulkItems = (items.get(bulkTransferId) ?? []).map((item) => ({ ...item }));
    const applied = applyResults(bulkTransferId, bulkResults, new Map(bulkItems.map((item) => [item.transferId, item])), bulk);
    decision.recorded.push(...applied.recorded);
    decision.finals.push(...applied.finals);
    decision.unknown.push(...applied.unknown);
    if (!bulk) continue;
    const path = [];
    if (bulk.state === BULK_STATE.received && bulkItems.every((item) => item.prepareResult)) path.push(...bulkTransition(bulk.state, settledState(bulkItems)));
    const afterPrepare = path.at(-1) ?? bulk.state;
    path.push(...(finalPath(afterPrepare, bulkItems) ?? []));
    const moved = { ...bulk, state: path.at(-1) ?? bulk.state };
    current.set(bulkTransferId, { bulk: moved, items: bulkItems });
    if (path.length > 0) {
      decision.bulkUpdates.push({ bulkTransferId, statePath: bulkTransition(bulk.state, ...path) });
      // The forward or rejection, when the prepare results settled the bulk; the aggregated
      // answer, when the final results completed it.
      if (afterPrepare !== bulk.state) decision.outcomes.push(outcomeOf({ ...bulk, state: afterPrepare }, bulkItems));
      if (moved.state === BULK_STATE.completed || moved.state === BULK_STATE.expired) decision.outcomes.push(settledOutcome(moved, bulkItems));
    } else if (applied.redelivered) {
      const again = settledOutcome(bulk, bulkItems);
      if (again) decision.outcomes.push(again);
    }
  }
  for (const expiry of expiries) expireStuck(expiry, { bulks, items, current, decision });
  for (const request of stateRequests) {
    const known = current.get(request.id) ?? (bulks.has(request.id) ? { bulk: bulks.get(request.id), items: items.get(request.id) ?? [] } : null);
    // Only the bulk's payer and payee are told its state; anybody else hears it is not found.
    const party = known && (request.from === known.bulk.payerFsp || request.from === known.bulk.payeeFsp);
    if (party) decision.outcomes.push({ type: BULK_OUTCOME.state, bulk: known.bulk, items: known.items, to: request.from, request });
    else decision.outcomes.push(refusal(request, failure(FAILURE.bulkTransferNotFound, `bulk transfer ${request.id} is not known to ${request.from}`)));
  }
  return decision;
}

/**
 * The timeout handler's sweep found the bulk past its expiry in `expiry.state`, waiting for
 * results none of its ended transfers will send. If it is still in that state (no result
 * moved it since the sweep's read, in this batch or before), it ends EXPIRED and its payer is
 * told once, with the results its items have (an item whose result was lost is listed by its
 * transferId alone), and its payee 3303 if it was sent the bulk. A bulk that moved is left
 * for the next sweep to look at again, so a repeated sweep changes nothing.
 */
function expireStuck(expiry, { bulks, items, current, decision }) {
  const bulkTransferId = expiry.id;
  const known = current.get(bulkTransferId) ?? (bulks.has(bulkTransferId) ? { bulk: bulks.get(bulkTransferId), items: items.get(bulkTransferId) ?? [] } : null);
  if (!known || known.bulk.state !== expiry.state || !OPEN_BULK_STATES.includes(known.bulk.state)) return;
  const expired = { ...known.bulk, state: BULK_STATE.expired };
  decision.bulkUpdates.push({ bulkTransferId, statePath: bulkTransition(known.bulk.state, BULK_STATE.expired) });
  decision.outcomes.push({ type: BULK_OUTCOME.expired, bulk: expired, items: known.items, forwarded: wasForwarded(known.items) });
  current.set(bulkTransferId, { bulk: expired, items: known.items });
}

/** The refusal of a DFSP's request about a bulk, to its sender. */
function refusal(request, refused) {
  return { type: BULK_OUTCOME.refused, bulkTransferId: request.id, to: request.from, request, failure: refused };
}

/**
 * What becomes of a bulk when one of its bulk-processing records was set aside as a dead
 * letter (`failure`: the switch's 2001). A party's request about the bulk (its state) is
 * refused to its sender. An item result that cannot be recorded means the bulk can never be
 * settled by its results: a bulk not yet ended moves to FAILED and its payer is told once
 * (and its payee, if the bulk was forwarded to it); later results, dead letters and
 * redeliveries of an ended bulk change nothing. `bulk`: the stored bulk, locked, or undefined.
 */
export function decideDeadLetteredBulk({ event, bulk, failure: failed }) {
  const nothing = { bulkUpdates: [], outcomes: [] };
  if (event.type !== 'bulkItem') {
    return typeof event.from === 'string' && event.from !== '' ? { ...nothing, outcomes: [refusal(event, failed)] } : nothing;
  }
  if (!bulk || isBulkFinal(bulk.state)) return nothing;
  const forwarded = bulk.state !== BULK_STATE.received;
  return {
    bulkUpdates: [{ bulkTransferId: bulk.bulkTransferId, statePath: bulkTransition(bulk.state, BULK_STATE.failed) }],
    outcomes: [{ type: BULK_OUTCOME.failed, bulk: { ...bulk, state: BULK_STATE.failed }, failure: failed, forwarded }],
  };
}
