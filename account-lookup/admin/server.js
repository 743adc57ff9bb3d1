// The ALS admin API (oracle registry, default port 4001) on the shared HTTP base.
import { createHttpServer } from '../../platform/http/server.js';
import { datastoreHealth } from '../datastore-health.js';
import { oracleAdminRoutes } from './routes.js';

export function createAlsAdminServer({ db, port, logger, metrics, clock = () => new Date() }) {
  const server = createHttpServer({ port, logger, metrics, health: async () => ({ datastore: await datastoreHealth(db) }) });
  server.route(oracleAdminRoutes({ db, clock }));
  return server;
}
