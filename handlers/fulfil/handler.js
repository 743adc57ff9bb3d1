// The fulfil handler: the payee's PUT /transfers/{ID} and PUT …/error, and GET
// /transfers/{ID} from either party. Checks are decided on locked transfers; commits go to
// the payee's position account, aborts to the payer's. One batch is two round trips: the
// transfers locked, then their state updates sent with the COMMIT.
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { selectTransfers, stateUpdateStatements, transfersFromRows } from '../../ledger/repositories/statements/transfers.js';
import { inTransaction } from '../../platform/db.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords, positionRecords } from '../transfer-records.js';

/** `pool`: the mysql2 pool of the hot path (platform/db.js createSqlPool). */
export function createFulfilHandler({ pool, producer, topics, hubName, metrics, clock = () => new Date() }) {
  const transferMetrics = createTransferMetrics(metrics);
  return async function handleFulfils(events) {
    const now = clock();
    const decision = await inTransaction(pool, async (tx) => {
      const [rows] = await tx.read(selectTransfers(events.map((event) => event.id), { forUpdate: true }));
      const decided = decideFulfilBatch({ events, transfers: transfersFromRows(rows), now });
      tx.write(...stateUpdateStatements(decided.stateUpdates, now));
      return decided;
    });
    transferMetrics.countFinished(decision.stateUpdates);
    await producer.produce([...positionRecords(topics, decision.positionEvents), ...notificationRecords(topics, decision.outcomes, hubName, events)]);
  };
}
