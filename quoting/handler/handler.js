// The quoting handler: quote events from both quote topics → prefetch the quotes and their
// DFSPs → the pure decision (quoting/domain/quotes.js) → one transaction → the callbacks as
// notification events, produced and acknowledged before the consumer commits the offsets.
// The transaction costs two round trips: the locking read of the quotes with the read of
// their DFSPs, then the writes with the COMMIT (platform/db.js inTransaction).
import { inTransaction } from '../../platform/db.js';
import { decideQuoteBatch } from '../domain/quotes.js';
import { participantStatesFromRows } from '../../ledger/ports/participant-directory.js';
import {
  insertQuotes, quotesFromRows, selectParticipantStates, selectQuotes, updateQuotes,
} from '../repositories/quotes.js';
import { quoteNotificationRecords } from './records.js';

/**
 * `pool`: the mysql2 pool of the hot path (platform/db.js createSqlPool). `persist` is config
 * QUOTES_PERSIST; `clock` is injectable for tests.
 */
export function createQuotingHandler({ pool, producer, topics, hubName, persist, logger, clock = () => new Date() }) {
  const log = logger.child({ component: 'quoting-handler' });
  return async function handleQuoteEvents(events) {
    const now = clock();
    const quoteIds = events.map((event) => event.id);
    const decision = await inTransaction(pool, async (tx) => {
      // Every DFSP a decision may check: the events' source and destination, and the stored quotes' parties.
      const [quoteRows, participantRows] = await tx.read(
        selectQuotes(quoteIds, { forUpdate: true }),
        selectParticipantStates(events.flatMap((event) => [event.from, event.to]), quoteIds),
      );
      const decided = decideQuoteBatch({ events, quotes: quotesFromRows(quoteRows), participants: participantStatesFromRows(participantRows), persist });
      tx.write(insertQuotes(decided.inserts, now), ...updateQuotes(decided.updates, now));
      return decided;
    });
    // The edge produces only the four quote actions; anything else is a producer's defect
    // that retrying would not cure, so it is logged and skipped.
    for (const event of decision.unknown) log.error({ id: event.id, type: event.type, action: event.action }, 'quote event with an unknown action skipped');
    await producer.produce(quoteNotificationRecords(topics, decision.outcomes, hubName, events));
  };
}
