// The quoting handler: quote, fx quote and bulk quote events from both quote topics → prefetch
// the quotes, the fx quotes, the bulk quotes and their parties → the pure decisions
// (quoting/domain/quotes.js, fx-quotes.js and bulk-quotes.js) → one transaction → the
// callbacks as notification events, produced and acknowledged before the consumer commits the
// offsets. The transaction costs two round trips: the locking reads with the reads of the
// parties, then the writes with the COMMIT (platform/db.js inTransaction).
import { inTransaction } from '../../platform/db.js';
import { decideQuoteBatch } from '../domain/quotes.js';
import { FX_QUOTE_EVENT, decideFxQuoteBatch } from '../domain/fx-quotes.js';
import { BULK_QUOTE_EVENT, decideBulkQuoteBatch } from '../domain/bulk-quotes.js';
import { participantStatesFromRows } from '../../ledger/ports/participant-directory.js';
import {
  insertQuotes, quotesFromRows, selectParticipantStates, selectQuotes, updateQuotes,
} from '../repositories/quotes.js';
import {
  fxPartiesFromRows, fxQuotesFromRows, insertFxQuotes, selectFxParties, selectFxQuotes, updateFxQuotes,
} from '../repositories/fx-quotes.js';
import {
  bulkPartiesFromRows, bulkQuotesFromRows, insertBulkQuotes, selectBulkParties, selectBulkQuotes, updateBulkQuotes,
} from '../repositories/bulk-quotes.js';
import { bulkQuoteNotificationRecords, fxQuoteNotificationRecords, quoteNotificationRecords } from './records.js';

const namesOf = (events) => events.flatMap((event) => [event.from, event.to]);

/**
 * `pool`: the mysql2 pool of the hot path (platform/db.js createSqlPool). `persist` is config
 * QUOTES_PERSIST; `clock` is injectable for tests.
 */
export function createQuotingHandler({ pool, producer, topics, hubName, persist, logger, clock = () => new Date() }) {
  const log = logger.child({ component: 'quoting-handler' });
  return async function handleQuoteEvents(events) {
    const now = clock();
    const fxEvents = events.filter((event) => event.type === FX_QUOTE_EVENT);
    const bulkEvents = events.filter((event) => event.type === BULK_QUOTE_EVENT);
    const quoteEvents = events.filter((event) => event.type !== FX_QUOTE_EVENT && event.type !== BULK_QUOTE_EVENT);
    const quoteIds = quoteEvents.map((event) => event.id);
    const fxIds = fxEvents.map((event) => event.id);
    const bulkIds = bulkEvents.map((event) => event.id);
    const [quotes, fxQuotes, bulkQuotes] = await inTransaction(pool, async (tx) => {
      // Every party a decision may check: the events' source and destination, and the stored records' parties.
      const [quoteRows, participantRows, fxQuoteRows, fxFactRows, fxStateRows, bulkQuoteRows, bulkFactRows, bulkStateRows] = await tx.read(
        selectQuotes(quoteIds, { forUpdate: true }),
        selectParticipantStates(namesOf(quoteEvents), quoteIds),
        selectFxQuotes(fxIds, { forUpdate: true }),
        ...selectFxParties(namesOf(fxEvents), fxIds),
        selectBulkQuotes(bulkIds, { forUpdate: true }),
        ...selectBulkParties(namesOf(bulkEvents), bulkIds),
      );
      const quoteDecision = decideQuoteBatch({
        events: quoteEvents, quotes: quotesFromRows(quoteRows), participants: participantStatesFromRows(participantRows), persist,
      });
      const fxDecision = decideFxQuoteBatch({
        events: fxEvents, fxQuotes: fxQuotesFromRows(fxQuoteRows), participants: fxPartiesFromRows(fxFactRows, fxStateRows), persist,
      });
      const bulkDecision = decideBulkQuoteBatch({
        events: bulkEvents, bulkQuotes: bulkQuotesFromRows(bulkQuoteRows), participants: bulkPartiesFromRows(bulkFactRows, bulkStateRows), persist,
      });
      tx.write(
        insertQuotes(quoteDecision.inserts, now), ...updateQuotes(quoteDecision.updates, now),
        insertFxQuotes(fxDecision.inserts, now), ...updateFxQuotes(fxDecision.updates, now),
        insertBulkQuotes(bulkDecision.inserts, now), ...updateBulkQuotes(bulkDecision.updates, now),
      );
      return [quoteDecision, fxDecision, bulkDecision];
    });
    // The edge produces only the four actions; anything else is a producer's defect that
    // retrying would not cure, so it is logged and skipped.
    for (const event of [...quotes.unknown, ...fxQuotes.unknown, ...bulkQuotes.unknown]) log.error({ id: event.id, type: event.type, action: event.action }, 'quote event with an unknown action skipped');
    await producer.produce([
      ...quoteNotificationRecords(topics, quotes.outcomes, hubName, quoteEvents), ...fxQuoteNotificationRecords(topics, fxQuotes.outcomes, hubName, fxEvents),
      ...bulkQuoteNotificationRecords(topics, bulkQuotes.outcomes, hubName, bulkEvents),
    ]);
  };
}
