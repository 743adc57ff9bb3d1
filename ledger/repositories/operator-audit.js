// The operator audit trail (operator_audit): written by every operator API in the change's
// transaction, read by the admin API's GET /audit.
import { parse as parseLossless } from 'lossless-json';

/** JSON text of a snapshot; amounts are strings already, a BigInt is written as its digits. */
function toJson(value) {
  return value === undefined || value === null ? null : JSON.stringify(value, (key, item) => (typeof item === 'bigint' ? item.toString() : item));
}

/** `request` is JSON text already (the body as it was sent), or null. */
export async function insertAuditEntry(trx, {
  occurredAt, actor, api, method, route, target, status, errorCode = null, errorDescription = null, request = null, before, after,
}) {
  await trx('operator_audit').insert({
    occurred_at: occurredAt, actor, api, method, route, target: target.slice(0, 1024), status,
    error_code: errorCode, error_description: errorDescription?.slice(0, 1024) ?? null, request, before: toJson(before), after: toJson(after),
  });
}

function entryView(row) {
  return {
    id: Number(row.id), occurredAt: new Date(row.occurred_at).toISOString(), actor: row.actor, api: row.api, method: row.method,
    route: row.route, target: row.target, status: row.status, errorCode: row.error_code, errorDescription: row.error_description,
    // What was asked is answered as it was sent: its numbers keep their digits (lossless-json).
    request: row.request === null ? null : parseLossless(row.request),
    before: row.before === null ? null : JSON.parse(row.before), after: row.after === null ? null : JSON.parse(row.after),
  };
}

/**
 * Entries newest first, filtered by any of `api`, `actor`, `method`, `route`, a `target`
 * prefix and an `occurred_at` range; `beforeId` pages back from an earlier answer.
 */
export async function listAuditEntries(db, { api, actor, method, route, targetPrefix, from, to, beforeId, limit }) {
  const query = db('operator_audit').orderBy('id', 'desc').limit(limit);
  for (const [column, value] of Object.entries({ api, actor, method, route })) if (value !== undefined) query.where(column, value);
  if (targetPrefix !== undefined) query.where('target', 'like', `${targetPrefix.replace(/[\\%_]/g, '\\$&')}%`);
  if (from !== undefined) query.where('occurred_at', '>=', from);
  if (to !== undefined) query.where('occurred_at', '<', to);
  if (beforeId !== undefined) query.where('id', '<', beforeId);
  return (await query).map(entryView);
}
