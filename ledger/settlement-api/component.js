// The settlement API component (port 3007): the HTTP API and the continuous gross settlement
// sweep, startable in a process of its own (main.js) or beside others (scripts/compact-host.js).
import { loadConfig } from '../../platform/config.js';
import { createDatabase } from '../../platform/db.js';
import { createLogger } from '../../platform/logger.js';
import { createMetrics } from '../../platform/metrics.js';
import { startSweeping } from '../../platform/periodic-sweep.js';
import { createGrossSettlementSweep } from './gross-settlement.js';
import { createSettlementServer } from './server.js';

export async function start(env) {
  const config = loadConfig({ SERVICE_NAME: 'settlement-api', ...env }, { defaultPort: 3007, operatorApi: true });
  const logger = createLogger(config);
  const metrics = createMetrics(config);
  const db = createDatabase(config.db, { metrics });

  const { server, counters } = createSettlementServer({ db, config, logger, metrics });
  const grossSweep = startSweeping({
    name: 'gross-settlement',
    sweepOnce: createGrossSettlementSweep({ db, hubName: config.hubName, settings: config.grossSettlement, onSettled: counters.grossSettled }),
    settings: config.grossSettlement,
    logger,
  });
  await server.start();
  logger.info({ port: config.httpPort }, 'settlement API listening');
  const stop = async () => {
    await server.stop({ timeout: 5000 });
    await grossSweep.stop();
    await db.destroy();
  };
  return { name: 'settlement-api', logger, port: server.info.port, stop };
}
