// Account lookup end to end: the account-lookup edge and its admin process (ALS admin API and
// built-in oracle) as child processes, the notification handler (for the /participants
// answers; the edge sends the /parties calls itself), real Kafka and MariaDB, and three test
// DFSPs over real HTTP that answer discovery as payees do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { adminClient } from '../../scripts/lib/onboarding.js';
import { startSwitch } from '../support/switch.js';
import { createTestDatabase, operatorTokens, testConfig } from '../support/environment.js';
import { discoveryEndpoints, fspiopHeaders, partyAnswer, startPartyDfsp } from '../support/party-dfsp.js';
import { freePort } from '../../scripts/lib/ports.js';
import { unsignedFetch } from '../support/jws-keys.js';

const ROOT = new URL('../..', import.meta.url).pathname;
let sw;
let alsUrl;
let adminUrl;
let alsAdmin;
let payer;
let payee;
let other;

async function onboard(dfsp) {
  await onboardDfsp(sw.admin.request, { name: dfsp.name, endpointBase: dfsp.url });
  for (const [type, value] of discoveryEndpoints(dfsp.url)) {
    const result = await sw.admin.request('POST', `/participants/${dfsp.name}/endpoints`, { type, value });
    assert.equal(result.status, 201, result.text);
  }
}

before(async () => {
  sw = await startSwitch({
    components: ['account-lookup-admin', 'account-lookup', 'notification'],
    env: {
      ORACLE_REGISTRY_TTL_MS: '0', PARTICIPANT_CACHE_TTL_MS: '0',
    },
  });
  alsUrl = sw.urlOf('account-lookup');
  adminUrl = sw.urlOf('account-lookup-admin');
  alsAdmin = adminClient(adminUrl, { token: operatorTokens().readWrite });
  await setUpHub(sw.admin.request);
  [payer, payee, other] = await Promise.all(['payerfsp', 'payeefsp', 'otherfsp'].map((name) => startPartyDfsp({ name, switchUrl: alsUrl })));
  for (const dfsp of [payer, payee, other]) await onboard(dfsp);
});

after(async () => {
  await Promise.all([payer, payee, other].map((dfsp) => dfsp?.close()));
  await sw?.stop();
});

const putTo = (dfsp, path) => dfsp.waitFor((call) => call.method === 'PUT' && call.path === path);
const errorCode = (call) => call.body.errorInformation.errorCode;

/** Registers a party for `dfsp` through FSPIOP and waits for the hub's confirmation. */
async function register(dfsp, path, body = { fspId: dfsp.name }) {
  const sent = await dfsp.send('POST', path, { body });
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  return putTo(dfsp, path);
}

test('discovery: the payer\'s GET reaches the payee, the payee\'s PUT reaches the payer byte for byte', async () => {
  const confirmed = await register(payee, '/participants/MSISDN/27710000001', { fspId: 'payeefsp', currency: 'USD' });
  assert.deepEqual(confirmed.body, { fspId: 'payeefsp' });
  assert.equal(confirmed.headers['fspiop-source'], 'Hub');
  payee.parties.add('MSISDN/27710000001');
  assert.equal((await payer.send('GET', '/parties/MSISDN/27710000001')).status, 202);
  const lookup = await payee.waitFor((call) => call.method === 'GET' && call.path === '/parties/MSISDN/27710000001');
  assert.equal(lookup.headers['fspiop-source'], 'payerfsp');
  assert.equal(lookup.headers['fspiop-destination'], 'payeefsp');
  assert.equal(lookup.headers['fspiop-http-method'], 'GET');
  const answer = await putTo(payer, '/parties/MSISDN/27710000001');
  assert.equal(answer.rawBody, partyAnswer('payeefsp', ['MSISDN', '27710000001']), 'the payee\'s bytes reach the payer unchanged');
  assert.equal(answer.headers['fspiop-source'], 'payeefsp');
  assert.equal(answer.headers['fspiop-destination'], 'payerfsp');
});

