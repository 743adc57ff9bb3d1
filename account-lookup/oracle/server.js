// The built-in oracle (Mojaloop's oracle API over MySQL, default port 4003) on the shared HTTP base.
import { createHttpServer } from '../../platform/http/server.js';
import { datastoreHealth } from '../datastore-health.js';
import { oracleRoutes } from './routes.js';

export function createOracleServer({ db, port, logger, metrics }) {
  const server = createHttpServer({ port, logger, metrics, health: async () => ({ datastore: await datastoreHealth(db) }) });
  server.route(oracleRoutes({ db }));
  return server;
}
