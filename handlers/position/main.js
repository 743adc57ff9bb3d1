// Composition root of the position handler process. The hot path runs on a mysql2 pool of its
// own (withSqlPool in platform/handler-runtime.js); the knex instance in `deps.db` serves the rest (health,
// dead letters).
import { createPositionHandler } from './handler.js';
import { consumeEvents, runHandlerProcess, withSqlPool } from '../../platform/handler-runtime.js';
import { createTransferDeadLetterFinisher } from '../dead-letters.js';

await runHandlerProcess({
  name: 'position',
  defaultPort: 4211,
  start: (deps) => withSqlPool(deps.config.db, (pool) => consumeEvents({
    ...deps, name: 'position', subscribeTo: [deps.topics.transferPositionBatch],
    finishDeadLetter: createTransferDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
    handleEvents: createPositionHandler({ ...deps, pool, hubName: deps.config.hubName }),
  })),
});