test('a party with a sub-id is found on its own, through the SUB_ID endpoints', async () => {
  await register(payee, '/participants/PERSONAL_ID/8001015009087/PASSPORT');
  payee.parties.add('PERSONAL_ID/8001015009087/PASSPORT');
  await payer.send('GET', '/parties/PERSONAL_ID/8001015009087/PASSPORT');
  await payee.waitFor((call) => call.method === 'GET' && call.path === '/parties/PERSONAL_ID/8001015009087/PASSPORT');
  const answer = await putTo(payer, '/parties/PERSONAL_ID/8001015009087/PASSPORT');
  assert.equal(answer.body.party.partyIdInfo.partySubIdOrType, 'PASSPORT');
  await payer.send('GET', '/parties/PERSONAL_ID/8001015009087');
  assert.equal(errorCode(await putTo(payer, '/parties/PERSONAL_ID/8001015009087/error')), '3204', 'without the sub-id it is another party');
});

test('a party no oracle knows: 3204 from the hub to the payer\'s error endpoint', async () => {
  assert.equal((await payer.send('GET', '/parties/MSISDN/27799999999')).status, 202);
  const error = await putTo(payer, '/parties/MSISDN/27799999999/error');
  assert.equal(errorCode(error), '3204');
  assert.equal(error.headers['fspiop-source'], 'Hub');
  assert.equal(error.headers['fspiop-destination'], 'payerfsp');
  assert.equal(error.signatureProblem, null, 'the hub signs its own error');
});

test('a requester that is not an active DFSP is refused at once with 3101, an invalid fspiop-source header as Mojaloop\'s ALS answers it', async () => {
  const ask = (source) => unsignedFetch(`${alsUrl}/parties/MSISDN/27710000001`, { headers: fspiopHeaders('parties', source) });
  const refused = await ask('ghostfsp');
  assert.equal(refused.status, 400);
  const body = await refused.json();
  assert.equal(body.errorInformation.errorCode, '3101');
  assert.equal(body.errorInformation.errorDescription, 'Malformed syntax - Invalid fspiop-source header: ghostfsp is not an active DFSP of this switch');
  assert.equal((await sw.admin.request('PUT', '/participants/otherfsp', { isActive: false })).status, 200);
  try {
    assert.equal((await ask('otherfsp')).status, 400, 'an inactive DFSP is refused');
    assert.equal((await other.send('POST', '/participants/MSISDN/1', { body: { fspId: 'otherfsp' } })).status, 400);
  } finally {
    await sw.admin.request('PUT', '/participants/otherfsp', { isActive: true });
  }
  assert.equal((await ask('otherfsp')).status, 202);
});

test('FSPIOP-Destination on a lookup goes straight to that DFSP; an unknown one is 3201', async () => {
  await payer.send('GET', '/parties/MSISDN/27788888888', { destination: 'otherfsp' });
  const lookup = await other.waitFor((call) => call.method === 'GET' && call.path === '/parties/MSISDN/27788888888');
  assert.equal(lookup.headers['fspiop-source'], 'payerfsp');
  assert.equal(errorCode(await putTo(payer, '/parties/MSISDN/27788888888/error')), '3204', 'otherfsp answered that it has no such party');
  await payer.send('GET', '/parties/MSISDN/27777777777', { destination: 'ghostfsp' });
  assert.equal(errorCode(await putTo(payer, '/parties/MSISDN/27777777777/error')), '3201');
});

