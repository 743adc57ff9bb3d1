// The admin API (central-ledger compatible, port 3001): every route, on the shared HTTP base.
import { createHttpServer } from '../../platform/http/server.js';
import { participantRoutes } from './participant-routes.js';
import { onboardingRoutes } from './onboarding-routes.js';
import { fundsRoutes } from './funds-routes.js';
import { registerPositionMetrics } from './position-metrics.js';
import { requireOperatorTokens } from '../../platform/http/operator-auth.js';

export function createAdminServer({ db, config, logger, metrics, clock = () => new Date() }) {
  registerPositionMetrics(metrics, { db, hubName: config.hubName, logger });
  const health = async () => {
    try {
      await db.raw('SELECT 1');
      return { datastore: 'OK' };
    } catch {
      return { datastore: 'DOWN' };
    }
  };
  const server = createHttpServer({ port: config.httpPort, host: config.httpHost, logger, metrics, health });
  requireOperatorTokens(server, config.operatorAuth);
  const deps = { db, config, clock };
  server.route([...participantRoutes(deps), ...onboardingRoutes(deps), ...fundsRoutes(deps)]);
  return server;
}
