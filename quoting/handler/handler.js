// The quoting handler: quote events from both quote topics → prefetch the quotes and their
// DFSPs → the pure decision (quoting/domain/quotes.js) → one transaction → the callbacks as
// notification events, produced and acknowledged before the consumer commits the offsets.
import { decideQuoteBatch } from '../domain/quotes.js';
import { findParticipantStates, findQuotes, insertQuotes, updateQuotes } from '../repositories/quotes.js';
import { quoteNotificationRecords } from './records.js';

/** Every DFSP a decision may check: the events' source and destination, and the stored quotes' parties. */
function participantNames(events, quotes) {
  const names = events.flatMap((event) => [event.from, event.to]);
  for (const quote of quotes.values()) names.push(quote.payerFsp, quote.payeeFsp);
  return names;
}

/** `persist` is config QUOTES_PERSIST; `clock` is injectable for tests. */
export function createQuotingHandler({ db, producer, topics, hubName, persist, logger, clock = () => new Date() }) {
  const log = logger.child({ component: 'quoting-handler' });
  return async function handleQuoteEvents(events) {
    const now = clock();
    const decision = await db.transaction(async (trx) => {
      const quotes = await findQuotes(trx, events.map((event) => event.id), { forUpdate: true });
      const participants = await findParticipantStates(trx, participantNames(events, quotes));
      const decided = decideQuoteBatch({ events, quotes, participants, persist });
      await insertQuotes(trx, decided.inserts, now);
      await updateQuotes(trx, decided.updates, now);
      return decided;
    });
    // The edge produces only the four quote actions; anything else is a producer's defect
    // that retrying would not cure, so it is logged and skipped.
    for (const event of decision.unknown) log.error({ id: event.id, type: event.type, action: event.action }, 'quote event with an unknown action skipped');
    await producer.produce(quoteNotificationRecords(topics, decision.outcomes, hubName));
  };
}
