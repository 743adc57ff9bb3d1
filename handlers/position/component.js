// The position handler component. The hot path runs on a mysql2 pool of its
// own (withSqlPool in platform/handler-runtime.js); the knex instance in `deps.db` serves the rest (health,
// dead letters).
// Startable in a process of its own (main.js) or beside others (scripts/compact-host.js).
import { createPositionHandler } from './handler.js';
import { consumeEvents, startHandler, withSqlPool } from '../../platform/handler-runtime.js';
import { createTransferDeadLetterFinisher } from '../dead-letters.js';

export function start(env) {
  return startHandler({
    name: 'position',
    defaultPort: 4211,
    start: (deps) => withSqlPool(deps.config.db, (pool) => consumeEvents({
      ...deps, name: 'position', subscribeTo: [deps.topics.transferPositionBatch],
      finishDeadLetter: createTransferDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
      handleEvents: createPositionHandler({ ...deps, pool, hubName: deps.config.hubName }),
    })),
  }, env);
}
