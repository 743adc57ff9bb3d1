// The timeout handler: claims transfers past their expiry (FOR UPDATE SKIP LOCKED, so
// replicas never take the same rows), finishes or releases them, and re-sends releases
// that a crash may have lost; and asks the bulk handler to end bulks that lost results.
import { decideExpiries, releaseStaleTimeouts } from '../../ledger/domain/expiry.js';
import {
  applyStateUpdates, claimExpiredTransfers, findStaleTimeouts, findTransfers, lockLinkedTransfers,
} from '../../ledger/repositories/transfers.js';
import { bulksOfTransfersFromRows, selectBulksOfTransfers, selectStuckBulks } from '../../ledger/repositories/statements/bulk-transfers.js';
import { runStatement } from '../../platform/db.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords, positionRecords } from '../transfer-records.js';
import { bulkExpiryRecords, bulkItemResultRecords, routeBulkOutcomes } from '../bulk-records.js';

/**
 * transferId → bulkTransferId of the transfers that belong to a bulk. An individual transfer
 * of a bulk expires as any other; its release carries its bulk, so that the position
 * handler's outcome reaches the bulk handler, and its expiry before it was reserved is an
 * item result (handlers/README.md, "Bulk transfers").
 */
async function bulksOf(db, transferIds) {
  const statement = selectBulksOfTransfers(transferIds);
  return statement ? bulksOfTransfersFromRows(await runStatement(db, statement)) : new Map();
}

/**
 * The bulks that expired over `staleReleaseAfterMs` ago and still wait for results none of
 * their transfers, all ended at least that long ago, will send: the bulk handler is asked to
 * end them EXPIRED.
 */
async function stuckBulks(db, now, settings) {
  const rows = await runStatement(db, selectStuckBulks(new Date(now.getTime() - settings.staleReleaseAfterMs), settings.batchSizeMax));
  return rows.map((row) => ({ bulkTransferId: row.bulk_transfer_id, state: row.state }));
}

const withBulk = (bulkOf) => (event) => (bulkOf.has(event.message.id) ? { ...event, message: { ...event.message, bulkTransferId: bulkOf.get(event.message.id) } } : event);

export function createTimeoutSweeper({ db, producer, topics, hubName, settings, metrics, clock = () => new Date() }) {
  const transferMetrics = createTransferMetrics(metrics);
  /** One sweep; returns how many transfers it claimed. */
  return async function sweepOnce() {
    const now = clock();
    const decision = await db.transaction(async (trx) => {
      const claimed = await claimExpiredTransfers(trx, now, settings.batchSizeMax);
      const { transfers, linked } = await lockLinkedTransfers(trx, claimed);
      const decided = decideExpiries({ transfers, now, linked });
      await applyStateUpdates(trx, decided.stateUpdates, now);
      return { ...decided, claimed: claimed.length };
    });
    transferMetrics.countFinished(decision.stateUpdates);
    const stale = await findStaleTimeouts(db, new Date(now.getTime() - settings.staleReleaseAfterMs), settings.batchSizeMax);
    // A stale payment's release names its conversion; a conversion's accounts never change, so an unlocked read will do.
    const conversions = await findTransfers(db, stale.map((transfer) => transfer.commitRequestId).filter(Boolean));
    const released = [...decision.positionEvents, ...releaseStaleTimeouts(stale, conversions)];
    const bulkOf = await bulksOf(db, [...released.map((event) => event.message.id), ...decision.outcomes.map((outcome) => outcome.transferId)]);
    const routed = routeBulkOutcomes(decision.outcomes, bulkOf);
    await producer.produce([
      ...positionRecords(topics, released.map(withBulk(bulkOf))), ...notificationRecords(topics, routed.outcomes, hubName),
      ...bulkItemResultRecords(topics, routed.itemResults, now), ...bulkExpiryRecords(topics, await stuckBulks(db, now, settings), now),
    ]);
    return decision.claimed;
  };
}
