// Composition root of a stand-alone built-in oracle (Mojaloop's oracle API over MySQL) on
// PORT (default 4003): for an oracle scaled on its own, or a second oracle with another
// database that the ALS admin API registers like any external one.
import { loadConfig } from '../platform/config.js';
import { createDatabase } from '../platform/db.js';
import { createLogger } from '../platform/logger.js';
import { createMetrics } from '../platform/metrics.js';
import { createOracleServer } from './oracle/server.js';
import { exitOnSignal } from '../platform/shutdown.js';

const config = loadConfig({ SERVICE_NAME: 'oracle', ...process.env }, { defaultPort: 4003, operatorApi: true });
const logger = createLogger(config);
const metrics = createMetrics(config);
const db = createDatabase(config.db, { metrics });

const server = createOracleServer({ db, port: config.httpPort, host: config.httpHost, operatorAuth: config.operatorAuth, logger, metrics });
await server.start();
logger.info({ port: server.info.port }, 'oracle listening');

exitOnSignal(logger, async () => {
  await server.stop({ timeout: 5000 });
  await db.destroy();
});
