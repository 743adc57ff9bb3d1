// The portal component (port 3010): the operators' web application, startable in a process of
// its own (main.js) or beside others (scripts/compact-host.js).
import { createLogger } from '../platform/logger.js';
import { createMetrics } from '../platform/metrics.js';
import { loadPortalConfig } from './config.js';
import { loadAssets } from './server/assets.js';
import { createPortalServer } from './server/server.js';

export async function start(env) {
  const config = loadPortalConfig(env);
  const logger = createLogger(config);
  const metrics = createMetrics(config);
  const assets = loadAssets(config.assetsDir);
  const server = createPortalServer({ config, assets, logger, metrics });
  await server.start();
  logger.info({ port: server.info.port, upstreams: config.upstreams }, 'portal listening');
  return { name: 'portal', logger, port: server.info.port, stop: () => server.stop({ timeout: 5000 }) };
}
