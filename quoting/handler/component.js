// The quoting handler component. One consumer takes both quote topics: they are keyed by
// quoteId with equal partitions, so every event of a quote reaches one member, in order (see
// consumeEvents). The hot path runs on a mysql2 pool of its own (withSqlPool); the knex
// instance in `deps.db` serves health and dead letters. Startable in a process of its own
// (main.js) or beside others (scripts/compact-host.js).
import { consumeEvents, startHandler, withSqlPool } from '../../platform/handler-runtime.js';
import { createQuotingHandler } from './handler.js';
import { createQuoteDeadLetterFinisher } from './dead-letters.js';
import { readQuotingConfig } from '../config.js';

export function start(env) {
  // The quoting context's own settings, read at start-up as loadConfig's are: a bad value
  // stops the component before it connects to anything.
  const { persist } = readQuotingConfig(env);
  return startHandler({
    name: 'quoting-handler',
    defaultPort: 4241,
    start: (deps) => withSqlPool(deps.config.db, (pool) => consumeEvents({
      ...deps, name: 'quoting-handler', subscribeTo: [deps.topics.quotesPost, deps.topics.quotesPut],
      finishDeadLetter: createQuoteDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
      handleEvents: createQuotingHandler({ ...deps, pool, hubName: deps.config.hubName, persist }),
    })),
  }, env);
}
