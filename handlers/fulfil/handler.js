// The fulfil handler: the payee's PUT /transfers/{ID} and PUT …/error, GET /transfers/{ID}
// from either party, and the FXP's answers to a conversion (PUT /fxTransfers/{ID}, …/error,
// GET). Checks are decided on locked transfers; commits go to the payee's position account,
// aborts to the payer's (a conversion payment's events also name the account its conversion
// moves). One batch is two round trips: the transfers locked, then their state updates sent
// with the COMMIT; a third read, before the decision, only for the conversions of payments
// the batch did not already read.
import { expandBulkAnswers } from '../../ledger/domain/bulk-fulfil.js';
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { decideFxFulfilBatch } from '../../ledger/domain/fx-fulfil.js';
import { bulkItemsFromRows, bulkTransfersFromRows, selectBulkItems, selectBulkTransfers } from '../../ledger/repositories/statements/bulk-transfers.js';
import { selectTransfers, stateUpdateStatements, transfersFromRows } from '../../ledger/repositories/statements/transfers.js';
import { inTransaction } from '../../platform/db.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords, positionRecords } from '../transfer-records.js';
import { bulkStateRequestRecords, gatherBulkRefusals } from '../bulk-records.js';
import { bulkRefusalRecords } from '../bulk/records.js';

const isFxAnswer = (event) => event.type === 'fxTransfer';
// A payee's answer to a bulk (PUT /bulkTransfers/{ID}, …/error) is expanded into the fulfils
// of its individual transfers; GET /bulkTransfers/{ID} is answered by the bulk handler, which
// holds the items' results (handlers/README.md, "Bulk transfers").
const isBulkAnswer = (event) => event.type === 'bulkTransfer' && (event.action === 'bulk-fulfil' || event.action === 'bulk-abort');
const isBulkGet = (event) => event.type === 'bulkTransfer' && event.action === 'bulk-get';

/**
 * The payee's answers to bulks as the fulfils of their individual transfers, with the
 * refusals of answers that cannot be expanded. A bulk's items never change once stored, so
 * they are read without a lock; each transfer is locked with the batch's.
 */
async function readBulkAnswers(tx, answers) {
  if (answers.length === 0) return { fulfils: [], outcomes: [] };
  const ids = answers.map((event) => event.id);
  const [bulkRows, itemRows] = await tx.read(selectBulkTransfers(ids), selectBulkItems(ids));
  return expandBulkAnswers({ events: answers, bulks: bulkTransfersFromRows(bulkRows), items: bulkItemsFromRows(itemRows) });
}

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
    const singles = batch.filter((event) => event.type !== 'bulkTransfer');
    const bulkAnswers = batch.filter(isBulkAnswer);
    const bulkGets = batch.filter(isBulkGet);
    if (singles.length === 0 && bulkAnswers.length === 0) {
      if (bulkGets.length > 0) await producer.produce(bulkStateRequestRecords(topics, bulkGets));
      return;
    }
    const now = clock();
    const fxAnswers = singles.filter(isFxAnswer);
    const decision = await inTransaction(pool, async (tx) => {
      const bulked = await readBulkAnswers(tx, bulkAnswers);
      const events = [...singles, ...bulked.fulfils];
      const payments = events.filter((event) => !isFxAnswer(event));
      const transfers = await readLocked(tx, events);
      const paid = decideFulfilBatch({ events: payments, transfers, now });
      paid.outcomes.push(...bulked.outcomes);
      const converted = fxAnswers.length > 0 ? decideFxFulfilBatch({ events: fxAnswers, transfers, now }) : { stateUpdates: [], positionEvents: [], outcomes: [] };
      const decided = {
        stateUpdates: [...paid.stateUpdates, ...converted.stateUpdates],
        positionEvents: [...paid.positionEvents, ...converted.positionEvents],
        outcomes: [...paid.outcomes, ...converted.outcomes],
        events,
      };
      tx.write(...stateUpdateStatements(decided.stateUpdates, now));
      return decided;
    });
    transferMetrics.countFinished(decision.stateUpdates);
    // The refusals of a bulk answer's items are one PUT /bulkTransfers/{ID}/error to its payee.
    const gathered = gatherBulkRefusals(decision.outcomes, decision.events);
    await producer.produce([
      ...positionRecords(topics, decision.positionEvents), ...notificationRecords(topics, gathered.outcomes, hubName, decision.events),
      ...bulkRefusalRecords(topics, gathered.refusals, hubName), ...bulkStateRequestRecords(topics, bulkGets),
    ]);
  };
}
