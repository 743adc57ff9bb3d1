// Composition root of the quoting handler process. One consumer takes both quote topics:
// they are keyed by quoteId with equal partitions, so every event of a quote reaches one
// member, in order (see consumeEvents). The hot path runs on a mysql2 pool of its own
// (withSqlPool); the knex instance in `deps.db` serves health and dead letters.
import { consumeEvents, runHandlerProcess, withSqlPool } from '../../platform/handler-runtime.js';
import { createQuotingHandler } from './handler.js';
import { createQuoteDeadLetterFinisher } from './dead-letters.js';
import { readQuotingConfig } from '../config.js';

// The quoting context's own settings, read at start-up as loadConfig's are: a bad value stops
// the process before it connects to anything.
const { persist } = readQuotingConfig(process.env);

await runHandlerProcess({
  name: 'quoting-handler',
  defaultPort: 4241,
  start: (deps) => withSqlPool(deps.config.db, (pool) => consumeEvents({
    ...deps, name: 'quoting-handler', subscribeTo: [deps.topics.quotesPost, deps.topics.quotesPut],
    finishDeadLetter: createQuoteDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
    handleEvents: createQuotingHandler({ ...deps, pool, hubName: deps.config.hubName, persist }),
  })),
});
