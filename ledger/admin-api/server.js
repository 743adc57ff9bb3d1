// The admin API (central-ledger compatible, port 3001): every route, on the shared HTTP base.
import { createHttpServer } from '../../platform/http/server.js';
import { datastoreHealth } from '../../platform/db.js';
import { participantRoutes } from './participant-routes.js';
import { onboardingRoutes } from './onboarding-routes.js';
import { fundsRoutes } from './funds-routes.js';
import { jwsKeyRoutes } from './jws-key-routes.js';
import { registerPositionMetrics } from './position-metrics.js';
import { OPERATOR_API, requireOperatorTokens } from '../../platform/http/operator-auth.js';
import { createOperatorAudit } from '../../platform/http/operator-audit.js';
import { insertAuditEntry } from '../repositories/operator-audit.js';
import { adminSnapshot, auditRoutes } from './audit.js';

export function createAdminServer({ db, config, logger, metrics, clock = () => new Date(), hubPublicKey }) {
  registerPositionMetrics(metrics, { db, hubName: config.hubName, logger });
  const health = async () => ({ datastore: await datastoreHealth(db) });
  const server = createHttpServer({ port: config.httpPort, host: config.httpHost, logger, metrics, health });
  requireOperatorTokens(server, config.operatorAuth, OPERATOR_API.admin);
  // Every write route runs in a transaction that also writes its audit row; routes reach the
  // database through audit.db, which is that transaction while they run.
  const audit = createOperatorAudit({ db, api: 'admin', snapshot: adminSnapshot, record: insertAuditEntry, clock });
  const route = (routes) => server.route(audit.auditWrites(routes));
  const deps = { db: audit.db, config, clock };
  route(auditRoutes({ db }));
  route([...participantRoutes(deps), ...onboardingRoutes(deps), ...fundsRoutes(deps), ...jwsKeyRoutes({ ...deps, hubPublicKey })]);
  return server;
}
