// Bearer-token authentication of the operator APIs (admin API, ALS admin API, built-in
// oracle): a small hapi auth scheme, so every route is covered by default and a route can
// only opt out by saying so (/health and /metrics do). Two scopes: read-only may GET,
// read-write may do anything.
import { createHash, timingSafeEqual } from 'node:crypto';
import { FAILURE, failure } from '../domain/failures.js';
import { failureToFspiop } from '../fspiop/errors.js';

export const OPERATOR_SCOPE = Object.freeze({ readWrite: 'read-write', readOnly: 'read-only' });

const READ_METHODS = new Set(['get', 'head', 'options']);
const CHALLENGE = 'Bearer realm="fspiop-switch operator API"';

function digest(text) {
  return createHash('sha256').update(text, 'utf8').digest();
}

function presentedToken(request) {
  const match = /^Bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

function refusal(h, failureCode, detail, status) {
  const { httpStatus, body } = failureToFspiop(failure(failureCode, detail));
  const response = h.response(body).code(httpStatus);
  if (status === 401) response.header('www-authenticate', CHALLENGE);
  return response.takeover();
}

/**
 * Compares the presented token with every configured one. Both sides are hashed first, so
 * timingSafeEqual sees equal lengths and the time taken says nothing about the token, and
 * every token is compared, so neither does which scope matched.
 */
function scopeOf(token, known) {
  if (!token) return undefined;
  const presented = digest(token);
  let scope;
  for (const entry of known) if (timingSafeEqual(presented, entry.digest)) scope = entry.scope;
  return scope;
}

function authenticate(request, h, known) {
  const token = presentedToken(request);
  const scope = scopeOf(token, known);
  if (!scope) {
    const detail = token ? 'the operator token is not recognised' : 'an operator token is required (Authorization: Bearer)';
    return refusal(h, FAILURE.operatorUnauthenticated, detail, 401);
  }
  // The scope is also the audit trail's "who": tokens are per scope, not per person.
  return h.authenticated({ credentials: { scope, subject: `operator:${scope}` } });
}

function refuseReadOnlyWrite(request, h) {
  const credentials = request.auth.credentials;
  if (credentials?.scope !== OPERATOR_SCOPE.readOnly || READ_METHODS.has(request.method)) return h.continue;
  return refusal(h, FAILURE.operatorForbidden, 'a read-only operator token may not change anything', 403);
}

/**
 * Requires an operator token on every route of `server` (config.operatorAuth from
 * platform/config.js). With authentication off (a lab) nothing is installed, and the
 * audit trail records the caller as unauthenticated.
 */
export function requireOperatorTokens(server, operatorAuth) {
  if (!operatorAuth.required) return;
  const known = Object.entries(operatorAuth.tokens).map(([scope, token]) => ({ scope: OPERATOR_SCOPE[scope], digest: digest(token) }));
  if (known.length !== 2) throw new Error('an operator API needs both the read-write and the read-only token');
  server.auth.scheme('operator-bearer', () => ({ authenticate: (request, h) => authenticate(request, h, known) }));
  server.auth.strategy('operator', 'operator-bearer');
  server.auth.default('operator');
  server.ext('onPostAuth', refuseReadOnlyWrite);
}

/**
 * The headers that authenticate a call to an operator API. Without a token (a lab that
 * turned operator authentication off) there is nothing to send.
 */
export function operatorHeaders(token) {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** Who made an operator call, for the audit trail. */
export function operatorSubject(request) {
  return request.auth.credentials?.subject ?? 'unauthenticated (OPERATOR_AUTH=off)';
}
