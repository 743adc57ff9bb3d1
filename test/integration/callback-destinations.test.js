// Where the switch sends callbacks, with a real notification handler (test/support/switch.js:
// its own database, topics and admin API), real Kafka and real listening servers:
//   - a DFSP whose endpoint is a name that resolves to loopback (`localhost`) is not called by a
//     switch that does not allow loopback: nothing reaches the server listening there, the
//     payer of a forward to it hears 3201, and the switch goes on delivering;
//   - a URL template with a placeholder in its host is refused by the admin API, and a row of
//     that kind that is already in the database is not sent to the host a request names;
//   - a URL of another scheme, refused by the admin API too, that reached the database directly
//     is refused when the callback is sent, though it points at an address the switch may call;
//   - a switch that allows loopback (the local runtime's setting) calls the same endpoint.
// The refusing switch allows one address, 127.0.0.2, where the payer listens, so that the
// test can see what the payer is told; loopback as such (127.0.0.1, ::1) is not allowed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import pino from 'pino';
import { startSwitch } from '../support/switch.js';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startRecordingServer } from '../support/recording-server.js';
import { testConfig, uniqueSuffix } from '../support/environment.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { TOPIC, topicName } from '../../platform/kafka/topics.js';
import { findParticipantByName } from '../../ledger/repositories/participants.js';
import { upsertEndpoint } from '../../ledger/repositories/onboarding.js';

const config = testConfig();
let sw;
let producer;
let internal;
let payer;

/** A server on 127.0.0.1 standing for what a callback must not reach: it counts connections, answers 200. */
async function startCountingServer() {
  const requests = [];
  let connections = 0;
  const server = http.createServer((request, response) => {
    requests.push(`${request.method} ${request.url}`);
    response.writeHead(200).end();
  });
  server.on('connection', () => { connections += 1; });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: server.address().port,
    requests,
    connections: () => connections,
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}

function produce(target, events) {
  const topic = topicName(target.prefix, TOPIC.notificationEvent);
  return producer.produce(events.map((event) => ({ topic, key: event.id, value: encodeEvent(event) })));
}

/** A hub-originated transfer callback to `to`. */
const hubEvent = (id, to) => ({
  id, type: 'notification', action: 'state', from: 'Hub', to, headers: {}, body: { transferState: 'COMMITTED' }, at: Date.now(),
  callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', resource: 'transfers', templateParams: { transferId: id } },
});

