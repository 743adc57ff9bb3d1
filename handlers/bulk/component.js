// The bulk handler component: the results of bulks' individual transfers
// (topic-bulk-processing) on a mysql2 pool of its own (withSqlPool in platform/handler-runtime.js),
// in a consumer group of its own, with a finisher for its dead letters; the knex instance in
// `deps.db` serves its health.
// Startable in a process of its own (main.js) or beside others (scripts/compact-host.js).
import { createBulkHandler } from './handler.js';
import { createBulkDeadLetterFinisher } from './dead-letters.js';
import { consumeEvents, startHandler, withSqlPool } from '../../platform/handler-runtime.js';

export function start(env) {
  return startHandler({
    name: 'bulk',
    defaultPort: 4251,
    start: (deps) => withSqlPool(deps.config.db, (pool) => consumeEvents({
      ...deps, name: 'bulk', subscribeTo: [deps.topics.bulkProcessing],
      finishDeadLetter: createBulkDeadLetterFinisher({ ...deps, pool, hubName: deps.config.hubName }),
      handleEvents: createBulkHandler({ ...deps, pool, hubName: deps.config.hubName }),
    })),
  }, env);
}