test('a payee\'s answer to an unknown destination comes back to the payee as 3201', async () => {
  const raw = partyAnswer('payeefsp', ['MSISDN', '27766666666']);
  assert.equal((await payee.send('PUT', '/parties/MSISDN/27766666666', { destination: 'ghostfsp', raw })).status, 200);
  assert.equal(errorCode(await putTo(payee, '/parties/MSISDN/27766666666/error')), '3201');
  // The payee's own error reaches the payer that asked it.
  payee.setBehaviour('MSISDN/27766666665', 'silent');
  await payer.send('GET', '/parties/MSISDN/27766666665', { destination: 'payeefsp' });
  await payee.waitFor((call) => call.method === 'GET' && call.path === '/parties/MSISDN/27766666665');
  assert.equal((await payee.send('PUT', '/parties/MSISDN/27766666665/error', { destination: 'payerfsp', body: { errorInformation: { errorCode: '5000', errorDescription: 'Payee error' } } })).status, 200);
  const forwarded = await putTo(payer, '/parties/MSISDN/27766666665/error');
  assert.deepEqual([errorCode(forwarded), forwarded.headers['fspiop-source']], ['5000', 'payeefsp']);
});

test('only a DFSP the lookup went to may answer it, and only to the DFSP that asked', async () => {
  const path = '/parties/MSISDN/27755555555';
  await register(payee, '/participants/MSISDN/27755555555');
  payee.setBehaviour('MSISDN/27755555555', 'silent');
  await payer.send('GET', path);
  await payee.waitFor((call) => call.method === 'GET' && call.path === path);

  // An impostor's answer (otherfsp was never asked) goes nowhere but back to the impostor.
  const impostorAnswer = partyAnswer('otherfsp', ['MSISDN', '27755555555']);
  assert.equal((await other.send('PUT', path, { destination: 'payerfsp', raw: impostorAnswer })).status, 200);
  const refused = await putTo(other, `${path}/error`);
  assert.deepEqual([errorCode(refused), refused.headers['fspiop-source']], ['3100', 'Hub']);
  assert.match(refused.body.errorInformation.errorDescription, /no lookup of MSISDN\/27755555555 by payerfsp is pending at otherfsp/);
  // The asked payee may not answer a DFSP that did not ask either.
  assert.equal((await payee.send('PUT', path, { destination: 'otherfsp', raw: partyAnswer('payeefsp', ['MSISDN', '27755555555']) })).status, 200);
  assert.equal(errorCode(await putTo(payee, `${path}/error`)), '3100');

  // The rightful answer is relayed, and it is the first and only answer the payer hears:
  // the refused ones, sent before it, never reached the payer or otherfsp.
  const rightful = partyAnswer('payeefsp', ['MSISDN', '27755555555']);
  assert.equal((await payee.send('PUT', path, { destination: 'payerfsp', raw: rightful })).status, 200);
  const relayed = await putTo(payer, path);
  assert.equal(relayed.rawBody, rightful);
  assert.deepEqual(payer.received.filter((call) => call.method === 'PUT' && call.path.startsWith(path)), [relayed]);
  assert.deepEqual(other.received.filter((call) => call.method === 'PUT' && call.path === path), []);
});

test('participants: register, look up, refuse another DFSP, delete', async () => {
  const path = '/participants/MSISDN/27720000002';
  await register(payee, path);
  await payer.send('GET', path);
  assert.deepEqual((await putTo(payer, path)).body, { fspId: 'payeefsp' });
  await other.send('POST', path, { body: { fspId: 'otherfsp' } });
  const taken = await putTo(other, `${path}/error`);
  assert.equal(errorCode(taken), '3003');
  assert.match(taken.body.errorInformation.errorDescription, /payeefsp/);
  await other.send('POST', '/participants/MSISDN/27720000003', { body: { fspId: 'payeefsp' } });
  assert.equal(errorCode(await putTo(other, '/participants/MSISDN/27720000003/error')), '3100', 'a DFSP registers only its own parties');
  other.received.length = 0;
  await other.send('DELETE', path);
  assert.equal(errorCode(await putTo(other, `${path}/error`)), '3040', 'only the serving DFSP may delete');
  payee.received.length = 0;
  await payee.send('DELETE', path);
  assert.deepEqual((await putTo(payee, path)).body, {});
  payer.received.length = 0;
  await payer.send('GET', path);
  assert.equal(errorCode(await putTo(payer, `${path}/error`)), '3204');
  await payer.send('GET', '/participants/MSISDN/27720000099?currency=USD');
  assert.equal(errorCode(await putTo(payer, '/participants/MSISDN/27720000099/error')), '3204');
});