/** The payer's GET /parties forwarded to `to`, with the error callback the payer must get if it cannot go. */
const lookupForward = (partyIdentifier, to) => {
  const templateParams = { partyIdType: 'MSISDN', partyIdentifier };
  return {
    id: `MSISDN/${partyIdentifier}`, type: 'notification', action: 'lookup', from: 'payerfsp', to, at: Date.now(),
    headers: { 'fspiop-source': 'payerfsp', 'fspiop-destination': to, date: new Date().toUTCString(), accept: 'application/vnd.interoperability.parties+json;version=1' },
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_GET', templateParams, method: 'GET', resource: 'parties' },
    ifUndeliverable: { to: 'payerfsp', callback: { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR', templateParams, method: 'PUT', resource: 'parties' } },
  };
};

/** callbacks_total of the switch's notification handler as { 'fsp/outcome': n }. */
async function callbackCounts(target) {
  const text = await (await fetch(`${target.urlOf('notification')}/metrics`)).text();
  const counts = {};
  for (const match of text.matchAll(/^callbacks_total\{([^}]*)\} (\d+)/gm)) {
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
    counts[`${labels.fsp}/${labels.outcome}`] = (counts[`${labels.fsp}/${labels.outcome}`] ?? 0) + Number(match[2]);
  }
  return counts;
}

async function waitFor(what, predicate, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${sw?.processes.get('notification-0')?.output.slice(-3000) ?? ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

before(async () => {
  internal = await startCountingServer();
  payer = await startRecordingServer({ name: 'payerfsp', host: '127.0.0.2' });
  sw = await startSwitch({ components: ['notification'], env: { CALLBACK_ALLOWED_CIDRS: '127.0.0.2/32' } });
  await setUpHub(sw.admin.request);
  await onboardDfsp(sw.admin.request, { name: 'payerfsp', endpointBase: payer.url, fundsIn: '' });
  // Registration takes the name as it is: only where it resolves to is the switch's to judge.
  await onboardDfsp(sw.admin.request, { name: 'namefsp', endpointBase: `http://localhost:${internal.port}`, fundsIn: '' });
  await onboardDfsp(sw.admin.request, { name: 'hostfsp', fundsIn: '' });
  await onboardDfsp(sw.admin.request, { name: 'schemefsp', fundsIn: '' });
  producer = createProducer({ kafka: config.kafka, logger: pino({ level: 'warn' }) });
  await producer.connect();
});

after(async () => {
  await producer?.disconnect().catch(() => {});
  await sw?.stop();
  await internal?.close();
  await payer?.close();
});

test('an endpoint named localhost is not called by a switch that does not allow loopback; its payer hears 3201 and the switch goes on', { timeout: 40_000 }, async () => {
  const run = uniqueSuffix();
  await produce(sw, [hubEvent(`state-${run}`, 'namefsp'), lookupForward(`1${Date.now()}`, 'namefsp')]);
  const told = await payer.waitFor((call) => call.method === 'PUT' && /^\/parties\/MSISDN\/\d+\/error$/.test(call.path));
  assert.equal(told.body.errorInformation.errorCode, '3201');
  assert.match(told.body.errorInformation.errorDescription, /GET FSPIOP_CALLBACK_URL_PARTIES_GET to namefsp is not allowed/);
  assert.equal(told.headers['fspiop-source'], 'Hub');
  await waitFor('both refusals to be counted', async () => (await callbackCounts(sw))['namefsp/refused'] === 2);

  // The switch keeps running and keeps delivering where it may.
  await produce(sw, [hubEvent(`after-${run}`, 'payerfsp')]);
  await payer.waitFor((call) => call.path === `/transfers/after-${run}`);
  assert.equal(sw.processes.get('notification-0').exitCode, null);
  assert.equal((await fetch(`${sw.urlOf('notification')}/health`)).status, 200);
  assert.equal(internal.connections(), 0, 'nothing connected to the server localhost points at');
  const output = sw.processes.get('notification-0').output;
  assert.match(output, /callback refused: its destination is not allowed/);
  assert.match(output, /localhost resolves to (127\.0\.0\.1|::1), which is a loopback address, not a callback destination unless CALLBACK_ALLOWED_CIDRS allows it/);
  assert.equal((await callbackCounts(sw))['namefsp/refused'], 2, 'not retried: a refusal is final');
});

test('a placeholder in the host is refused at registration, and such a row already stored is not sent to the host a request names', { timeout: 40_000 }, async () => {
  // The host a payer would choose: the payer's own server, an address this switch may call.
  const template = `http://{{partyIdentifier}}:${new URL(payer.url).port}/parties/{{partyIdType}}/{{partyIdentifier}}`;
  const registered = await sw.admin.request('POST', '/participants/hostfsp/endpoints', { type: 'FSPIOP_CALLBACK_URL_PARTIES_GET', value: template });
  assert.equal(registered.status, 400);
  assert.equal(registered.body.errorInformation.errorCode, '3100');
  assert.match(registered.body.errorInformation.errorDescription, /FSPIOP_CALLBACK_URL_PARTIES_GET refused: a placeholder before the path \(in the scheme, host or port\)/);
  assert.deepEqual((await sw.admin.request('GET', '/participants/hostfsp/endpoints')).body, [], 'nothing was stored');

  // A row from before the rule, put straight into the database.
  const participant = await findParticipantByName(sw.admin.db, 'hostfsp');
  await upsertEndpoint(sw.admin.db, { participantId: participant.id, type: 'FSPIOP_CALLBACK_URL_PARTIES_GET', value: template, now: new Date() });
  assert.equal((await sw.admin.request('GET', '/participants/hostfsp/endpoints')).body[0].value, template);

  await produce(sw, [lookupForward('127.0.0.2', 'hostfsp')]);
  const told = await payer.waitFor((call) => call.method === 'PUT' && call.path === '/parties/MSISDN/127.0.0.2/error');
  assert.equal(told.body.errorInformation.errorCode, '3201');
  await waitFor('the refusal to be counted', async () => (await callbackCounts(sw))['hostfsp/refused'] === 1);
  assert.deepEqual(payer.received.filter((call) => call.method === 'GET'), [], 'the GET never reached the host the request named');
  assert.match(sw.processes.get('notification-0').output, /"refused":"placeholder_host"/);
});

test('a URL of another scheme, written straight to the database, is refused at send time: never called, not retried, its payer hears 3201', { timeout: 40_000 }, async () => {
  // The payer's own server, an address this switch may call: only the URL rules stand in the way.
  const template = `ftp://127.0.0.2:${new URL(payer.url).port}/parties/{{partyIdType}}/{{partyIdentifier}}`;
  const registered = await sw.admin.request('POST', '/participants/schemefsp/endpoints', { type: 'FSPIOP_CALLBACK_URL_PARTIES_GET', value: template });
  assert.equal(registered.status, 400);
  assert.match(registered.body.errorInformation.errorDescription, /FSPIOP_CALLBACK_URL_PARTIES_GET must be an http or https URL, not ftp:/);
  const participant = await findParticipantByName(sw.admin.db, 'schemefsp');
  await upsertEndpoint(sw.admin.db, { participantId: participant.id, type: 'FSPIOP_CALLBACK_URL_PARTIES_GET', value: template, now: new Date() });
  assert.equal((await sw.admin.request('GET', '/participants/schemefsp/endpoints')).body[0].value, template, 'the admin API serves it');

  const partyIdentifier = `2${Date.now()}`;
  await produce(sw, [lookupForward(partyIdentifier, 'schemefsp')]);
  const told = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/parties/MSISDN/${partyIdentifier}/error`);
  // 3201 (not allowed), where a call that was attempted and got no answer would be 2003.
  assert.equal(told.body.errorInformation.errorCode, '3201');
  assert.match(told.body.errorInformation.errorDescription, /GET FSPIOP_CALLBACK_URL_PARTIES_GET to schemefsp is not allowed/);
  await waitFor('the refusal to be counted', async () => (await callbackCounts(sw))['schemefsp/refused'] === 1);
  assert.deepEqual(payer.received.filter((call) => call.path.includes(partyIdentifier) && call.method === 'GET'), [], 'the GET was never sent');
  const output = sw.processes.get('notification-0').output;
  assert.match(output, /"refused":"not_http"/);
  assert.match(output, /the callback URL ftp:\/\/127\.0\.0\.2:\d+\/parties\/MSISDN\/\d+ must be an http or https URL, not ftp:/);
  assert.equal((await callbackCounts(sw))['schemefsp/failed'], undefined, 'never attempted, so never failed or retried');
});

test('a switch that allows loopback, as the local runtime does, calls the same endpoint by name', { timeout: 60_000 }, async (t) => {
  const local = await startSwitch({ components: ['notification'] });
  t.after(() => local.stop());
  await setUpHub(local.admin.request);
  await onboardDfsp(local.admin.request, { name: 'namefsp', endpointBase: `http://localhost:${internal.port}`, fundsIn: '' });
  const id = `allowed-${uniqueSuffix()}`;
  await produce(local, [hubEvent(id, 'namefsp')]);
  await waitFor('the callback to arrive', () => internal.requests.includes(`PUT /transfers/${id}`));
  await waitFor('the delivery to be counted', async () => (await callbackCounts(local))['namefsp/delivered'] === 1);
});
