// The fulfil handler component. The hot path runs on a mysql2 pool of its
// own (withSqlPool in platform/handler-runtime.js); the knex instance in `deps.db` serves the rest (health,
// dead letters).
// Startable in a process of its own (main.js) or beside others (scripts/compact-host.js).
import { createFulfilHandler } from './handler.js';
import { consumeEvents, startHandler, withSqlPool } from '../../platform/handler-runtime.js';
import { createTransferDeadLetterFinisher } from '../dead-letters.js';

export function start(env) {
  return startHandler({
    name: 'fulfil',
    defaultPort: 4221,
    start: (deps) => withSqlPool(deps.config.db, (pool) => consumeEvents({
      ...deps, name: 'fulfil', subscribeTo: [deps.topics.transferFulfil],
      finishDeadLetter: createTransferDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
      handleEvents: createFulfilHandler({ ...deps, pool, hubName: deps.config.hubName }),
    })),
  }, env);
}
