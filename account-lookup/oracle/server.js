// The built-in oracle (Mojaloop's oracle API over MySQL, default port 4003) on the shared HTTP base.
import { createOperatorServer } from '../../platform/http/operator-server.js';
import { datastoreHealth } from '../../platform/db.js';
import { OPERATOR_API } from '../../platform/http/operator-auth.js';
import { createOperatorAudit } from '../../platform/http/operator-audit.js';
import { insertAuditEntry } from '../../ledger/ports/operator-audit.js';
import { oracleSnapshot } from '../operator-audit.js';
import { oracleRoutes } from './routes.js';

/** An operator API: who owns a party is the switch's routing, so every call needs a token. */
export function createOracleServer({ db, port, host, operatorAuth, logger, metrics }) {
  const server = createOperatorServer({ port, host, operatorAuth, api: OPERATOR_API.oracle, logger, metrics, health: async () => ({ datastore: await datastoreHealth(db) }) });
  const audit = createOperatorAudit({ db, api: 'oracle', snapshot: oracleSnapshot, record: insertAuditEntry });
  server.route(audit.auditWrites(oracleRoutes({ db: audit.db })));
  return server;
}
