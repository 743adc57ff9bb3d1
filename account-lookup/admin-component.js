// The account-lookup admin component: the ALS admin API (oracle registry)
// on PORT (default 4001) and the built-in oracle on ORACLE_PORT (default 4003; `off` leaves it
// to account-lookup/oracle-main.js). Both are MySQL-only and light, so they share a process;
// run one replica (a second would want the same ORACLE_PORT), or split the oracle out.
// Startable in a process of its own (admin-main.js) or beside others (scripts/compact-host.js).
import { loadConfig } from '../platform/config.js';
import { readAccountLookupConfig } from './config.js';
import { createDatabase } from '../platform/db.js';
import { createLogger } from '../platform/logger.js';
import { createMetrics } from '../platform/metrics.js';
import { createAlsAdminServer } from './admin/server.js';
import { createOracleServer } from './oracle/server.js';

export async function start(env) {
  const config = loadConfig({ SERVICE_NAME: 'account-lookup-admin', ...env }, { defaultPort: 4001, operatorApi: true });
  const logger = createLogger(config);
  const metrics = createMetrics(config);
  const db = createDatabase(config.db, { metrics });
  const { oraclePort } = readAccountLookupConfig(env);
  const { httpHost: host, operatorAuth } = config;

  const servers = [createAlsAdminServer({ db, port: config.httpPort, host, operatorAuth, logger, metrics })];
  if (oraclePort !== null) servers.push(createOracleServer({ db, port: oraclePort, host, operatorAuth, logger, metrics }));
  // The oracle starts first: the component reports healthy on PORT only once both can answer.
  for (const server of [...servers].reverse()) await server.start();
  logger.info({ port: servers[0].info.port, oraclePort: servers[1]?.info.port ?? null }, 'ALS admin API listening');
  const stop = async () => {
    await Promise.all(servers.map((server) => server.stop({ timeout: 5000 })));
    await db.destroy();
  };
  return { name: 'account-lookup-admin', logger, port: servers[0].info.port, stop };
}
