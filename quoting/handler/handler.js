// The quoting handler: the events of every relayed kind (quoting/handler/relayed-kinds.js)
// from both quote topics → prefetch each kind's records and parties → the pure decisions
// (quoting/domain/) → one transaction → the callbacks as notification events, produced and
// acknowledged before the consumer commits the offsets. The transaction costs two round
// trips: the locking reads of every kind with the reads of their parties, then the writes
// with the COMMIT (platform/db.js inTransaction).
import { inTransaction } from '../../platform/db.js';
import { RELAYED_KINDS, relayedKindOf, sharedRecordsOf } from './relayed-kinds.js';
import { uniqueSorted } from '../../platform/sql-text.js';
import { metricOnce } from '../../platform/metrics.js';

/** The batch's events by relayed kind, in the table's order; every kind is present, most with no events. */
function eventsByKind(events) {
  const groups = new Map(RELAYED_KINDS.map((relayed) => [relayed, []]));
  for (const event of events) groups.get(relayedKindOf(event)).push(event);
  return [...groups].map(([relayed, kindEvents]) => ({ relayed, events: kindEvents, ids: kindEvents.map((event) => event.id) }));
}

/**
 * `pool`: the mysql2 pool of the hot path (platform/db.js createSqlPool). `persist` is config
 * QUOTES_PERSIST; `clock` is injectable for tests.
 */
export function createQuotingHandler({ pool, producer, topics, hubName, persist, metrics, logger, clock = () => new Date() }) {
  const log = logger.child({ component: 'quoting-handler' });
  // Counted once the callbacks are produced; a redelivered event is decided, and so counted, again.
  const messagesDecided = metricOnce(metrics, metrics.client.Counter, {
    name: 'quoting_messages_total',
    labelNames: ['kind', 'outcome'],
    help: 'Messages the quoting handler decided, by kind (quote, fxQuote, bulkQuote, transactionRequest, authorization) and outcome '
      + '(FORWARD_REQUEST, FORWARD_ANSWER, FORWARD_ERROR: relayed to the other DFSP; ERROR: refused, the hub\'s error to the sender).',
  });
  return async function handleQuoteEvents(events) {
    const now = clock();
    const groups = eventsByKind(events);
    const decisions = await inTransaction(pool, async (tx) => {
      // Every kind's statements in one round trip: its records locked, and every party a
      // decision may check (the events' source and destination, the stored records' parties).
      const linked = uniqueSorted(groups.flatMap(({ relayed, events: kindEvents }) => relayed.linkedIds?.(kindEvents) ?? []));
      const reads = groups.map(({ relayed, events: kindEvents, ids }) => relayed.reads(kindEvents, ids, linked));
      const rows = await tx.read(...reads.flat());
      let offset = 0;
      const rowsByKind = reads.map((statements) => {
        offset += statements.length;
        return rows.slice(offset - statements.length, offset);
      });
      const shared = sharedRecordsOf(rowsByKind);
      const decided = groups.map(({ relayed, events: kindEvents }, index) => relayed.decide(kindEvents, rowsByKind[index], persist, shared));
      tx.write(...groups.flatMap(({ relayed }, index) => relayed.writes(decided[index], now)));
      return decided;
    });
    // The edge produces only the four actions; anything else is a producer's defect that
    // retrying would not cure, so it is logged and skipped.
    for (const event of decisions.flatMap((decision) => decision.unknown)) {
      log.error({ id: event.id, type: event.type, action: event.action }, 'quote event with an unknown action skipped');
    }
    await producer.produce(groups.flatMap(({ relayed, events: kindEvents }, index) => relayed.records(topics, decisions[index].outcomes, hubName, kindEvents)));
    for (const [index, { relayed }] of groups.entries()) for (const outcome of decisions[index].outcomes) messagesDecided.inc({ kind: relayed.type, outcome: outcome.type });
  };
}
