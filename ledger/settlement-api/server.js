// The settlement API (central-settlement compatible, port 3007, under /v2): windows and
// settlements, on the shared HTTP base with the operator tokens and audit trail of the
// admin API.
import { createHttpServer } from '../../platform/http/server.js';
import { datastoreHealth } from '../../platform/db.js';
import { OPERATOR_API, requireOperatorTokens } from '../../platform/http/operator-auth.js';
import { createOperatorAudit } from '../../platform/http/operator-audit.js';
import { insertAuditEntry } from '../repositories/operator-audit.js';
import { registerSettlementMetrics } from './metrics.js';
import { settlementRoutes } from './settlement-routes.js';
import { windowRoutes } from './window-routes.js';

export function createSettlementServer({ db, config, logger, metrics, clock = () => new Date() }) {
  const counters = registerSettlementMetrics(metrics, { db, logger, clock });
  const health = async () => ({ datastore: await datastoreHealth(db) });
  const server = createHttpServer({ port: config.httpPort, host: config.httpHost, logger, metrics, health });
  requireOperatorTokens(server, config.operatorAuth, OPERATOR_API.settlement);
  const audit = createOperatorAudit({ db, api: 'settlement', snapshot: async () => null, record: insertAuditEntry, clock });
  const deps = { db: audit.db, config, clock };
  server.route(audit.auditWrites([...windowRoutes({ ...deps, onWindowClosed: counters.windowClosed }), ...settlementRoutes(deps)]));
  return { server, counters };
}
