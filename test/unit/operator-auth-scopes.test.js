// The scope check of the operator APIs on a real hapi server (injected requests, no socket):
// each API admits its read scope on GET and its write scope on the rest, a route may admit a
// narrow scope as well, and every token carries exactly the scopes TOKEN_GRANTS gives it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createHttpServer } from '../../platform/http/server.js';
import { createMetrics } from '../../platform/metrics.js';
import { OPERATOR_API, OPERATOR_SCOPE, TOKEN_GRANTS, admitAlso, operatorSubject, requireOperatorTokens } from '../../platform/http/operator-auth.js';

const TOKENS = {
  readWrite: 'read-write-token-0123', readOnly: 'read-only-token-01234', oracleWrite: 'oracle-write-token-0123', dfspDirectoryRead: 'dfsp-directory-token-0123',
};

function serverOf(api) {
  const server = createHttpServer({ port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }), metrics: createMetrics({ serviceName: 'scope-test' }), health: async () => ({}) });
  requireOperatorTokens(server, { required: true, tokens: TOKENS }, api);
  const handler = (request) => ({ who: operatorSubject(request) });
  server.route([
    { method: 'GET', path: '/things', handler },
    { method: 'POST', path: '/things', handler },
    { method: 'DELETE', path: '/things', handler },
    admitAlso({ method: 'GET', path: '/directory', handler }, [OPERATOR_SCOPE.dfspDirectoryRead]),
  ]);
  return server;
}

async function call(server, method, url, token) {
  const response = await server.inject({ method, url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: response.statusCode, body: JSON.parse(response.payload) };
}

test('the operator\'s tokens: read-write does anything on every API, read-only reads every API and writes none', async () => {
  for (const api of Object.values(OPERATOR_API)) {
    const server = serverOf(api);
    for (const method of ['GET', 'POST', 'DELETE']) {
      assert.deepEqual(await call(server, method, '/things', TOKENS.readWrite), { status: 200, body: { who: 'operator:read-write' } }, `${api} ${method}`);
    }
    assert.deepEqual(await call(server, 'GET', '/things', TOKENS.readOnly), { status: 200, body: { who: 'operator:read-only' } }, api);
    const refused = await call(server, 'POST', '/things', TOKENS.readOnly);
    assert.equal(refused.status, 403, api);
    assert.deepEqual(refused.body.errorInformation, { errorCode: '3000', errorDescription: `Generic client error - this operator token does not carry the ${api}:write scope` });
  }
});

test('the oracle write token writes the built-in oracle\'s parties and nothing else, nor reads them', async () => {
  for (const api of Object.values(OPERATOR_API)) {
    const server = serverOf(api);
    const expected = api === OPERATOR_API.oracle ? 200 : 403;
    for (const method of ['POST', 'DELETE']) assert.equal((await call(server, method, '/things', TOKENS.oracleWrite)).status, expected, `${api} ${method}`);
    assert.equal((await call(server, 'GET', '/things', TOKENS.oracleWrite)).status, 403, `${api} GET`);
    assert.equal((await call(server, 'GET', '/directory', TOKENS.oracleWrite)).status, 403, `${api} directory`);
  }
  assert.deepEqual((await call(serverOf(OPERATOR_API.oracle), 'POST', '/things', TOKENS.oracleWrite)).body, { who: 'service:oracle-write' }, 'the audit trail names it');
});

test('the DFSP directory token reads only the routes that admit it, and writes nothing', async () => {
  for (const api of Object.values(OPERATOR_API)) {
    const server = serverOf(api);
    assert.deepEqual(await call(server, 'GET', '/directory', TOKENS.dfspDirectoryRead), { status: 200, body: { who: 'service:dfsp-directory-read' } }, api);
    assert.equal((await call(server, 'GET', '/things', TOKENS.dfspDirectoryRead)).status, 403, `${api}: a route that does not admit it`);
    assert.equal((await call(server, 'POST', '/things', TOKENS.dfspDirectoryRead)).status, 403, `${api} POST`);
  }
  // The operator's own tokens still reach a route that also admits the narrow one.
  const admin = serverOf(OPERATOR_API.admin);
  assert.equal((await call(admin, 'GET', '/directory', TOKENS.readOnly)).status, 200);
  assert.equal((await call(admin, 'GET', '/directory', TOKENS.readWrite)).status, 200);
});

test('strangers are 401 with a challenge, /health needs no token, and a server without every token or an unknown API is a bug', async () => {
  const server = serverOf(OPERATOR_API.settlement);
  for (const token of [undefined, 'not-a-token-anyone-holds']) {
    const response = await server.inject({ method: 'GET', url: '/things', headers: token ? { authorization: `Bearer ${token}` } : {} });
    assert.equal(response.statusCode, 401);
    assert.match(response.headers['www-authenticate'], /^Bearer/);
  }
  assert.equal((await server.inject('/health')).statusCode, 200);
  const bare = () => createHttpServer({ port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }), metrics: createMetrics({ serviceName: 'scope-test' }), health: async () => ({}) });
  assert.throws(() => requireOperatorTokens(bare(), { required: true, tokens: { readWrite: TOKENS.readWrite } }, OPERATOR_API.admin), /missing: readOnly, oracleWrite, dfspDirectoryRead/);
  assert.throws(() => requireOperatorTokens(bare(), { required: true, tokens: TOKENS }, 'ledger'), /no operator API is called ledger/);
});

test('the grants: the operator\'s tokens hold every API\'s scopes, the service tokens one each', () => {
  const apis = Object.values(OPERATOR_API);
  assert.deepEqual(new Set(TOKEN_GRANTS.readWrite.scopes), new Set(apis.flatMap((api) => [`${api}:read`, `${api}:write`])));
  assert.deepEqual(TOKEN_GRANTS.readOnly.scopes.filter((scope) => !scope.endsWith(':read')), []);
  assert.deepEqual(TOKEN_GRANTS.oracleWrite.scopes, ['oracle:write']);
  assert.deepEqual(TOKEN_GRANTS.dfspDirectoryRead.scopes, ['dfsp-directory:read']);
  const granted = new Set(Object.values(TOKEN_GRANTS).flatMap((grant) => grant.scopes));
  assert.deepEqual(Object.values(OPERATOR_SCOPE).filter((scope) => !granted.has(scope)), [], 'every scope is some token\'s');
});
