// Composition root of the admin API process.
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../platform/config.js';
import { createDatabase } from '../../platform/db.js';
import { createLogger } from '../../platform/logger.js';
import { createMetrics } from '../../platform/metrics.js';
import { ensureHubParticipant } from '../repositories/participants.js';
import { createAdminServer } from './server.js';
import { exitOnSignal } from '../../platform/shutdown.js';

const config = loadConfig({ SERVICE_NAME: 'admin-api', ...process.env }, { defaultPort: 3001, operatorApi: true });
const logger = createLogger(config);
const metrics = createMetrics(config);
const db = createDatabase(config.db, { metrics });

await ensureHubParticipant(db, { hubName: config.hubName, now: new Date() });
// The hub's public key is published as it is on disk, so DFSPs verify what the hub signs.
const hubPublicKey = config.jws.hubPublicKeyPath ? readFileSync(config.jws.hubPublicKeyPath, 'utf8') : undefined;
const server = createAdminServer({ db, config, logger, metrics, hubPublicKey });
await server.start();
logger.info({ port: config.httpPort }, 'admin API listening');

exitOnSignal(logger, async () => {
  await server.stop({ timeout: 5000 });
  await db.destroy();
});