test('batch registration answers every party in order; the parties are then found', async () => {
  const requestId = randomUUID();
  const partyList = [
    { partyIdType: 'MSISDN', partyIdentifier: '27730000001', fspId: 'payeefsp' },
    { partyIdType: 'MSISDN', partyIdentifier: '27730000002' },
    { partyIdType: 'EMAIL', partyIdentifier: 'ada@payee.example', fspId: 'payeefsp' },
    { partyIdType: 'MSISDN', partyIdentifier: '27730000003', fspId: 'otherfsp' },
    { partyIdType: 'PERSONAL_ID', partyIdentifier: '7501010001', partySubIdOrType: 'NATIONAL_ID', fspId: 'payeefsp' },
  ];
  assert.equal((await payee.send('POST', '/participants', { body: { requestId, partyList, currency: 'USD' } })).status, 202);
  const answer = await putTo(payee, `/participants/${requestId}`);
  assert.equal(answer.headers['fspiop-source'], 'Hub');
  assert.equal(answer.body.currency, 'USD');
  assert.deepEqual(answer.body.partyList.map((result) => [result.partyId.partyIdentifier, result.errorInformation?.errorCode]),
    [['27730000001', undefined], ['27730000002', undefined], ['ada@payee.example', undefined], ['27730000003', '3100'], ['7501010001', undefined]]);
  assert.equal(answer.body.partyList[1].partyId.fspId, 'payeefsp', 'a party without fspId is the requester\'s');
  await payer.send('GET', '/participants/EMAIL/ada%40payee.example');
  assert.deepEqual((await putTo(payer, '/participants/EMAIL/ada%40payee.example')).body, { fspId: 'payeefsp' });
});

test('ALS admin API: oracle CRUD with validation', async () => {
  const request = alsAdmin;
  const oracle = { oracleIdType: 'BUSINESS', endpoint: { value: 'http://127.0.0.1:9/oracle', endpointType: 'URL' }, currency: 'USD' };
  assert.equal((await request('GET', '/health')).status, 200);
  assert.equal((await request('POST', '/oracles', { oracleIdType: 'BUSINESS' })).body.errorInformation.errorCode, '3102');
  assert.equal((await request('POST', '/oracles', { ...oracle, oracleIdType: 'PHONE' })).body.errorInformation.errorCode, '3100');
  assert.equal((await request('POST', '/oracles', { ...oracle, endpoint: { value: 'ftp://x', endpointType: 'URL' } })).body.errorInformation.errorCode, '3100');
  assert.equal((await request('POST', '/oracles', '{"oracleIdType":')).body.errorInformation.errorCode, '3101');
  const created = await request('POST', '/oracles', oracle);
  assert.equal(created.status, 201, created.text);
  const { oracleId } = created.body;
  assert.deepEqual(created.body, { oracleId, ...oracle, isDefault: false });
  assert.equal((await request('POST', '/oracles', oracle)).body.errorInformation.errorCode, '2001', 'the same oracle twice, with the code Mojaloop answers');
  assert.equal((await request('PUT', `/oracles/${oracleId}`, { isDefault: true })).status, 204);
  const listed = await request('GET', '/oracles?type=BUSINESS&currency=USD');
  assert.deepEqual(listed.body, [{ ...created.body, isDefault: true }]);
  assert.deepEqual((await request('GET', '/oracles?type=IBAN')).body, []);
  assert.equal((await request('GET', '/oracles?colour=red')).status, 400);
  assert.equal((await request('DELETE', `/oracles/${oracleId}`)).status, 204);
  const gone = await request('DELETE', `/oracles/${oracleId}`);
  assert.deepEqual([gone.status, gone.body.errorInformation.errorCode], [400, '3200']);
  assert.equal((await request('PUT', '/oracles/x', { isDefault: true })).body.errorInformation.errorCode, '3100');
});

