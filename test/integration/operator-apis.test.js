// The operator APIs (admin API, settlement API, ALS admin API, built-in oracle) against the
// real servers: a bearer token on every call but /health and /metrics (401 without or with a
// wrong one, 403 for a known token whose scopes do not admit the route: the read-only token's
// writes, the service tokens outside their one need), loopback-only binding by default, and a
// process that serves one, or calls one, refusing to start without its tokens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { adminHeaders, onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { operatorTokenEnv, testConfig } from '../support/environment.js';
import { OPERATOR_TOKEN_VARIABLES } from '../../platform/config.js';
import { freePort } from '../../scripts/lib/ports.js';

const ROOT = new URL('../..', import.meta.url).pathname;
let sw;
let apis;

before(async () => {
  sw = await startSwitch({ components: ['account-lookup-admin', 'settlement-api'] });
  await setUpHub(sw.admin.request);
  const [openWindow] = (await call(sw.urlOf('settlement-api'), 'GET', '/v2/settlementWindows?state=OPEN', { headers: adminHeaders('readOnly') })).body;
  apis = {
    admin: { url: sw.admin.baseUrl, read: '/participants', write: ['POST', '/participants', { name: 'authfsp', currency: 'USD' }] },
    // The only write the settlement API can take with nothing paid yet is refused for what it
    // is, an empty window (400, 3100): the token was admitted.
    settlement: {
      url: sw.urlOf('settlement-api'), read: '/v2/settlementWindows?state=OPEN', written: [400],
      write: ['POST', `/v2/settlementWindows/${openWindow.settlementWindowId}`, { state: 'CLOSED', reason: 'auth test' }],
    },
    alsAdmin: {
      url: sw.urlOf('account-lookup-admin'), read: '/oracles',
      write: ['POST', '/oracles', { oracleIdType: 'BUSINESS', endpoint: { value: 'http://127.0.0.1:9/oracle', endpointType: 'URL' } }],
    },
    oracle: {
      url: sw.oracleUrl, read: '/participants/MSISDN/27719990001',
      write: ['POST', '/participants/MSISDN/27719990001', { fspId: 'authfsp', currency: 'USD' }],
    },
  };
});

after(async () => { await sw?.stop(); });

