// What the ALS admin API and the built-in oracle's write routes change, for the operator
// audit trail (written by platform/http/operator-audit.js into the shared operator_audit
// table, which the admin API serves as GET /audit).
import { looseBody } from '../platform/http/operator-audit.js';
import { findOracle, listOracles } from './admin/repository.js';
import { findParty } from './oracle/repository.js';

/** POST /oracles: the oracles of the id type; PUT and DELETE /oracles/{ID}: that oracle. */
export async function alsAdminSnapshot(db, request) {
  if (request.params.ID !== undefined) {
    return /^\d{1,9}$/.test(request.params.ID) ? { oracle: await findOracle(db, Number(request.params.ID)) } : { oracle: null };
  }
  const type = looseBody(request)?.oracleIdType;
  return { oracles: typeof type === 'string' ? await listOracles(db, { type }) : [] };
}

/**
 * A party route: who serves the party. The batch route records the call without a
 * snapshot, as its list can hold thousands of parties.
 */
export async function oracleSnapshot(db, request) {
  const { Type: type, ID: id, SubId } = request.params;
  if (type === undefined || id === undefined) return null;
  const subId = SubId ?? request.query.partySubIdOrType ?? looseBody(request)?.partySubIdOrType;
  return { party: await findParty(db, { type, id, subId: typeof subId === 'string' ? subId : undefined }) };
}
