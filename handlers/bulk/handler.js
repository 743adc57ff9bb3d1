// The bulk handler: the results of a bulk's individual transfers, from topic-bulk-processing
// (keyed by bulkTransferId, so one consumer sees a bulk's results in order). One batch is two
// round trips: its bulks locked (id order) with their items, then the results recorded and the
// bulks' state changes sent with the COMMIT; the forwards and rejections decided are produced
// after it (handlers/README.md, "Bulk transfers").
import { FINAL_RESULT_ACTION, decideBulkResults } from '../../ledger/domain/bulk-results.js';
import {
  bulkItemsFromRows, bulkStateStatement, bulkTransfersFromRows, itemFinalStatements, itemResultStatements, selectBulkItems, selectBulkTransfers,
} from '../../ledger/repositories/statements/bulk-transfers.js';
import { inTransaction } from '../../platform/db.js';
import { metricOnce } from '../../platform/metrics.js';
import { bulkNotificationRecords } from './records.js';

// An individual transfer's prepare result (reserved or refused) or final result (committed or aborted).
const isItemResult = (event) => event.type === 'bulkItem' && (event.action === 'prepare-result' || event.action === FINAL_RESULT_ACTION);
const isStateRequest = (event) => event.type === 'bulkTransfer' && event.action === 'bulk-state';
// The timeout handler's sweep: a bulk past its expiry that lost results (selectStuckBulks).
const isExpiry = (event) => event.type === 'bulkTransfer' && event.action === 'bulk-expire';

/** `pool`: the mysql2 pool of the hot path (platform/db.js createSqlPool). */
export function createBulkHandler({ pool, producer, topics, hubName, metrics, logger, clock = () => new Date() }) {
  const recorded = metricOnce(metrics, metrics.client.Counter, {
    name: 'bulk_item_results_total', help: 'Individual transfer results the bulk handler recorded, by result.', labelNames: ['result'],
  });
  const settled = metricOnce(metrics, metrics.client.Counter, {
    name: 'bulk_transfers_settled_total', help: 'Bulks whose state changed, by the state they moved to.', labelNames: ['state'],
  });
  return async function handleBulkResults(events) {
    const results = events.filter(isItemResult);
    const stateRequests = events.filter(isStateRequest);
    const expiries = events.filter(isExpiry);
    if (results.length === 0 && stateRequests.length === 0 && expiries.length === 0) return;
    const now = clock();
    const bulkIds = [...new Set([...results, ...stateRequests, ...expiries].map((event) => event.id))];
    const decision = await inTransaction(pool, async (tx) => {
      const [bulkRows, itemRows] = await tx.read(selectBulkTransfers(bulkIds, { forUpdate: true }), selectBulkItems(bulkIds));
      const decided = decideBulkResults({
        results, stateRequests, expiries, bulks: bulkTransfersFromRows(bulkRows), items: bulkItemsFromRows(itemRows),
      });
      tx.write(...itemResultStatements(decided.recorded, now), ...itemFinalStatements(decided.finals, now), ...decided.bulkUpdates.map((update) => bulkStateStatement(update, now)));
      return decided;
    });
    for (const result of [...decision.recorded, ...decision.finals]) recorded.inc({ result: result.result });
    for (const update of decision.bulkUpdates) settled.inc({ state: update.statePath.at(-1) });
    if (decision.unknown.length > 0) logger?.warn({ count: decision.unknown.length, bulkTransferId: decision.unknown[0].id }, 'results for no stored bulk item ignored');
    await producer.produce(bulkNotificationRecords(topics, decision.outcomes, hubName, now));
  };
}