async function call(url, method, path, { headers = {}, body } = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

function assertRefused(result, status, what) {
  assert.equal(result.status, status, `${what}: ${result.text}`);
  assert.equal(result.body.errorInformation.errorCode, '3000', what);
  assert.match(result.body.errorInformation.errorDescription, /^Generic client error - .*token/, what);
}

test('every operator API: 401 without a token and with a wrong one, on reads and writes alike', async () => {
  for (const [name, api] of Object.entries(apis)) {
    const [method, path, body] = api.write;
    const missing = await call(api.url, 'GET', api.read);
    assertRefused(missing, 401, `${name} GET without a token`);
    assert.match(missing.headers.get('www-authenticate'), /^Bearer/, `${name} challenges for a bearer token`);
    assertRefused(await call(api.url, method, path, { body }), 401, `${name} ${method} without a token`);
    const wrong = { authorization: 'Bearer not-the-operator-token-at-all' };
    assertRefused(await call(api.url, 'GET', api.read, { headers: wrong }), 401, `${name} GET with a wrong token`);
    assertRefused(await call(api.url, method, path, { headers: wrong, body }), 401, `${name} ${method} with a wrong token`);
    assertRefused(await call(api.url, 'GET', api.read, { headers: { authorization: 'Basic b3BlcmF0b3I6cw==' } }), 401, `${name} with another scheme`);
  }
});

test('every operator API: a read-only token reads but may not write (403); the read-write token does both', async () => {
  for (const [name, api] of Object.entries(apis)) {
    const [method, path, body] = api.write;
    const read = await call(api.url, 'GET', api.read, { headers: adminHeaders('readOnly') });
    assert.ok([200, 404].includes(read.status) && !read.body?.errorInformation?.errorCode?.startsWith('30'), `${name} read with the read-only token: ${read.text}`);
    assertRefused(await call(api.url, method, path, { headers: adminHeaders('readOnly'), body }), 403, `${name} ${method} with the read-only token`);
    const written = await call(api.url, method, path, { headers: adminHeaders('readWrite'), body });
    assert.ok((api.written ?? [200, 201]).includes(written.status), `${name} ${method} with the read-write token: ${written.status} ${written.text}`);
    assert.equal((await call(api.url, 'GET', api.read, { headers: adminHeaders('readWrite') })).status, 200, `${name} read with the read-write token`);
  }
});

test('/health and /metrics stay open on every operator API', async () => {
  for (const [name, api] of Object.entries(apis)) {
    assert.equal((await call(api.url, 'GET', '/health')).status, 200, `${name} /health`);
    assert.equal((await fetch(`${api.url}/metrics`)).status, 200, `${name} /metrics`);
  }
});

/** The machine's first non-loopback IPv4 address, if it has one. */
function nonLoopbackAddress() {
  return Object.values(os.networkInterfaces()).flat().find((entry) => entry.family === 'IPv4' && !entry.internal)?.address;
}

function connects(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

test('operator APIs bind to 127.0.0.1 by default: the machine\'s other address is refused', async (t) => {
  const address = nonLoopbackAddress();
  if (!address) {
    t.skip('this machine has no non-loopback IPv4 address to try');
    return;
  }
  for (const [name, api] of Object.entries(apis)) {
    const { port } = new URL(api.url);
    assert.equal(await connects('127.0.0.1', port), true, `${name} answers on loopback`);
    assert.equal(await connects(address, port), false, `${name} must not be reachable on ${address}`);
  }
});

/** Runs `entry` with `env` and resolves to its exit code and stderr; for a process that stops at start-up. */
async function startupFailure(entry, env) {
  const child = spawn(process.execPath, [entry], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk) => { output += chunk; });
  const [code] = await once(child, 'exit');
  return { code, output };
}

test('a process serving an operator API stops at start-up without any of its tokens, unless OPERATOR_AUTH=off', async () => {
  const config = testConfig();
  const env = { PATH: process.env.PATH, DB_PASSWORD: config.db.password, DB_PORT: String(config.db.port), PORT: String(await freePort()), ORACLE_PORT: 'off' };
  const tokens = {
    OPERATOR_TOKEN_READ_WRITE: 'a-read-write-token-for-this-test', OPERATOR_TOKEN_READ_ONLY: 'a-read-only-token-for-this-test',
    OPERATOR_TOKEN_ORACLE_WRITE: 'an-oracle-token-for-this-test', OPERATOR_TOKEN_DFSP_DIRECTORY_READ: 'a-directory-token-for-this-test',
  };
  for (const missing of Object.values(OPERATOR_TOKEN_VARIABLES)) {
    const { code, output } = await startupFailure('account-lookup/admin-main.js', { ...env, ...tokens, [missing]: '' });
    assert.notEqual(code, 0, `it started without ${missing}`);
    assert.match(output, new RegExp(`${missing} is required`));
  }
  const lab = spawn(process.execPath, ['account-lookup/admin-main.js'], { cwd: ROOT, env: { ...env, OPERATOR_AUTH: 'off', DB_NAME: sw.admin.databaseName }, stdio: 'ignore' });
  try {
    const url = `http://127.0.0.1:${env.PORT}`;
    let answer;
    for (let attempt = 0; attempt < 100 && !answer; attempt += 1) {
      answer = await call(url, 'GET', '/oracles').catch(() => undefined);
      if (!answer) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(answer?.status, 200, 'with OPERATOR_AUTH=off (a lab) no token is needed');
  } finally {
    lab.kill('SIGTERM');
    await once(lab, 'exit');
  }
});

test('the DFSP-facing processes start only with their narrow tokens: the operator\'s do not stand in for them', async () => {
  const config = testConfig();
  const operatorOnly = {
    PATH: process.env.PATH, DB_PASSWORD: config.db.password, DB_PORT: String(config.db.port), JWS_VERIFICATION: 'off',
    ...operatorTokenEnv(['readWrite', 'readOnly']),
  };
  const needs = {
    'api-adapter/main.js': 'OPERATOR_TOKEN_DFSP_DIRECTORY_READ', 'quoting/main.js': 'OPERATOR_TOKEN_DFSP_DIRECTORY_READ',
    'handlers/notification/main.js': 'OPERATOR_TOKEN_DFSP_DIRECTORY_READ', 'account-lookup/main.js': 'OPERATOR_TOKEN_ORACLE_WRITE',
  };
  for (const [entry, missing] of Object.entries(needs)) {
    const { code, output } = await startupFailure(entry, { ...operatorOnly, PORT: String(await freePort()) });
    assert.notEqual(code, 0, `${entry} started with the operator's tokens only`);
    assert.match(output, new RegExp(`${missing} is required`), entry);
  }
});

/** A participant's SETTLEMENT account and its balance, read with the operator's read-only token. */
async function settlementAccount(name) {
  const accounts = await call(sw.admin.baseUrl, 'GET', `/participants/${name}/accounts?currency=USD`, { headers: adminHeaders('readOnly') });
  assert.equal(accounts.status, 200, accounts.text);
  return accounts.body.find((account) => account.ledgerAccountType === 'SETTLEMENT');
}

test('account lookup\'s oracle token registers and removes parties in the built-in oracle, and can do nothing else: no funds in or out, no settlement', async () => {
  await onboardDfsp(sw.admin.request, { name: 'scopefsp', endpointBase: 'http://127.0.0.1:9', fundsIn: '500' });
  const headers = adminHeaders('oracleWrite');
  const party = '/participants/MSISDN/27719990077';
  const since = await lastAuditId();
  assert.equal((await call(sw.oracleUrl, 'POST', party, { headers, body: { fspId: 'scopefsp', currency: 'USD' } })).status, 201);
  assert.equal((await call(sw.oracleUrl, 'DELETE', party, { headers })).status, 204);
  assert.deepEqual((await auditSince(since)).map((entry) => [entry.api, entry.method, entry.actor]), [
    ['oracle', 'POST', 'service:oracle-write'], ['oracle', 'DELETE', 'service:oracle-write'],
  ], 'the audit trail names the token');
  assertRefused(await call(sw.oracleUrl, 'GET', party, { headers }), 403, 'the oracle token reads parties in process, not over the API');

  const account = await settlementAccount('scopefsp');
  const funds = (action, transferId) => ({ transferId, externalReference: 'scope test', action, reason: 'scope test', amount: { amount: '100', currency: 'USD' } });
  const fundsPath = `/participants/scopefsp/accounts/${account.id}`;
  for (const [action, transferId] of [['recordFundsIn', '5a0c3f1e-7b2d-4c8e-9f10-2a3b4c5d6e70'], ['recordFundsOutPrepareReserve', '5a0c3f1e-7b2d-4c8e-9f10-2a3b4c5d6e71']]) {
    assertRefused(await call(sw.admin.baseUrl, 'POST', fundsPath, { headers, body: funds(action, transferId) }), 403, `${action} with the oracle token`);
  }
  assert.equal((await settlementAccount('scopefsp')).value, account.value, 'no money moved');

  const settlementUrl = sw.urlOf('settlement-api');
  const [openWindow] = (await call(settlementUrl, 'GET', '/v2/settlementWindows?state=OPEN', { headers: adminHeaders('readOnly') })).body;
  const settlementCalls = [
    ['POST', `/v2/settlementWindows/${openWindow.settlementWindowId}`, { state: 'CLOSED', reason: 'not the oracle token\'s to close' }],
    ['POST', '/v2/settlements', { settlementModel: 'DEFERREDNETUSD', reason: 'scope test', settlementWindows: [{ id: openWindow.settlementWindowId }] }],
    ['PUT', '/v2/settlements/1', { state: 'SETTLED', reason: 'scope test' }],
    ['GET', '/v2/settlementWindows?state=OPEN'],
  ];
  for (const [method, path, body] of settlementCalls) assertRefused(await call(settlementUrl, method, path, { headers, body }), 403, `settlement ${method} ${path}`);
  const [stillOpen] = (await call(settlementUrl, 'GET', '/v2/settlementWindows?state=OPEN', { headers: adminHeaders('readOnly') })).body;
  assert.equal(stillOpen.settlementWindowId, openWindow.settlementWindowId, 'the window is still open');

  const elsewhere = [
    [sw.admin.baseUrl, 'POST', '/participants/scopefsp/endpoints', { type: 'FSPIOP_CALLBACK_URL_QUOTES', value: 'http://127.0.0.1:9/elsewhere' }],
    [sw.admin.baseUrl, 'GET', '/participants/scopefsp/endpoints'],
    [apis.alsAdmin.url, 'POST', '/oracles', { oracleIdType: 'IBAN', endpoint: { value: 'http://127.0.0.1:9/iban', endpointType: 'URL' } }],
  ];
  for (const [url, method, path, body] of elsewhere) assertRefused(await call(url, method, path, { headers, body }), 403, `${method} ${path}`);
});

test('the DFSP directory token reads a DFSP\'s JWS keys, endpoints and API type, and nothing else; it changes none', async () => {
  await onboardDfsp(sw.admin.request, { name: 'dirfsp', endpointBase: 'http://127.0.0.1:9', fundsIn: '' });
  const headers = adminHeaders('dfspDirectoryRead');
  const keys = await call(sw.admin.baseUrl, 'GET', '/participants/dirfsp/jwsKeys', { headers });
  assert.equal(keys.status, 200, keys.text);
  assert.equal(keys.body.length, 1, 'its registered key');
  const endpoints = await call(sw.admin.baseUrl, 'GET', '/participants/dirfsp/endpoints', { headers });
  assert.equal(endpoints.status, 200, endpoints.text);
  assert.ok(endpoints.body.some((endpoint) => endpoint.type === 'FSPIOP_CALLBACK_URL_TRANSFER_POST'), endpoints.text);
  assert.equal((await call(sw.admin.baseUrl, 'GET', '/participants/Hub/jwsKeys', { headers })).status, 200, 'the hub\'s key too');
  const participant = await call(sw.admin.baseUrl, 'GET', '/participants/dirfsp', { headers });
  assert.deepEqual([participant.status, participant.body], [200, { name: 'dirfsp', isActive: 1, apiType: 'FSPIOP' }], 'no accounts');

  const refused = [
    [sw.admin.baseUrl, 'PUT', '/participants/dirfsp/jwsKeys', { keys: [keys.body[0].publicKey] }],
    [sw.admin.baseUrl, 'POST', '/participants/dirfsp/endpoints', { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value: 'http://127.0.0.1:9/moved' }],
    [sw.admin.baseUrl, 'PUT', '/participants/dirfsp', { isActive: false }],
    [sw.admin.baseUrl, 'GET', '/participants'],
    [sw.admin.baseUrl, 'PUT', '/participants/dirfsp', { apiType: 'ISO20022' }],
    [sw.admin.baseUrl, 'GET', '/participants/dirfsp/accounts'],
    [sw.admin.baseUrl, 'GET', '/audit'],
    [sw.urlOf('settlement-api'), 'GET', '/v2/settlementWindows?state=OPEN'],
    [apis.alsAdmin.url, 'GET', '/oracles'],
    [sw.oracleUrl, 'GET', '/participants/MSISDN/27719990001'],
  ];
  for (const [url, method, path, body] of refused) assertRefused(await call(url, method, path, { headers, body }), 403, `${method} ${path} with the directory token`);
  const after = await call(sw.admin.baseUrl, 'GET', '/participants/dirfsp/endpoints', { headers: adminHeaders('readOnly') });
  assert.deepEqual(after.body, endpoints.body, 'the endpoints are as they were');
});

/** The audit entries newer than `sinceId`, oldest first, read with the read-only token. */
async function auditSince(sinceId, query = '') {
  const answer = await call(sw.admin.baseUrl, 'GET', `/audit?limit=1000${query}`, { headers: adminHeaders('readOnly') });
  assert.equal(answer.status, 200, answer.text);
  return answer.body.filter((entry) => entry.id > sinceId).reverse();
}

async function lastAuditId() {
  const [latest] = (await call(sw.admin.baseUrl, 'GET', '/audit?limit=1', { headers: adminHeaders('readOnly') })).body;
  return latest?.id ?? 0;
}

test('every change through the admin API leaves one audit row with who, what, before and after; refusals and reads leave none', async () => {
  const since = await lastAuditId();
  const { request } = sw.admin;
  assert.equal((await request('POST', '/participants', { name: 'auditfsp', currency: 'USD' })).status, 201);
  assert.equal((await request('POST', '/participants/auditfsp/initialPositionAndLimits', {
    currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 1000 }, initialPosition: 0,
  })).status, 201);
  assert.equal((await request('PUT', '/participants/auditfsp/limits', { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 2500 } })).status, 200);
  assert.equal((await request('POST', '/participants/auditfsp/endpoints', { type: 'FSPIOP_CALLBACK_URL_QUOTES', value: 'http://127.0.0.1:7999' })).status, 201);
  assert.equal((await request('PUT', '/participants/auditfsp', { isActive: false })).status, 200);
  // Neither a refusal that changes nothing nor a read is a change.
  assert.equal((await request('PUT', '/participants/nobody', { isActive: false })).status, 400);
  assert.equal((await request('GET', '/participants/auditfsp')).status, 200);
  await call(sw.admin.baseUrl, 'PUT', '/participants/auditfsp', { headers: adminHeaders('readOnly'), body: { isActive: true } });

  const entries = await auditSince(since);
  assert.deepEqual(entries.map((entry) => `${entry.method} ${entry.route}`), [
    'POST /participants', 'POST /participants/{name}/initialPositionAndLimits', 'PUT /participants/{name}/limits',
    'POST /participants/{name}/endpoints', 'PUT /participants/{name}',
  ]);
  for (const entry of entries) {
    assert.equal(entry.actor, 'operator:read-write');
    assert.equal(entry.api, 'admin');
    assert.ok(Date.now() - Date.parse(entry.occurredAt) < 60_000, 'when');
    assert.match(entry.target, /^\/participants/);
  }
  const [created, limits, adjusted, endpoint, deactivated] = entries;
  assert.equal(created.status, 201);
  assert.equal(created.before.participant, null, 'nothing before the participant was created');
  assert.deepEqual(created.after.participant.accounts.map((account) => [account.type, account.isActive]), [['POSITION', false], ['SETTLEMENT', false]]);
  assert.deepEqual(limits.after.participant.accounts.map((account) => account.isActive), [true, true], 'initial limits activate the accounts');
  assert.equal(Number(adjusted.before.participant.limits[0].value), 1000);
  assert.equal(Number(adjusted.after.participant.limits[0].value), 2500);
  assert.deepEqual(endpoint.before.participant.endpoints, []);
  assert.deepEqual(endpoint.after.participant.endpoints, [{ type: 'FSPIOP_CALLBACK_URL_QUOTES', value: 'http://127.0.0.1:7999' }]);
  assert.deepEqual([deactivated.before.participant.isActive, deactivated.after.participant.isActive], [true, false]);
  assert.equal(deactivated.target, '/participants/auditfsp');
});

