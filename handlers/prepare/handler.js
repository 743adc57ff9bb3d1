// The prepare handler: POST /transfers events → duplicate check and validation → stored
// RECEIVED_PREPARE (or INVALID) → the payer's position account (or an error to the payer).
// One batch is two round trips: the existing transfers and the participants read together,
// then the inserts sent with the COMMIT.
import { decidePrepareBatch } from '../../ledger/domain/prepare.js';
import { participantsFromRows, selectParticipantsWithPositionAccounts } from '../../ledger/repositories/statements/accounts.js';
import { selectTransfers, transferInsertStatements, transfersFromRows } from '../../ledger/repositories/statements/transfers.js';
import { inTransaction } from '../../platform/db.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords, positionRecords } from '../transfer-records.js';

/** `pool`: the mysql2 pool of the hot path (platform/db.js createSqlPool). */
export function createPrepareHandler({ pool, producer, topics, hubName, metrics, config, clock = () => new Date() }) {
  const transferMetrics = createTransferMetrics(metrics);
  const onUsAllowed = config?.transfers?.onUsAllowed ?? false;
  return async function handlePrepares(events) {
    const now = clock();
    const names = events.flatMap((event) => [event.body?.payerFsp, event.body?.payeeFsp]).filter((name) => typeof name === 'string');
    const decision = await inTransaction(pool, async (tx) => {
      const readTransfers = selectTransfers(events.map((event) => event.id));
      const readParticipants = selectParticipantsWithPositionAccounts(names);
      const [transferRows, participantRows] = await tx.read(readTransfers, readParticipants);
      const decided = decidePrepareBatch({
        messages: events, existing: transfersFromRows(transferRows), participants: participantsFromRows(participantRows), now, onUsAllowed,
      });
      tx.write(...transferInsertStatements(decided.inserts, now));
      return decided;
    });
    transferMetrics.countFinished(decision.inserts);
    await producer.produce([...positionRecords(topics, decision.positionEvents), ...notificationRecords(topics, decision.outcomes, hubName, events)]);
  };
}

