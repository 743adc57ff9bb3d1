// Composition root of the timeout handler process.
import { createTimeoutSweeper } from './handler.js';
import { startSweeping } from '../../platform/periodic-sweep.js';
import { runHandlerProcess } from '../../platform/handler-runtime.js';

await runHandlerProcess({
  name: 'timeout',
  defaultPort: 4231,
  start: async ({ config, logger, metrics, db, producer, topics }) => {
    const sweepOnce = createTimeoutSweeper({ db, producer, topics, metrics, hubName: config.hubName, settings: config.timeout });
    return startSweeping({ name: 'timeout', sweepOnce, settings: config.timeout, logger });
  },
});