test('an FXP\'s currency pairs change with the write scope only, and each change is audited with the pairs before and after', async () => {
  const { request } = sw.admin;
  await onboardDfsp(request, { name: 'pairfsp', fundsIn: '' });
  await setUpHub(request, 'EUR');
  assert.equal((await request('POST', '/participants', { name: 'pairfsp', currency: 'EUR' })).status, 201);
  const since = await lastAuditId();
  const pairs = '/participants/pairfsp/currencyPairs';
  const readOnly = { headers: adminHeaders('readOnly') };
  assertRefused(await call(sw.admin.baseUrl, 'POST', pairs, { ...readOnly, body: { sourceCurrency: 'USD', targetCurrency: 'EUR' } }), 403, 'a read-only pair');
  assert.equal((await request('POST', pairs, { sourceCurrency: 'USD', targetCurrency: 'EUR' })).status, 201);
  assertRefused(await call(sw.admin.baseUrl, 'DELETE', `${pairs}/USD/EUR`, readOnly), 403, 'a read-only removal');
  assertRefused(await call(sw.admin.baseUrl, 'GET', pairs, { headers: adminHeaders('dfspDirectoryRead') }), 403, 'the directory token');
  assert.equal((await call(sw.admin.baseUrl, 'GET', pairs, readOnly)).body.length, 1, 'the read-only token reads them');
  assert.equal((await request('DELETE', `${pairs}/USD/EUR`)).status, 204);

  const entries = await auditSince(since);
  assert.deepEqual(entries.map((entry) => `${entry.method} ${entry.route} ${entry.status}`), [
    'POST /participants/{name}/currencyPairs 201', 'DELETE /participants/{name}/currencyPairs/{sourceCurrency}/{targetCurrency} 204',
  ]);
  const [added, removed] = entries;
  assert.equal(added.actor, 'operator:read-write');
  assert.deepEqual([added.before.participant.currencyPairs, added.after.participant.currencyPairs], [[], [{ sourceCurrency: 'USD', targetCurrency: 'EUR' }]]);
  assert.deepEqual(removed.after.participant.currencyPairs, []);
  assert.equal(removed.target, '/participants/pairfsp/currencyPairs/USD/EUR');
});

