// The ALS admin API (oracle registry, default port 4001) on the shared HTTP base.
import { createOperatorServer } from '../../platform/http/operator-server.js';
import { datastoreHealth } from '../../platform/db.js';
import { OPERATOR_API } from '../../platform/http/operator-auth.js';
import { createOperatorAudit } from '../../platform/http/operator-audit.js';
import { insertAuditEntry } from '../../ledger/ports/operator-audit.js';
import { alsAdminSnapshot } from '../operator-audit.js';
import { oracleAdminRoutes } from './routes.js';

export function createAlsAdminServer({ db, port, host, operatorAuth, logger, metrics, clock = () => new Date() }) {
  const server = createOperatorServer({ port, host, operatorAuth, api: OPERATOR_API.oracleAdmin, logger, metrics, health: async () => ({ datastore: await datastoreHealth(db) }) });
  const audit = createOperatorAudit({ db, api: 'als-admin', snapshot: alsAdminSnapshot, record: insertAuditEntry, clock });
  server.route(audit.auditWrites(oracleAdminRoutes({ db: audit.db, clock })));
  return server;
}
