// Ends the bulk a dead-lettered bulk-processing record concerned (decideDeadLetteredBulk in
// ledger/domain/bulk-results.js): the bulk is locked and moved to FAILED in one transaction,
// and the records that tell its parties (or refuse a party's request) are returned for the
// dead-letter sink to produce with the dead letter.
import { decideDeadLetteredBulk } from '../../ledger/domain/bulk-results.js';
import { bulkStateStatement, bulkTransfersFromRows, selectBulkTransfers } from '../../ledger/repositories/statements/bulk-transfers.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { inTransaction } from '../../platform/db.js';
import { bulkNotificationRecords } from './records.js';

/** `finishDeadLetter(event, error)` for the bulk handler; `pool` as the handler's. */
export function createBulkDeadLetterFinisher({ pool, topics, hubName, clock = () => new Date() }) {
  return async function finishDeadLetter(event) {
    if (typeof event.id !== 'string' || event.id === '') return [];
    const now = clock();
    // The cause stays in the operator's dead-letter record; a DFSP learns only that the
    // switch failed, not its internals.
    const failed = failure(FAILURE.processingFailed, `the switch could not process this ${event.type} message; it was set aside for the operator`);
    if (event.type !== 'bulkItem') return bulkNotificationRecords(topics, decideDeadLetteredBulk({ event, failure: failed }).outcomes, hubName, now);
    const decision = await inTransaction(pool, async (tx) => {
      const [rows] = await tx.read(selectBulkTransfers([event.id], { forUpdate: true }));
      const decided = decideDeadLetteredBulk({ event, bulk: bulkTransfersFromRows(rows).get(event.id), failure: failed });
      tx.write(...decided.bulkUpdates.map((update) => bulkStateStatement(update, now)));
      return decided;
    });
    return bulkNotificationRecords(topics, decision.outcomes, hubName, now);
  };
}