test('funds movements are audited with the transfer and positions before and after, an aborted funds-out too', async () => {
  const { request } = sw.admin;
  await request('POST', '/participants', { name: 'fundsfsp', currency: 'USD' });
  await request('POST', '/participants/fundsfsp/initialPositionAndLimits', { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 1000 } });
  const accounts = (await request('GET', '/participants/fundsfsp/accounts?currency=USD')).body;
  const settlement = accounts.find((account) => account.ledgerAccountType === 'SETTLEMENT').id;
  const since = await lastAuditId();
  const fundsIn = { transferId: '0b7b3a4e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', externalReference: 'r', action: 'recordFundsIn', reason: 'deposit', amount: { amount: '300', currency: 'USD' } };
  assert.equal((await request('POST', `/participants/fundsfsp/accounts/${settlement}`, fundsIn)).status, 202);
  const overdraw = { ...fundsIn, transferId: '1c8c4b5f-2d3e-4f60-9b0c-1d2e3f4a5b6c', action: 'recordFundsOutPrepareReserve', amount: { amount: '900', currency: 'USD' } };
  const refused = await request('POST', `/participants/fundsfsp/accounts/${settlement}`, overdraw);
  assert.equal(refused.body.errorInformation.errorCode, '4001');

  const [deposit, aborted] = await auditSince(since);
  assert.deepEqual([deposit.transfer, deposit.before.transfer], [undefined, null]);
  assert.equal(deposit.after.transfer.state, 'COMMITTED');
  const settlementValue = (snapshot) => snapshot.participant.accounts.find((account) => account.type === 'SETTLEMENT').value;
  assert.deepEqual([Number(settlementValue(deposit.before)), Number(settlementValue(deposit.after))], [0, -300]);
  assert.equal(aborted.status, 400, 'a refused funds-out that was recorded as aborted is a change');
  assert.equal(aborted.before.transfer, null);
  assert.match(aborted.after.transfer.state, /^ABORTED/);
});

