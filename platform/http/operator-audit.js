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

const PLUGIN = 'operatorAudit';

/**
 * Marks an answer that refused part of what was asked while succeeding (a 200 whose items
 * carry their own errors, as central-settlement answers an account asked for a step out of
 * order), so that its audit entry carries the refusal's code and words.
 */
export function withRefusalForAudit(response, { errorCode, errorDescription }) {
  response.plugins[PLUGIN] = { errorCode, errorDescription };
  return response;
}

/** The FSPIOP error the call was answered with: the body's errorInformation, or what the route marked. */
function errorOf(response) {
  const information = response?.source?.errorInformation ?? response?.plugins?.[PLUGIN];
  return { errorCode: information?.errorCode ?? null, errorDescription: information?.errorDescription ?? null };
}

/** What was asked, as JSON text: the body as sent when it is JSON, else its text as a JSON string; null without one. */
function askedJson(request) {
  const bytes = request.payload;
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) return null;
  const text = bytes.toString('utf8');
  try {
    JSON.parse(text);
    return text;
  } catch {
    return JSON.stringify(text);
  }
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
 * snapshot changed (a funds-out refused for liquidity is still recorded as aborted), in the
 * change's transaction. With `everyAttempt` (the settlement API) every other write asked of
 * the API is recorded too, after its answer, with what was asked: a refusal with the state it
 * was refused against, a read-only token's write (403), a failure whose change was rolled
 * back (500); only a call without a known token (401) is not, having no one to record, so
 * that whoever can reach the port cannot grow the trail. Read committed, so a handler's plain
 * reads see what other calls committed, as they did before the transaction wrapped them.
 */
export function createOperatorAudit({ db, api, snapshot, record, clock = () => new Date(), everyAttempt = false, logger }) {
  if (everyAttempt && !logger) throw new Error('an audit of every attempt needs a logger for the entries it cannot write');
  const storage = new AsyncLocalStorage();

  const entryOf = (request, response, { before, after }) => ({
    occurredAt: clock(), actor: operatorSubject(request), api, method: request.method.toUpperCase(), route: request.route.path,
    target: `${request.path}${request.url.search ?? ''}`, status: statusOf(response), ...errorOf(response),
    request: everyAttempt ? askedJson(request) : null, before, after,
  });

  async function audited(request, h, handler) {
    const attempt = { before: null, after: null, recorded: false };
    request.plugins[PLUGIN] = attempt;
    let written = false;
    const answer = await db.transaction((trx) => storage.run(trx, async () => {
      attempt.before = await snapshot(trx, request);
      const response = await handler(request, h);
      const status = statusOf(response);
      attempt.after = await snapshot(trx, request);
      if ((status >= 200 && status < 300) || !isDeepStrictEqual(attempt.before, attempt.after)) {
        await record(trx, entryOf(request, response, attempt));
        written = true;
      }
      return response;
    }), { isolationLevel: 'read committed' });
    // Only once the transaction committed is its entry there.
    attempt.recorded = written;
    return answer;
  }

  /** After the answer: an attempt that left no entry in its transaction (refused, failed, or never run). */
  async function recordAttempt(request, h) {
    const attempt = request.plugins[PLUGIN];
    const response = request.response;
    if (attempt?.recorded || statusOf(response) === 401) return h.continue;
    // A failure's transaction was rolled back: what it saw afterwards, if anything, is gone.
    const after = statusOf(response) < 500 ? attempt?.after ?? null : null;
    try {
      await record(db, entryOf(request, response, { before: attempt?.before ?? null, after }));
    } catch (error) {
      logger.error({ err: error, route: request.route.path, method: request.method }, 'could not write the audit entry of a refused call');
    }
    return h.continue;
  }

  function auditWrite(route) {
    if (!WRITE_METHODS.has(route.method.toUpperCase())) return route;
    if (typeof route.handler !== 'function') throw new Error(`${route.method} ${route.path}: an audited route needs a top-level handler`);
    const options = everyAttempt ? { ...route.options, ext: { ...route.options?.ext, onPreResponse: { method: recordAttempt } } } : route.options;
    return { ...route, options, handler: (request, h) => audited(request, h, route.handler) };
  }

  return { db: transactionScopedDatabase(db, storage), auditWrites: (routes) => routes.map(auditWrite) };
}
