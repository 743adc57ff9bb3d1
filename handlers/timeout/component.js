// The timeout handler component.
// Startable in a process of its own (main.js) or beside others (scripts/compact-host.js).
import { createTimeoutSweeper } from './handler.js';
import { startSweeping } from '../../platform/periodic-sweep.js';
import { startHandler } from '../../platform/handler-runtime.js';

export function start(env) {
  return startHandler({
    name: 'timeout',
    defaultPort: 4231,
    start: async ({ config, logger, metrics, db, producer, topics }) => {
      const sweepOnce = createTimeoutSweeper({ db, producer, topics, metrics, hubName: config.hubName, settings: config.timeout });
      return startSweeping({ name: 'timeout', sweepOnce, settings: config.timeout, logger });
    },
  }, env);
}