test('the ALS admin API and the built-in oracle write their changes to the same trail', async () => {
  const since = await lastAuditId();
  const alsUrl = apis.alsAdmin.url;
  const created = await call(alsUrl, 'POST', '/oracles', {
    headers: adminHeaders('readWrite'), body: { oracleIdType: 'ACCOUNT_ID', endpoint: { value: 'http://127.0.0.1:9/other', endpointType: 'URL' } },
  });
  assert.equal(created.status, 201, created.text);
  assert.equal((await call(alsUrl, 'DELETE', `/oracles/${created.body.oracleId}`, { headers: adminHeaders('readWrite') })).status, 204);
  assert.equal((await call(apis.oracle.url, 'POST', '/participants/MSISDN/27719990002', { headers: adminHeaders('readWrite'), body: { fspId: 'auditfsp' } })).status, 201);

  const [oracleCreated, oracleDeleted, party] = await auditSince(since);
  assert.deepEqual([oracleCreated.api, oracleCreated.route, oracleCreated.before.oracles, oracleCreated.after.oracles.length], ['als-admin', '/oracles', [], 1]);
  assert.deepEqual([oracleDeleted.method, oracleDeleted.after.oracle], ['DELETE', null]);
  assert.deepEqual([oracleDeleted.before.oracle.oracleId, oracleDeleted.before.oracle.oracleIdType], [created.body.oracleId, 'ACCOUNT_ID']);
  assert.deepEqual([party.api, party.before.party, party.after.party.fspId], ['oracle', null, 'auditfsp']);
  const filtered = await auditSince(since, '&api=oracle');
  assert.deepEqual(filtered.map((entry) => entry.id), [party.id], 'GET /audit filters by api');
});

