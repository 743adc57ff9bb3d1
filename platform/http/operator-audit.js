// Every change made through an operator API is written to the audit trail (who, when, what,
// before and after) in the same database transaction as the change, so neither can be
// committed without the other. The context supplies what a route changes (`snapshot`) and
// how a row is stored (`record`); this module only runs them around each write route.
import { AsyncLocalStorage } from 'node:async_hooks';
import { isDeepStrictEqual } from 'node:util';
import { operatorSubject } from './operator-auth.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * A database handle that is the request's transaction while an audited route runs and the
 * pool otherwise, so handlers and repositories join the transaction without being changed
 * (a handler's own db.transaction() becomes a savepoint inside it).
 */
function transactionScopedDatabase(db, storage) {
  const current = () => storage.getStore() ?? db;
  return new Proxy(() => {}, {
    apply: (target, thisArg, args) => current()(...args),
    get: (target, property) => {
      const handle = current();
      const value = handle[property];
      return typeof value === 'function' ? value.bind(handle) : value;
    },
  });
}

function statusOf(response) {
  return response?.statusCode ?? response?.output?.statusCode ?? 500;
}

/** The request's JSON body for a snapshot to find its subject by; undefined if it has none. */
export function looseBody(request) {
  const bytes = request.payload;
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) return typeof bytes === 'object' && bytes !== null ? bytes : undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * `snapshot(trx, request)` returns what the route's call may change (JSON-able);
 * `record(trx, entry)` stores an entry. A call is recorded when it succeeded or when its
 * snapshot changed (a funds-out refused for liquidity is still recorded as aborted).
 * Read committed, so a handler's plain reads see what other calls committed, as they did
 * before the transaction wrapped them.
 */
export function createOperatorAudit({ db, api, snapshot, record, clock = () => new Date() }) {
  const storage = new AsyncLocalStorage();

  async function audited(request, h, handler) {
    return db.transaction((trx) => storage.run(trx, async () => {
      const before = await snapshot(trx, request);
      const response = await handler(request, h);
      const status = statusOf(response);
      const after = await snapshot(trx, request);
      if ((status >= 200 && status < 300) || !isDeepStrictEqual(before, after)) {
        await record(trx, {
          occurredAt: clock(), actor: operatorSubject(request), api, method: request.method.toUpperCase(),
          route: request.route.path, target: `${request.path}${request.url.search ?? ''}`, status, before, after,
        });
      }
      return response;
    }), { isolationLevel: 'read committed' });
  }

  function auditWrite(route) {
    if (!WRITE_METHODS.has(route.method.toUpperCase())) return route;
    if (typeof route.handler !== 'function') throw new Error(`${route.method} ${route.path}: an audited route needs a top-level handler`);
    return { ...route, handler: (request, h) => audited(request, h, route.handler) };
  }

  return { db: transactionScopedDatabase(db, storage), auditWrites: (routes) => routes.map(auditWrite) };
}
