// Composition root of the fulfil handler process. The hot path runs on a mysql2 pool of its
// own (withSqlPool in platform/handler-runtime.js); the knex instance in `deps.db` serves the rest (health,
// dead letters).
import { createFulfilHandler } from './handler.js';
import { consumeEvents, runHandlerProcess, withSqlPool } from '../../platform/handler-runtime.js';
import { createTransferDeadLetterFinisher } from '../dead-letters.js';

await runHandlerProcess({
  name: 'fulfil',
  defaultPort: 4221,
  start: (deps) => withSqlPool(deps.config.db, (pool) => consumeEvents({
    ...deps, name: 'fulfil', subscribeTo: [deps.topics.transferFulfil],
    finishDeadLetter: createTransferDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
    handleEvents: createFulfilHandler({ ...deps, pool, hubName: deps.config.hubName }),
  })),
});
