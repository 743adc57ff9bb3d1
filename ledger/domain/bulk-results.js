// The bulk handler's decision for a batch of item results (handlers/README.md, "Bulk
// transfers"): each result is recorded on its item once; when every item of a bulk still
// RECEIVED has its prepare result, the bulk is forwarded to the payee with the items that
// reserved (ACCEPTED), or, when none did, rejected to the payer with every item's failure
// (REJECTED). A result the bulk already holds is a redelivery (after a crash between a
// handler's commit and its produce): it changes nothing, and the bulk's forward or rejection,
// if already decided, is produced again, since it may be what the crash lost.
import { BULK_STATE, bulkTransition } from './bulk-transfer-states.js';

const RESERVED = 'RESERVED';

/** What the parties must be told about a bulk, as plain values the handler addresses. */
export const BULK_OUTCOME = Object.freeze({
  // POST /bulkTransfers to the payee with the reserved items (all of them: the payer's request).
  forward: 'BULK_FORWARD',
  // PUT /bulkTransfers/{ID} to the payer: REJECTED, with every item's failure.
  rejected: 'BULK_REJECTED',
  // PUT /bulkTransfers/{ID} to the payer that sent its bulk again: its current state, with the
  // results its items have so far.
  state: 'BULK_STATE',
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

/**
 * `results`: item-result events `{ id: bulkTransferId, transferId, result, failure? }` in
 * consumption order. `bulks`: bulkTransferId → stored bulk (locked). `items`: bulkTransferId →
 * its items in order, `{ transferId, itemIndex, prepareResult, failure? }`. `stateRequests`:
 * bulk-state events `{ id, from, headers }`, answered after the batch's results. Returns the
 * results to record, the bulks' state updates and the outcomes.
 */
export function decideBulkResults({ results, bulks, items, stateRequests = [] }) {
  const decision = { recorded: [], bulkUpdates: [], outcomes: [], unknown: [] };
  const current = new Map();
  const byBulk = new Map();
  for (const result of results) {
    if (!byBulk.has(result.id)) byBulk.set(result.id, []);
    byBulk.get(result.id).push(result);
  }
  for (const [bulkTransferId, bulkResults] of byBulk) {
    const bulk = bulks.get(bulkTransferId);
    const bulkItems = (items.get(bulkTransferId) ?? []).map((item) => ({ ...item }));
    const byTransferId = new Map(bulkItems.map((item) => [item.transferId, item]));
    let redelivered = false;
    for (const result of bulkResults) {
      const item = byTransferId.get(result.transferId);
      if (!bulk || !item) { decision.unknown.push(result); continue; }
      if (item.prepareResult) { redelivered = true; continue; }
      item.prepareResult = result.result;
      item.failure = result.failure;
      decision.recorded.push({ bulkTransferId, transferId: result.transferId, result: result.result, failure: result.failure });
    }
    if (!bulk) continue;
    current.set(bulkTransferId, { bulk, items: bulkItems });
    if (bulk.state === BULK_STATE.received && bulkItems.every((item) => item.prepareResult)) {
      const next = settledState(bulkItems);
      decision.bulkUpdates.push({ bulkTransferId, statePath: bulkTransition(bulk.state, next) });
      current.set(bulkTransferId, { bulk: { ...bulk, state: next }, items: bulkItems });
      decision.outcomes.push(outcomeOf({ ...bulk, state: next }, bulkItems));
    } else if (redelivered && (bulk.state === BULK_STATE.accepted || bulk.state === BULK_STATE.rejected)) {
      decision.outcomes.push(outcomeOf(bulk, bulkItems));
    }
  }
  for (const request of stateRequests) {
    const known = current.get(request.id) ?? (bulks.has(request.id) ? { bulk: bulks.get(request.id), items: items.get(request.id) ?? [] } : null);
    if (known) decision.outcomes.push({ type: BULK_OUTCOME.state, bulk: known.bulk, items: known.items, to: request.from, request });
  }
  return decision;
}
