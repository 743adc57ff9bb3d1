// The oracle client against a scripted HTTP oracle: what it sends, and how each kind of
// answer becomes a list, a refusal or unavailability.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createMetrics } from '../../platform/metrics.js';
import {
  OracleRefusalError, OracleUnavailableError, createOracleClient, entriesForParty, participantUrl,
} from '../../account-lookup/oracle-client.js';

let server;
let baseUrl;
const requests = [];
let script = () => [200, { partyList: [] }];

before(async () => {
  server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => { text += chunk; });
    request.on('end', () => {
      requests.push({ method: request.method, url: request.url, headers: request.headers, body: text ? JSON.parse(text) : undefined });
      const [status, body, delayMs = 0] = script(request);
      setTimeout(() => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body));
      }, delayMs);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}/oracle`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function newClient(timeoutMs = 5000) {
  return createOracleClient({ timeoutMs, connectionsMax: 4, metrics: createMetrics({ serviceName: 'test' }) });
}

test('URLs follow Mojaloop\'s oracle templates under a base path', () => {
  const url = participantUrl('http://o:1/base/', { type: 'MSISDN', id: '+27 1' }, { currency: 'USD', partySubIdOrType: undefined });
  assert.equal(url.href, 'http://o:1/base/participants/MSISDN/%2B27%201?currency=USD');
});

test('an oracle\'s list is filtered to the party asked about, as Mojaloop\'s ALS filters it', () => {
  const list = [{ fspId: 'a' }, { fspId: 'b', partySubIdOrType: 'x' }, { fspId: '' }, null, { nope: 1 }];
  assert.deepEqual(entriesForParty(list, { type: 'MSISDN', id: '1' }), [{ fspId: 'a' }]);
  assert.deepEqual(entriesForParty(list, { type: 'MSISDN', id: '1', subId: 'x' }), [{ fspId: 'b', partySubIdOrType: 'x' }]);
  assert.deepEqual(entriesForParty(undefined, { type: 'MSISDN', id: '1' }), []);
});

test('find sends FSPIOP headers and the sub-id in the query; 200, 400 and 404 are answers', async () => {
  const client = newClient();
  script = () => [200, { partyList: [{ fspId: 'payeefsp', currency: 'USD', partySubIdOrType: 'w' }] }];
  const found = await client.find(baseUrl, { party: { type: 'MSISDN', id: '1', subId: 'w' }, source: 'payerfsp' });
  assert.deepEqual(found, [{ fspId: 'payeefsp', currency: 'USD', partySubIdOrType: 'w' }]);
  const sent = requests.at(-1);
  assert.equal(sent.url, '/oracle/participants/MSISDN/1?partySubIdOrType=w');
  assert.equal(sent.headers['fspiop-source'], 'payerfsp');
  assert.match(sent.headers.accept, /participants\+json;version=1/);
  for (const status of [400, 404]) {
    script = () => [status, { errorInformation: { errorCode: '3204', errorDescription: 'no' } }];
    assert.deepEqual(await client.find(baseUrl, { party: { type: 'MSISDN', id: '1' }, source: 'x' }), []);
  }
  await client.close();
});

test('5xx, garbage, timeouts and refused connections make the oracle unavailable', async () => {
  const client = newClient(200);
  const party = { type: 'MSISDN', id: '1' };
  script = () => [503, ''];
  await assert.rejects(client.find(baseUrl, { party, source: 'x' }), OracleUnavailableError);
  script = () => [200, 'not json'];
  await assert.rejects(client.find(baseUrl, { party, source: 'x' }), OracleUnavailableError);
  script = () => [200, { partyList: [] }, 400];
  await assert.rejects(client.find(baseUrl, { party, source: 'x' }), /no answer within 200 ms/);
  await assert.rejects(client.find('http://127.0.0.1:1', { party, source: 'x' }), OracleUnavailableError);
  await client.close();
});

test('register posts fspId, currency and sub-id; a 4xx is a refusal with the oracle\'s reason', async () => {
  const client = newClient();
  script = () => [201];
  await client.register(baseUrl, { party: { type: 'MSISDN', id: '9', subId: 's' }, fspId: 'payeefsp', currency: 'USD', source: 'payeefsp' });
  assert.deepEqual(requests.at(-1).body, { fspId: 'payeefsp', currency: 'USD', partySubIdOrType: 's' });
  assert.equal(requests.at(-1).method, 'POST');
  script = () => [400, { errorInformation: { errorCode: '3003', errorDescription: 'already served by otherfsp' } }];
  const refusal = await client.register(baseUrl, { party: { type: 'MSISDN', id: '9' }, fspId: 'a', source: 'a' }).catch((error) => error);
  assert.ok(refusal instanceof OracleRefusalError);
  assert.equal(refusal.errorInformation.errorDescription, 'already served by otherfsp');
  await client.close();
});

test('remove treats 404 as done; batch registration returns the oracle\'s results', async () => {
  const client = newClient();
  script = () => [404];
  await client.remove(baseUrl, { party: { type: 'MSISDN', id: '9' }, source: 'a' });
  assert.equal(requests.at(-1).method, 'DELETE');
  const partyList = [{ partyId: { partyIdType: 'MSISDN', partyIdentifier: '9', fspId: 'a' } }];
  script = () => [201, { partyList }];
  assert.deepEqual(await client.registerBatch(baseUrl, { requestId: 'r', partyList: [partyList[0].partyId], source: 'a' }), partyList);
  assert.equal(requests.at(-1).url, '/oracle/participants');
  script = () => [201, {}];
  await assert.rejects(client.registerBatch(baseUrl, { requestId: 'r', partyList: [], source: 'a' }), OracleUnavailableError);
  await client.close();
});

test('a find at the built-in oracle\'s URL is read in process, filtered as its HTTP answer; others still go over HTTP', async () => {
  const reads = [];
  const rows = { 'MSISDN/5': { fspId: 'payeefsp', currency: 'USD' }, 'MSISDN/6': { fspId: 'payeefsp', partySubIdOrType: 'w' } };
  const metrics = createMetrics({ serviceName: 'test' });
  const client = createOracleClient({
    timeoutMs: 5000, connectionsMax: 4, metrics,
    builtIn: { url: baseUrl, token: 'a-token-of-sixteen-chars', findParty: async (query) => { reads.push(query); return rows[`${query.type}/${query.id}`] ?? null; } },
  });
  const sentBefore = requests.length;
  assert.deepEqual(await client.find(baseUrl, { party: { type: 'MSISDN', id: '5' }, currency: 'USD', source: 'payerfsp' }), [{ fspId: 'payeefsp', currency: 'USD' }]);
  assert.deepEqual(await client.find(`${baseUrl}/`, { party: { type: 'MSISDN', id: '6', subId: 'w' }, source: 'payerfsp' }), [{ fspId: 'payeefsp', partySubIdOrType: 'w' }]);
  assert.deepEqual(await client.find(baseUrl, { party: { type: 'MSISDN', id: '6' }, source: 'payerfsp' }), [], 'an entry for another sub-id is not this party');
  assert.deepEqual(await client.find(baseUrl, { party: { type: 'MSISDN', id: '7' }, source: 'payerfsp' }), []);
  assert.deepEqual(reads, [
    { type: 'MSISDN', id: '5', subId: undefined, currency: 'USD' }, { type: 'MSISDN', id: '6', subId: 'w', currency: undefined },
    { type: 'MSISDN', id: '6', subId: undefined, currency: undefined }, { type: 'MSISDN', id: '7', subId: undefined, currency: undefined },
  ]);
  assert.equal(requests.length, sentBefore, 'no HTTP request reached the oracle server');
  const observed = (await metrics.registry.getSingleMetric('account_lookup_oracle_request_duration_seconds').get()).values
    .find((value) => value.metricName.endsWith('_count') && value.labels.operation === 'find' && value.labels.outcome === 'ok');
  assert.equal(observed.value, 4);

  script = () => [200, { partyList: [{ fspId: 'otherfsp' }] }];
  const elsewhere = baseUrl.replace('/oracle', '/other');
  assert.deepEqual(await client.find(elsewhere, { party: { type: 'MSISDN', id: '5' }, source: 'payerfsp' }), [{ fspId: 'otherfsp' }]);
  assert.equal(requests.at(-1).url, '/other/participants/MSISDN/5');
  await client.close();
});

test('a built-in oracle read that fails or does not finish in time makes the oracle unavailable', async () => {
  const party = { type: 'MSISDN', id: '5' };
  const failing = createOracleClient({
    timeoutMs: 5000, connectionsMax: 4, metrics: createMetrics({ serviceName: 'test' }),
    builtIn: { url: baseUrl, findParty: async () => { throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }); } },
  });
  await assert.rejects(failing.find(baseUrl, { party, source: 'x' }), (error) => error instanceof OracleUnavailableError && /ECONNREFUSED/.test(error.message));
  const hanging = createOracleClient({
    timeoutMs: 50, connectionsMax: 4, metrics: createMetrics({ serviceName: 'test' }),
    builtIn: { url: baseUrl, findParty: () => new Promise(() => {}) },
  });
  await assert.rejects(hanging.find(baseUrl, { party, source: 'x' }), (error) => error instanceof OracleUnavailableError && /no answer within 50 ms/.test(error.message));
  await Promise.all([failing.close(), hanging.close()]);
});
