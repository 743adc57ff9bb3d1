// The timeout handler: claims transfers past their expiry (FOR UPDATE SKIP LOCKED, so
// replicas never take the same rows), finishes or releases them, and re-sends releases
// that a crash may have lost.
import { decideExpiries, releaseStaleTimeouts } from '../../ledger/domain/expiry.js';
import {
  applyStateUpdates, claimExpiredTransfers, findStaleTimeouts, findTransfers, lockLinkedTransfers,
} from '../../ledger/repositories/transfers.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords, positionRecords } from '../transfer-records.js';

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
    const positionEvents = [...decision.positionEvents, ...releaseStaleTimeouts(stale, conversions)];
    await producer.produce([...positionRecords(topics, positionEvents), ...notificationRecords(topics, decision.outcomes, hubName)]);
    return decision.claimed;
  };
}
