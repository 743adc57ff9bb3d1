// Ends the transfer a dead-lettered message concerned (ledger/domain/dead-letters.js): the
// transfer is locked, the decision applied in one transaction, and the records that release
// it or tell its parties are returned for the dead-letter sink to produce with the dead letter.
import { decideDeadLetteredTransfer } from '../ledger/domain/dead-letters.js';
import { applyStateUpdates, findTransfers } from '../ledger/repositories/transfers.js';
import { FAILURE, failure } from '../platform/domain/failures.js';
import { notificationRecords, positionRecords } from './transfer-records.js';
import { bulkItemResultRecords, bulkOfEvents, routeBulkOutcomes } from './bulk-records.js';
import { tellBulk } from '../ledger/domain/outcomes.js';

/** `finishDeadLetter(event, error)` for the prepare, position and fulfil handlers. */
export function createTransferDeadLetterFinisher({ db, topics, hubName, clock = () => new Date() }) {
  return async function finishDeadLetter(event) {
    const now = clock();
    // The cause stays in the operator's dead-letter record; a DFSP learns only that the
    // switch failed, not its internals.
    const failed = failure(FAILURE.processingFailed, `the switch could not process this ${event.type} message; it was set aside for the operator`);
    // A bulk's own message names no transfer: its sender hears about the bulk.
    if (event.type === 'bulkTransfer') return notificationRecords(topics, [tellBulk.error(event.id, event.from, failed)], hubName, [event]);
    const decision = await db.transaction(async (trx) => {
      // A payment's conversion is locked with it, in id order like every writer: its id is
      // read first (a payment's commitRequestId never changes once stored).
      const conversionId = (await findTransfers(trx, [event.id])).get(event.id)?.commitRequestId;
      const transfers = await findTransfers(trx, [event.id, conversionId].filter(Boolean), { forUpdate: true });
      const linked = conversionId && transfers.has(conversionId) ? new Map([[conversionId, transfers.get(conversionId)]]) : new Map();
      const decided = decideDeadLetteredTransfer({ event, transfer: transfers.get(event.id), failure: failed, now, linked });
      await applyStateUpdates(trx, decided.stateUpdates, now);
      return decided;
    });
    // An individual transfer of a bulk ends as an item result of its bulk, as in the handlers.
    const { bulkOf } = bulkOfEvents([event]);
    const routed = routeBulkOutcomes(decision.outcomes, bulkOf);
    return [
      ...positionRecords(topics, decision.positionEvents), ...notificationRecords(topics, routed.outcomes, hubName, [event]),
      ...bulkItemResultRecords(topics, routed.itemResults, now),
    ];
  };
}
