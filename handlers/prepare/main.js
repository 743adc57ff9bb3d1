// Composition root of the prepare handler process. The hot path runs on a mysql2 pool of its
// own (platform/db.js createSqlPool); the knex instance in `deps.db` serves the rest (health,
// dead letters).
import { createPrepareHandler } from './handler.js';
import { consumeEvents, runHandlerProcess } from '../../platform/handler-runtime.js';
import { createSqlPool } from '../../platform/db.js';
import { createTransferDeadLetterFinisher } from '../dead-letters.js';

await runHandlerProcess({
  name: 'prepare',
  defaultPort: 4201,
  start: async (deps) => {
    const pool = createSqlPool(deps.config.db);
    const work = await consumeEvents({
      ...deps, name: 'prepare', subscribeTo: [deps.topics.transferPrepare],
      finishDeadLetter: createTransferDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
      handleEvents: createPrepareHandler({ ...deps, pool, hubName: deps.config.hubName }),
    });
    return { ...work, stop: async () => { await work.stop(); await pool.end(); } };
  },
});
