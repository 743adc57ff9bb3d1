// Repeated query parameters on every operator API (admin API, settlement API, ALS admin API,
// built-in oracle) against the real servers and MariaDB: a parameter given twice is 400 with
// 3100 naming it, on every route that reads a query, and the same routes still answer the
// parameter given once as before.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { adminHeaders, setUpHub } from '../support/admin-api.js';
import { operatorClient } from '../support/settlement-api.js';
import { startSwitch } from '../support/switch.js';
import { checkRepeatedQueryParameters, repeatedQueryProbes } from '../fuzz/repeated-query.js';

let sw;
let urls;
let api;

before(async () => {
  sw = await startSwitch({ components: ['account-lookup-admin', 'settlement-api'] });
  await setUpHub(sw.admin.request);
  assert.equal((await sw.admin.request('POST', '/participants', { name: 'queryfsp', currency: 'USD' })).status, 201);
  urls = { admin: sw.admin.baseUrl, settlement: sw.urlOf('settlement-api'), alsAdmin: sw.urlOf('account-lookup-admin'), oracle: sw.oracleUrl };
  api = Object.fromEntries(Object.entries(urls).map(([name, url]) => [name, operatorClient(url, 'readOnly')]));
});

after(async () => { await sw?.stop(); });

function assertRepeatedRefused(answer, parameter, what) {
  assert.equal(answer.status, 400, `${what}: ${answer.text}`);
  assert.equal(answer.body.errorInformation.errorCode, '3100', what);
  assert.equal(answer.body.errorInformation.errorDescription, `Generic validation error - query parameter '${parameter}' must appear at most once`, what);
}

test('the repeated parameters that used to answer 500 are 400 with 3100 naming the parameter', async () => {
  assertRepeatedRefused(await api.admin('GET', '/audit?target=a&target=b'), 'target', 'GET /audit target twice');
  assertRepeatedRefused(await api.admin('GET', '/audit?method=GET&method=POST'), 'method', 'GET /audit method twice');
  assertRepeatedRefused(await api.settlement('GET', '/v2/settlements?state=A&state=B'), 'state', 'GET /v2/settlements state twice');
  assertRepeatedRefused(await api.settlement('GET', '/v2/settlementWindows?state=OPEN&state=CLOSED'), 'state', 'GET /v2/settlementWindows state twice');
  assertRepeatedRefused(await api.alsAdmin('GET', '/oracles?currency=USD&currency=EUR'), 'currency', 'GET /oracles currency twice');
  assertRepeatedRefused(await api.oracle('GET', '/participants/MSISDN/27710000001?currency=USD&currency=EUR'), 'currency', 'oracle lookup currency twice');
  // Beside other parameters given once, and with the same value twice: still one too many.
  assertRepeatedRefused(await api.admin('GET', '/participants/queryfsp/limits?type=NET_DEBIT_CAP&currency=USD&currency=USD'), 'currency', 'same value twice');
});

test('every query parameter of every operator route, given twice, is refused (the fuzzer\'s probe)', async () => {
  const probes = repeatedQueryProbes();
  assert.deepEqual(new Set(probes.map((probe) => probe.api)), new Set(['admin', 'settlement', 'alsAdmin', 'oracle']));
  assert.ok(probes.length >= 30, `${probes.length} probes`);
  // The read-write token, as the fuzzer sends it: the probe includes a DELETE.
  assert.deepEqual(await checkRepeatedQueryParameters({ urls, headers: adminHeaders('readWrite') }), []);
});

test('the refusal comes after authentication: without a token a repeated parameter is still 401', async () => {
  const answer = await fetch(`${urls.settlement}/v2/settlements?state=A&state=B`);
  assert.equal(answer.status, 401);
});

test('each parameter given once still works', async () => {
  const audit = await api.admin('GET', '/audit?method=POST&target=/participants&limit=5');
  assert.equal(audit.status, 200, audit.text);
  assert.ok(audit.body.length > 0 && audit.body.every((entry) => entry.method === 'POST' && entry.target.startsWith('/participants')), audit.text);
  const accounts = await api.admin('GET', '/participants/queryfsp/accounts?currency=USD');
  assert.equal(accounts.status, 200, accounts.text);
  assert.ok(accounts.body.length > 0 && accounts.body.every((account) => account.currency === 'USD'));

  const windows = await api.settlement('GET', '/v2/settlementWindows?state=OPEN');
  assert.equal(windows.status, 200, windows.text);
  assert.deepEqual(windows.body.map((window) => window.state), ['OPEN']);
  // No settlement exists: central-settlement's "not found", not the repetition refusal.
  const settlements = await api.settlement('GET', '/v2/settlements?state=PENDING_SETTLEMENT');
  assert.deepEqual([settlements.status, settlements.body.errorInformation.errorDescription], [400, 'Generic validation error - Settlements not found']);

  const oracles = await api.alsAdmin('GET', '/oracles?currency=USD');
  assert.deepEqual([oracles.status, oracles.body], [200, []]);
  const party = await api.oracle('GET', '/participants/MSISDN/27710000001?currency=USD&partySubIdOrType=home');
  assert.deepEqual([party.status, party.body], [200, { partyList: [] }]);
});
