// The fulfil handler: the payee's PUT /transfers/{ID} and PUT …/error, GET /transfers/{ID}
// from either party, and the FXP's answers to a conversion (PUT /fxTransfers/{ID}, …/error,
// GET). Checks are decided on locked transfers; commits go to the payee's position account,
// aborts to the payer's (a conversion payment's events also name the account its conversion
// moves). One batch is two round trips: the transfers locked, then their state updates sent
// with the COMMIT; a third read, before the decision, only for the conversions of payments
// the batch did not already read.
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { decideFxFulfilBatch } from '../../ledger/domain/fx-fulfil.js';
import { selectTransfers, stateUpdateStatements, transfersFromRows } from '../../ledger/repositories/statements/transfers.js';
import { inTransaction } from '../../platform/db.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords, positionRecords } from '../transfer-records.js';

const isFxAnswer = (event) => event.type === 'fxTransfer';
// A payee's answer to a bulk (PUT /bulkTransfers/{ID}, …/error) and GET /bulkTransfers/{ID}
// share this topic; they are not decided here yet (handlers/README.md, "Bulk transfers").
const isBulkEvent = (event) => event.type === 'bulkTransfer';

/**
 * The batch's transfers, locked in id order, with the conversion of each payment that has
 * one. A conversion's accounts never change, so the conversions read for their accounts
 * need no lock here; the position handler locks them with the payment.
 */
async function readLocked(tx, events) {
  const [rows] = await tx.read(selectTransfers(events.map((event) => event.id), { forUpdate: true }));
  const transfers = transfersFromRows(rows);
  const missing = [...transfers.values()].map((transfer) => transfer.commitRequestId).filter((id) => id && !transfers.has(id));
  if (missing.length === 0) return transfers;
  const [conversionRows] = await tx.read(selectTransfers(missing));
  return new Map([...transfers, ...transfersFromRows(conversionRows)]);
}

/** `pool`: the mysql2 pool of the hot path (platform/db.js createSqlPool). */
export function createFulfilHandler({ pool, producer, topics, hubName, metrics, clock = () => new Date() }) {
  const transferMetrics = createTransferMetrics(metrics);
  return async function handleFulfils(batch) {
    const events = batch.filter((event) => !isBulkEvent(event));
    if (events.length === 0) return;
    const now = clock();
    const payments = events.filter((event) => !isFxAnswer(event));
    const fxAnswers = events.filter(isFxAnswer);
    const decision = await inTransaction(pool, async (tx) => {
      const transfers = await readLocked(tx, events);
      const paid = decideFulfilBatch({ events: payments, transfers, now });
      const converted = fxAnswers.length > 0 ? decideFxFulfilBatch({ events: fxAnswers, transfers, now }) : { stateUpdates: [], positionEvents: [], outcomes: [] };
      const decided = {
        stateUpdates: [...paid.stateUpdates, ...converted.stateUpdates],
        positionEvents: [...paid.positionEvents, ...converted.positionEvents],
        outcomes: [...paid.outcomes, ...converted.outcomes],
      };
      tx.write(...stateUpdateStatements(decided.stateUpdates, now));
      return decided;
    });
    transferMetrics.countFinished(decision.stateUpdates);
    await producer.produce([...positionRecords(topics, decision.positionEvents), ...notificationRecords(topics, decision.outcomes, hubName, events)]);
  };
}
