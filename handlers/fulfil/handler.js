// The fulfil handler: the payee's PUT /transfers/{ID} and PUT …/error, and GET
// /transfers/{ID} from either party. Checks are decided on locked transfers; commits go to
// the payee's position account, aborts to the payer's.
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { applyStateUpdates, findTransfers } from '../../ledger/repositories/transfers.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords, positionRecords } from '../transfer-records.js';

export function createFulfilHandler({ db, producer, topics, hubName, metrics, clock = () => new Date() }) {
  const transferMetrics = createTransferMetrics(metrics);
  return async function handleFulfils(events) {
    const now = clock();
    const decision = await db.transaction(async (trx) => {
      const transfers = await findTransfers(trx, events.map((event) => event.id), { forUpdate: true });
      const decided = decideFulfilBatch({ events, transfers, now });
      await applyStateUpdates(trx, decided.stateUpdates, now);
      return decided;
    });
    transferMetrics.countFinished(decision.stateUpdates);
    await producer.produce([...positionRecords(topics, decision.positionEvents), ...notificationRecords(topics, decision.outcomes, hubName)]);
  };
}
