// The built-in oracle (Mojaloop's oracle API over MySQL, default port 4003) on the shared HTTP base.
import { createHttpServer } from '../../platform/http/server.js';
import { datastoreHealth } from '../datastore-health.js';
import { requireOperatorTokens } from '../../platform/http/operator-auth.js';
import { oracleRoutes } from './routes.js';

/** An operator API: who owns a party is the switch's routing, so every call needs a token. */
export function createOracleServer({ db, port, host, operatorAuth, logger, metrics }) {
  const server = createHttpServer({ port, host, logger, metrics, health: async () => ({ datastore: await datastoreHealth(db) }) });
  requireOperatorTokens(server, operatorAuth);
  server.route(oracleRoutes({ db }));
  return server;
}