/**
 * A second built-in oracle with a database of its own: to account lookup, an external oracle.
 * Account lookup sends its operator token to the built-in oracle only (never to an oracle an
 * operator registered), so this one stands in for an external oracle without a token check.
 */
async function startExternalOracle() {
  const database = await createTestDatabase('fspiop_ext_oracle');
  const port = await freePort();
  const child = spawn(process.execPath, ['account-lookup/oracle-main.js'], {
    cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DB_PASSWORD: testConfig().db.password, DB_NAME: database.name, PORT: String(port), LOG_LEVEL: 'warn', OPERATOR_AUTH: 'off' },
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 100; attempt += 1) {
    if ((await fetch(`${url}/health`).catch(() => null))?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url, db: database.db,
    async stop() {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
      await database.drop();
    },
  };
}

test('an id type pointed at an external oracle is served by it, and by the built-in one again when removed', async () => {
  const external = await startExternalOracle();
  try {
    const registered = await alsAdmin('POST', '/oracles', { oracleIdType: 'ALIAS', endpoint: { value: external.url, endpointType: 'URL' } });
    assert.equal(registered.status, 201);
    await register(payee, '/participants/ALIAS/ada.lovelace');
    assert.equal((await external.db('oracle_party').where({ party_identifier: 'ada.lovelace' })).length, 1, 'stored by the external oracle');
    assert.equal((await sw.admin.db('oracle_party').where({ party_identifier: 'ada.lovelace' })).length, 0, 'not by the built-in one');
    payee.parties.add('ALIAS/ada.lovelace');
    await payer.send('GET', '/parties/ALIAS/ada.lovelace');
    assert.equal((await putTo(payer, '/parties/ALIAS/ada.lovelace')).body.party.partyIdInfo.fspId, 'payeefsp');
    await alsAdmin('DELETE', `/oracles/${registered.body.oracleId}`);
    payer.received.length = 0;
    await payer.send('GET', '/parties/ALIAS/ada.lovelace');
    assert.equal(errorCode(await putTo(payer, '/parties/ALIAS/ada.lovelace/error')), '3204', 'the built-in oracle never knew it');
  } finally {
    await external.stop();
  }
});

test('an oracle that cannot be reached: 503 with 2003, nothing accepted', async () => {
  const registered = await alsAdmin('POST', '/oracles', { oracleIdType: 'IBAN', endpoint: { value: `http://127.0.0.1:${await freePort()}`, endpointType: 'URL' } });
  try {
    const refused = await payer.send('GET', '/parties/IBAN/DE89370400440532013000');
    assert.equal(refused.status, 503);
    assert.equal(refused.body.errorInformation.errorCode, '2003');
  } finally {
    await alsAdmin('DELETE', `/oracles/${registered.body.oracleId}`);
  }
});

test('bad headers, paths and bodies are answered synchronously', async () => {
  const cases = [
    ['GET', '/parties/MSISDN/1', { headers: { ...fspiopHeaders('parties', 'payerfsp'), 'fspiop-source': '' } }, 400, '3102'],
    ['GET', '/parties/MSISDN/1', { headers: fspiopHeaders('transfers', 'payerfsp') }, 400, '3101'],
    ['GET', '/parties/MSISDN/1', { headers: { ...fspiopHeaders('parties', 'payerfsp'), 'content-type': 'application/vnd.interoperability.parties+json;version=9.9' } }, 406, '3001'],
    ['GET', '/parties/PHONE/1', {}, 400, '3100'],
    ['PUT', '/parties/MSISDN/1', { destination: 'payerfsp', body: {} }, 400, '3102'],
    ['PUT', '/parties/MSISDN/1', { destination: 'payerfsp', raw: '{"party":' }, 400, '3101'],
    ['POST', '/participants/MSISDN/1', { body: { currency: 'USD' } }, 400, '3102'],
    ['POST', '/participants/MSISDN/1', { body: { fspId: 'payerfsp', currency: 'usd' } }, 400, '3100'],
    ['POST', '/participants', { body: { requestId: 'not-a-uuid', partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '1' }] } }, 400, '3100'],
    ['GET', '/participants/MSISDN/1?currency=usd', {}, 400, '3100'],
    ['PUT', '/participants/MSISDN/1', { body: { fspId: 'payerfsp' } }, 501, '2002'],
  ];
  for (const [method, path, options, status, code] of cases) {
    const result = await payer.send(method, path, options);
    assert.deepEqual([result.status, result.body?.errorInformation?.errorCode], [status, code], `${method} ${path}`);
  }
});