test('GET /audit refuses unknown filters and malformed values with 3100', async () => {
  for (const query of ['?who=me', '?from=yesterday', '?limit=0', '?limit=5000', '?beforeId=x']) {
    const answer = await call(sw.admin.baseUrl, 'GET', `/audit${query}`, { headers: adminHeaders('readOnly') });
    assert.deepEqual([answer.status, answer.body.errorInformation.errorCode], [400, '3100'], query);
  }
});

test('callback URLs: http(s) only, never link-local or cloud metadata addresses (400, 3100 with the reason)', async () => {
  const { request } = sw.admin;
  await request('POST', '/participants', { name: 'urlfsp', currency: 'USD' });
  const refusals = [
    ['ftp://dfsp.example/cb', /must be an http or https URL/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://[fe80::1]:8080/cb', /link-local/],
    ['http://[fd00:ec2::254]/', /metadata/],
    ['http://metadata.google.internal/computeMetadata/v1/', /metadata/],
  ];
  for (const [value, reason] of refusals) {
    const answer = await request('POST', '/participants/urlfsp/endpoints', { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value });
    assert.equal(answer.status, 400, value);
    assert.equal(answer.body.errorInformation.errorCode, '3100', value);
    assert.match(answer.body.errorInformation.errorDescription, reason, value);
  }
  assert.deepEqual((await request('GET', '/participants/urlfsp/endpoints')).body, [], 'nothing was registered');
  assert.equal((await request('POST', '/participants/urlfsp/endpoints', { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value: 'https://dfsp.example/transfers' })).status, 201);
});

test('an oracle registered again for its type and currency gets Mojaloop\'s 2001 "already exists" (with a 400), whatever its URL', async () => {
  const alsUrl = apis.alsAdmin.url;
  const headers = adminHeaders('readWrite');
  const oracle = { oracleIdType: 'EMAIL', endpoint: { value: 'http://127.0.0.1:9/email', endpointType: 'URL' }, currency: 'USD' };
  const created = await call(alsUrl, 'POST', '/oracles', { headers, body: oracle });
  assert.equal(created.status, 201, created.text);
  const expected = [400, { errorCode: '2001', errorDescription: 'Internal server error - Active oracle with matching partyIdTypeId, endpointTypeId, currencyId already exists' }];
  for (const again of [oracle, { ...oracle, endpoint: { ...oracle.endpoint, value: 'http://127.0.0.1:9/elsewhere' } }]) {
    const answer = await call(alsUrl, 'POST', '/oracles', { headers, body: again });
    assert.deepEqual([answer.status, answer.body.errorInformation], expected, again.endpoint.value);
  }
  const other = await call(alsUrl, 'POST', '/oracles', { headers, body: { ...oracle, currency: 'EUR' } });
  assert.equal(other.status, 201, 'another currency is another oracle');
  const moved = await call(alsUrl, 'PUT', `/oracles/${other.body.oracleId}`, { headers, body: { currency: 'USD' } });
  assert.deepEqual([moved.status, moved.body?.errorInformation], expected, 'nor can an update make a second one');
  assert.equal((await call(alsUrl, 'GET', '/oracles?type=EMAIL', { headers })).body.length, 2);
  for (const { body } of [created, other]) await call(alsUrl, 'DELETE', `/oracles/${body.oracleId}`, { headers });
});
