// The settlement API (central-settlement compatible, port 3007, under /v2): windows and
// settlements, on the shared HTTP base with the operator tokens and audit trail of the
// admin API; this API also records the changes it refuses (audit.js).
import { createOperatorServer } from '../../platform/http/operator-server.js';
import { datastoreHealth } from '../../platform/db.js';
import { OPERATOR_API } from '../../platform/http/operator-auth.js';
import { createOperatorAudit } from '../../platform/http/operator-audit.js';
import { insertAuditEntry } from '../repositories/operator-audit.js';
import { settlementSnapshot } from './audit.js';
import { registerSettlementMetrics } from './metrics.js';
import { settlementRoutes } from './settlement-routes.js';
import { windowRoutes } from './window-routes.js';

export function createSettlementServer({ db, config, logger, metrics, clock = () => new Date() }) {
  const counters = registerSettlementMetrics(metrics, { db, logger, clock });
  const health = async () => ({ datastore: await datastoreHealth(db) });
  // Clients of central-settlement find /health under the API's /v2 base as well.
  const server = createOperatorServer({
    port: config.httpPort, host: config.httpHost, operatorAuth: config.operatorAuth, api: OPERATOR_API.settlement, logger, metrics, health, healthPaths: ['/health', '/v2/health'],
  });
  // Every attempt to change something is recorded, refused or not: settlement moves money.
  const audit = createOperatorAudit({ db, api: 'settlement', snapshot: settlementSnapshot, record: insertAuditEntry, clock, everyAttempt: true, logger });
  const deps = { db: audit.db, config, clock };
  server.route(audit.auditWrites([...windowRoutes({ ...deps, onWindowClosed: counters.windowClosed }), ...settlementRoutes(deps)]));
  return { server, counters };
}
