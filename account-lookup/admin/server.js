// The ALS admin API (oracle registry, default port 4001) on the shared HTTP base.
import { createHttpServer } from '../../platform/http/server.js';
import { datastoreHealth } from '../datastore-health.js';
import { requireOperatorTokens } from '../../platform/http/operator-auth.js';
import { oracleAdminRoutes } from './routes.js';

export function createAlsAdminServer({ db, port, host, operatorAuth, logger, metrics, clock = () => new Date() }) {
  const server = createHttpServer({ port, host, logger, metrics, health: async () => ({ datastore: await datastoreHealth(db) }) });
  requireOperatorTokens(server, operatorAuth);
  server.route(oracleAdminRoutes({ db, clock }));
  return server;
}
