// Composition root of the bulk handler process: the results of bulks' individual transfers
// (topic-bulk-processing) on a mysql2 pool of its own (withSqlPool in platform/handler-runtime.js),
// in a consumer group of its own, with a finisher for its dead letters; the knex instance in
// `deps.db` serves its health.
import { createBulkHandler } from './handler.js';
import { createBulkDeadLetterFinisher } from './dead-letters.js';
import { consumeEvents, runHandlerProcess, withSqlPool } from '../../platform/handler-runtime.js';

await runHandlerProcess({
  name: 'bulk',
  defaultPort: 4251,
  start: (deps) => withSqlPool(deps.config.db, (pool) => consumeEvents({
    ...deps, name: 'bulk', subscribeTo: [deps.topics.bulkProcessing],
    finishDeadLetter: createBulkDeadLetterFinisher({ ...deps, pool, hubName: deps.config.hubName }),
    handleEvents: createBulkHandler({ ...deps, pool, hubName: deps.config.hubName }),
  })),
});
