// Bearer-token authentication of the operator APIs (admin API, settlement API, ALS admin API,
// built-in oracle): a small hapi auth scheme, so every route is covered by default and a route
// can only opt out by saying so (/health and /metrics do). Each API has a read and a write
// scope; a token carries the scopes it was configured for (TOKEN_GRANTS), and a route admits
// its API's read scope for GET and its write scope for anything else, plus any narrow scope
// the route names itself (admitAlso).
import { createHash, timingSafeEqual } from 'node:crypto';
import { FAILURE, failure } from '../domain/failures.js';
import { failureToFspiop } from '../fspiop/errors.js';

/** The operator APIs, as their scopes name them. */
export const OPERATOR_API = Object.freeze({ admin: 'admin', settlement: 'settlement', oracleAdmin: 'oracle-admin', oracle: 'oracle' });

export const OPERATOR_SCOPE = Object.freeze({
  adminRead: 'admin:read',
  adminWrite: 'admin:write',
  settlementRead: 'settlement:read',
  settlementWrite: 'settlement:write',
  oracleAdminRead: 'oracle-admin:read',
  oracleAdminWrite: 'oracle-admin:write',
  oracleRead: 'oracle:read',
  oracleWrite: 'oracle:write',
  // What a DFSP-facing process reads from the admin API: a DFSP's JWS keys and endpoints.
  dfspDirectoryRead: 'dfsp-directory:read',
});

const APIS = Object.values(OPERATOR_API);

/**
 * What each configured token may do, by the name platform/config.js reads it under, and who
 * it is in the audit trail (tokens are per scope, not per person). The operator's tokens
 * reach every API; the service tokens carry only what their holders call.
 */
export const TOKEN_GRANTS = Object.freeze({
  readWrite: { subject: 'operator:read-write', scopes: APIS.flatMap((api) => [`${api}:read`, `${api}:write`]) },
  readOnly: { subject: 'operator:read-only', scopes: APIS.map((api) => `${api}:read`) },
  oracleWrite: { subject: 'service:oracle-write', scopes: [OPERATOR_SCOPE.oracleWrite] },
  dfspDirectoryRead: { subject: 'service:dfsp-directory-read', scopes: [OPERATOR_SCOPE.dfspDirectoryRead] },
});

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
 * every token is compared, so neither does which one matched.
 */
function grantOf(token, known) {
  if (!token) return undefined;
  const presented = digest(token);
  let grant;
  for (const entry of known) if (timingSafeEqual(presented, entry.digest)) grant = entry.grant;
  return grant;
}

function authenticate(request, h, known) {
  const token = presentedToken(request);
  const grant = grantOf(token, known);
  if (!grant) {
    const detail = token ? 'the operator token is not recognised' : 'an operator token is required (Authorization: Bearer)';
    return refusal(h, FAILURE.operatorUnauthenticated, detail, 401);
  }
  return h.authenticated({ credentials: { scope: grant.scopes, subject: grant.subject } });
}

/** The scope a call to `api` needs by its method: reads need the read scope, the rest the write scope. */
function scopeNeeded(api, method) {
  return `${api}:${READ_METHODS.has(method) ? 'read' : 'write'}`;
}

function refuseOutOfScope(api, request, h) {
  const credentials = request.auth.credentials;
  if (!credentials) return h.continue; // a route that opted out of authentication
  const needed = scopeNeeded(api, request.method);
  const admitted = [needed, ...(request.route.settings.plugins.operatorScopes ?? [])];
  if (admitted.some((scope) => credentials.scope.includes(scope))) return h.continue;
  return refusal(h, FAILURE.operatorForbidden, `this operator token does not carry the ${needed} scope`, 403);
}

/**
 * Requires an operator token on every route of `server`, the API `api` (OPERATOR_API), and
 * admits a token on a route only with a scope the route admits (config.operatorAuth from
 * platform/config.js). With authentication off (a lab) nothing is installed, and the audit
 * trail records the caller as unauthenticated.
 */
export function requireOperatorTokens(server, operatorAuth, api) {
  if (!APIS.includes(api)) throw new Error(`no operator API is called ${api}`);
  if (!operatorAuth.required) return;
  const names = Object.keys(TOKEN_GRANTS);
  const missing = names.filter((name) => !operatorAuth.tokens[name]);
  if (missing.length > 0) throw new Error(`an operator API needs every operator token; missing: ${missing.join(', ')}`);
  const known = names.map((name) => ({ grant: TOKEN_GRANTS[name], digest: digest(operatorAuth.tokens[name]) }));
  server.auth.scheme('operator-bearer', () => ({ authenticate: (request, h) => authenticate(request, h, known) }));
  server.auth.strategy('operator', 'operator-bearer');
  server.auth.default('operator');
  server.ext('onPostAuth', (request, h) => refuseOutOfScope(api, request, h));
}

/**
 * `route` with the narrow `scopes` admitted beside its API's own scope: the admin API lets the
 * DFSP directory token read exactly the routes the DFSP-facing processes read.
 */
export function admitAlso(route, scopes) {
  const options = route.options ?? {};
  return { ...route, options: { ...options, plugins: { ...options.plugins, operatorScopes: scopes } } };
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

/**
 * GET /operatorToken: who the presented token is and what it may do, for a client (the
 * operators' portal) that must tell a read-only token from a read-write one before it offers
 * an action. Every token the API admits may ask; with authentication off (a lab) the caller is
 * unauthenticated and may do everything.
 */
export function operatorTokenRoute() {
  return {
    method: 'GET',
    path: '/operatorToken',
    options: { plugins: { operatorScopes: Object.values(TOKEN_GRANTS).flatMap((grant) => grant.scopes) } },
    handler: (request) => ({ subject: operatorSubject(request), scopes: request.auth.credentials?.scope ?? TOKEN_GRANTS.readWrite.scopes }),
  };
}
