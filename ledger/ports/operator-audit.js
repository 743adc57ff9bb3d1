// The operator audit trail (operator_audit), as the other contexts' operator APIs write it:
// every change through them is recorded in the change's own transaction, and the ledger's
// admin API serves the trail as GET /audit. See ledger/ports/participant-directory.js for what
// a port is.
export { insertAuditEntry } from '../repositories/operator-audit.js';
