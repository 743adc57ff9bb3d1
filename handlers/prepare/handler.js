// The prepare handler: POST /transfers events → duplicate check and validation → stored
// RECEIVED_PREPARE (or INVALID) → the payer's position account (or an error to the payer).
import { decidePrepareBatch } from '../../ledger/domain/prepare.js';
import { findParticipantsWithPositionAccounts, findTransfers, insertTransfers } from '../../ledger/repositories/transfers.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords, positionRecords } from '../transfer-records.js';

export function createPrepareHandler({ db, producer, topics, hubName, metrics, config, clock = () => new Date() }) {
  const transferMetrics = createTransferMetrics(metrics);
  const onUsAllowed = config?.transfers?.onUsAllowed ?? false;
  return async function handlePrepares(events) {
    const now = clock();
    const decision = await db.transaction(async (trx) => {
      const existing = await findTransfers(trx, events.map((event) => event.id));
      const names = events.flatMap((event) => [event.body?.payerFsp, event.body?.payeeFsp]).filter((name) => typeof name === 'string');
      const participants = await findParticipantsWithPositionAccounts(trx, names);
      const decided = decidePrepareBatch({ messages: events, existing, participants, now, onUsAllowed });
      await insertTransfers(trx, decided.inserts, now);
      return decided;
    });
    transferMetrics.countFinished(decision.inserts);
    await producer.produce([...positionRecords(topics, decision.positionEvents), ...notificationRecords(topics, decision.outcomes, hubName)]);
  };
}
