// Discovery without Kafka: the account-lookup edge sends the GET /parties to the payee and
// the payee's PUT to the payer itself, and reads the built-in oracle in process. The switch
// here runs no notification handler and serves no built-in oracle over HTTP (ORACLE_PORT=off,
// ORACLE_BUILTIN_URL a closed port), so a discovery that completes proves neither hop is
// taken, and the broker's high watermarks prove no record was produced. A payee that never
// answers shows the bounds on what the edge holds: one call in flight and one queued per DFSP
// here, and the lookup beyond them told 2003 at once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import Kafka from 'node-rdkafka';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { testConfig } from '../support/environment.js';
import { probeFetch } from '../support/scheme-tls.js';
import { discoveryEndpoints, partyAnswer, startPartyDfsp } from '../support/party-dfsp.js';
import { topicDefinitions } from '../../platform/kafka/topics.js';
import { upsertParties } from '../../account-lookup/oracle/repository.js';
import { freePort } from '../../scripts/lib/ports.js';

const CALLBACK_TIMEOUT_MS = 1500;
let sw;
let alsUrl;
let builtInUrl;
let payer;
let payee;
let stuck;

/** A payee whose server takes every request and never answers it. */
async function startStuckServer() {
  const received = [];
  const server = http.createServer((request) => {
    received.push(`${request.method} ${request.url}`);
    request.resume();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`, received,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

/** Records on every topic of this run, summed over partitions, from the broker's high watermarks. */
async function recordsOnTopics() {
  const producer = new Kafka.Producer({ 'bootstrap.servers': testConfig().kafka.brokers, 'client.id': 'als-no-kafka-test' });
  await new Promise((resolve, reject) => producer.connect({ timeout: 10_000 }, (error) => (error ? reject(error) : resolve())));
  try {
    const counts = {};
    for (const { name, partitions } of topicDefinitions(sw.prefix)) {
      counts[name] = 0;
      for (let partition = 0; partition < partitions; partition += 1) {
        counts[name] += await new Promise((resolve, reject) => producer.queryWatermarkOffsets(name, partition, 10_000, (error, offsets) => (error ? reject(error) : resolve(offsets.highOffset))));
      }
    }
    return counts;
  } finally {
    await new Promise((resolve) => producer.disconnect(resolve));
  }
}

/** The value of the edge's series `name` whose labels include `labels`, or undefined. */
async function metricValue(name, labels) {
  const text = await (await probeFetch(`${alsUrl}/metrics`)).text();
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  for (const match of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const present = match[1].split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[2]);
  }
  return undefined;
}

async function onboard(name, endpointBase) {
  await onboardDfsp(sw.admin.request, { name, endpointBase });
  for (const [type, value] of discoveryEndpoints(endpointBase)) {
    const result = await sw.admin.request('POST', `/participants/${name}/endpoints`, { type, value });
    assert.equal(result.status, 201, result.text);
  }
}

before(async () => {
  builtInUrl = `http://127.0.0.1:${await freePort()}`;
  sw = await startSwitch({
    components: ['account-lookup-admin', 'account-lookup'],
    env: {
      ORACLE_PORT: 'off', ORACLE_BUILTIN_URL: builtInUrl, ORACLE_REGISTRY_TTL_MS: '0', PARTICIPANT_CACHE_TTL_MS: '0',
      CALLBACK_IN_FLIGHT_MAX_PER_FSP: '1', CALLBACK_QUEUE_MAX_PER_FSP: '1', CALLBACK_TIMEOUT_MS: String(CALLBACK_TIMEOUT_MS), CALLBACK_RETRIES: '0',
      // Long enough for the queued call to get its own full attempt after the first one.
      CALLBACK_BATCH_DEADLINE_MS: String(CALLBACK_TIMEOUT_MS * 3),
    },
  });
  alsUrl = sw.urlOf('account-lookup');
  await setUpHub(sw.admin.request);
  [payer, payee] = await Promise.all(['payerfsp', 'payeefsp'].map((name) => startPartyDfsp({ name, switchUrl: alsUrl })));
  stuck = await startStuckServer();
  await onboard('payerfsp', payer.url);
  await onboard('payeefsp', payee.url);
  await onboard('stuckfsp', stuck.url);
  // Straight into the built-in oracle's table: its HTTP server is not running in this switch.
  await upsertParties(sw.admin.db, [
    { type: 'MSISDN', id: '27740000001', fspId: 'payeefsp', currency: 'USD' },
    { type: 'MSISDN', id: '27740000002', subId: 'SAVINGS', fspId: 'payeefsp' },
    ...['27740000011', '27740000012', '27740000013'].map((id) => ({ type: 'MSISDN', id, fspId: 'stuckfsp' })),
  ]);
});

after(async () => {
  await Promise.all([payer, payee].map((dfsp) => dfsp?.close()));
  stuck?.close();
  await sw?.stop();
});

const putTo = (dfsp, path, timeoutMs) => dfsp.waitFor((call) => call.method === 'PUT' && call.path === path, timeoutMs);
const errorCode = (call) => call.body.errorInformation.errorCode;

test('the built-in oracle has no HTTP server in this switch', async () => {
  await assert.rejects(fetch(`${builtInUrl}/health`), 'nothing listens at ORACLE_BUILTIN_URL');
});

test('a discovery completes with no notification handler running, and produces no Kafka record', async () => {
  const before = await recordsOnTopics();
  payee.parties.add('MSISDN/27740000001');
  assert.equal((await payer.send('GET', '/parties/MSISDN/27740000001')).status, 202);
  const lookup = await payee.waitFor((call) => call.method === 'GET' && call.path === '/parties/MSISDN/27740000001');
  assert.deepEqual([lookup.headers['fspiop-source'], lookup.headers['fspiop-destination'], lookup.headers['fspiop-uri']],
    ['payerfsp', 'payeefsp', '/parties/MSISDN/27740000001']);
  const answer = await putTo(payer, '/parties/MSISDN/27740000001');
  assert.equal(answer.rawBody, partyAnswer('payeefsp', ['MSISDN', '27740000001']), 'the payee\'s bytes reach the payer unchanged');
  assert.deepEqual([answer.headers['fspiop-source'], answer.headers['fspiop-destination']], ['payeefsp', 'payerfsp']);
  assert.equal(answer.signatureProblem, null, 'the payee\'s own signature still verifies');

  payee.parties.add('MSISDN/27740000002/SAVINGS');
  await payer.send('GET', '/parties/MSISDN/27740000002/SAVINGS');
  assert.equal((await putTo(payer, '/parties/MSISDN/27740000002/SAVINGS')).body.party.partyIdInfo.partySubIdOrType, 'SAVINGS');

  await payer.send('GET', '/parties/MSISDN/27749999999');
  const unknown = await putTo(payer, '/parties/MSISDN/27749999999/error');
  assert.deepEqual([errorCode(unknown), unknown.headers['fspiop-source'], unknown.signatureProblem], ['3204', 'Hub', null]);
  assert.deepEqual(await recordsOnTopics(), before, 'no topic received a record');
});

test('a payee that never answers: one lookup in flight, one queued, the next told 2003 at once; the held ones 2003 at their timeout', async () => {
  const paths = ['27740000011', '27740000012', '27740000013'].map((id) => `/parties/MSISDN/${id}`);
  for (const path of paths) assert.equal((await payer.send('GET', path)).status, 202);
  const refused = await putTo(payer, `${paths[2]}/error`, 5_000);
  assert.equal(errorCode(refused), '2003');
  assert.match(refused.body.errorInformation.errorDescription, /stuckfsp got no answer \(queue_full\)/);
  assert.deepEqual(stuck.received, [`GET ${paths[0]}`], 'only the call in flight reached the payee so far');
  for (const path of paths.slice(0, 2)) {
    const timedOut = await putTo(payer, `${path}/error`, CALLBACK_TIMEOUT_MS * 4);
    assert.deepEqual([errorCode(timedOut), timedOut.headers['fspiop-source'], timedOut.signatureProblem], ['2003', 'Hub', null]);
    assert.match(timedOut.body.errorInformation.errorDescription, /got no answer \(CALLBACK_TIMEOUT\)/);
  }
  assert.deepEqual(stuck.received, paths.slice(0, 2).map((path) => `GET ${path}`), 'the queued call went once the first ended; the refused one never');

  assert.equal(await metricValue('forwards_undeliverable_total', { code: '2003' }), 3);
  assert.equal(await metricValue('callbacks_total', { fsp: 'stuckfsp', endpoint_type: 'FSPIOP_CALLBACK_URL_PARTIES_GET', outcome: 'failed' }), 3);
  assert.equal(await metricValue('callbacks_total', { fsp: 'payeefsp', endpoint_type: 'FSPIOP_CALLBACK_URL_PARTIES_GET', outcome: 'delivered' }), 1);
  assert.equal(await metricValue('callbacks_total', { fsp: 'payeefsp', endpoint_type: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET', outcome: 'delivered' }), 1);
  assert.equal(await metricValue('account_lookup_callbacks_held', {}), 0, 'nothing is held once every call has ended');
});

test('every call the DFSPs received verifies with its sender\'s or the hub\'s key', () => {
  for (const dfsp of [payer, payee]) assert.deepEqual(dfsp.signatureFailures, [], `${dfsp.name}'s signature failures`);
});