function percentile(sorted, fraction) {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))];
}

test('bulk load: 100,000 MSISDNs in one command, then found by lookups', async () => {
  const started = Date.now();
  const child = spawn(process.execPath, ['tools/oracle-load.js', '--type', 'MSISDN', '--from', '2000000000', '--count', '100000', '--fsp', 'payeefsp'], {
    cwd: ROOT, env: { ...process.env, DB_PASSWORD: testConfig().db.password, DB_NAME: sw.admin.databaseName }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, output);
  console.log(`  ${output.trim()} (command: ${Date.now() - started} ms)`);
  const [{ count }] = await sw.admin.db('oracle_party').where({ party_id_type: 'MSISDN', fsp_id: 'payeefsp' })
    .whereBetween('party_identifier', ['2000000000', '2000099999']).count({ count: '*' });
  assert.equal(Number(count), 100000);
  await payer.send('GET', '/participants/MSISDN/2000054321');
  assert.deepEqual((await putTo(payer, '/participants/MSISDN/2000054321')).body, { fspId: 'payeefsp' });

  // Latency of discovery over the loaded range: the edge's 202 (participant check, the
  // built-in oracle's read in process, the pending lookup stored) and the payee's receipt of
  // the GET the edge sends once it has answered.
  const accepted = [];
  const delivered = [];
  for (let index = 0; index < 200; index += 1) {
    const id = String(2000000000 + index * 499);
    payee.setBehaviour(`MSISDN/${id}`, 'silent');
    const sent = performance.now();
    assert.equal((await payer.send('GET', `/parties/MSISDN/${id}`)).status, 202);
    accepted.push(performance.now() - sent);
    await payee.waitFor((call) => call.method === 'GET' && call.path === `/parties/MSISDN/${id}`);
    delivered.push(performance.now() - sent);
  }
  const [a, d] = [accepted.sort((x, y) => x - y), delivered.sort((x, y) => x - y)];
  console.log(`  lookup latency over ${a.length} sequential GETs: 202 p50 ${percentile(a, 0.5).toFixed(1)} ms, p95 ${percentile(a, 0.95).toFixed(1)} ms; `
    + `payee receives GET p50 ${percentile(d, 0.5).toFixed(1)} ms, p95 ${percentile(d, 0.95).toFixed(1)} ms`);
});

// Runs last (node:test keeps the file's order): every call the DFSPs received in this file,
// the payees' forwarded answers and the hub's own callbacks alike, verifies with its sender's key.
test('every callback the DFSPs received verifies with the sender\'s or the hub\'s key', () => {
  assert.ok(payer.received.some((call) => call.rawBody && call.headers['fspiop-source'] === 'Hub'), 'the payer received a hub-signed callback');
  for (const dfsp of [payer, payee, other]) assert.deepEqual(dfsp.signatureFailures, [], `${dfsp.name}'s signature failures`);
});
