// The admin API component (port 3001), startable in a process of its own (main.js) or beside
// others (scripts/compact-host.js).
import { readFileSync } from 'node:fs';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { createDatabase } from '../../platform/db.js';
import { createLogger } from '../../platform/logger.js';
import { createMetrics } from '../../platform/metrics.js';
import { ensureHubParticipant } from '../repositories/participants.js';
import { createAdminServer } from './server.js';

/**
 * The hub's public key is published as it is on disk, so DFSPs verify what the hub signs. A
 * hub that signs nothing (a lab, JWS_HUB_SIGNING_KEY_PATH empty) has none: an empty path
 * publishes none. A path that is set must be readable, or DFSPs could not verify the hub.
 */
function readHubPublicKey(path) {
  if (!path) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`JWS_HUB_PUBLIC_KEY_PATH ${path} cannot be read (${error.code ?? error.message}); leave it empty when the hub signs nothing`);
  }
}

export async function start(env) {
  const config = loadConfig({ SERVICE_NAME: 'admin-api', ...env }, { defaultPort: 3001, operatorApi: true });
  const logger = createLogger(config);
  const metrics = createMetrics(config);
  const hubPublicKey = readHubPublicKey(config.jws.hubPublicKeyPath);
  const db = createDatabase(config.db, { metrics });

  await ensureHubParticipant(db, { hubName: config.hubName, now: new Date() });
  const server = createAdminServer({ db, config, logger, metrics, hubPublicKey });
  await server.start();
  logger.info({ port: config.httpPort, hubKeyPublished: Boolean(hubPublicKey) }, 'admin API listening');
  const stop = async () => {
    await server.stop({ timeout: 5000 });
    await db.destroy();
  };
  return { name: 'admin-api', logger, port: server.info.port, stop };
}
