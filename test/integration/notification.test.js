// The notification handler as a child process against real Kafka, the real admin API over a
// fresh database, and real HTTP servers standing in for the DFSPs: forwards and hub calls
// arrive with the right headers and bytes, one id's callbacks keep their order, a dead, down
// or endpoint-less DFSP holds no one else up, ten thousand callbacks are each delivered once
// over no more connections per DFSP than the in-flight bound, and a SIGKILL loses no callback and repeats only what the
// killed handler had sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { onboardDfsp, setUpHub, startAdminApi } from '../support/admin-api.js';
import { createTestTopics, operatorTokenEnv, testConfig, testProcessEnv, uniqueSuffix } from '../support/environment.js';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { TOPIC, topicDefinitions, topicName } from '../../platform/kafka/topics.js';
import { freePort } from '../../scripts/lib/ports.js';
import { hubSigningEnv } from '../support/jws-keys.js';
import { LOOPBACK_CALLBACK_ENV } from '../support/callback-destinations.js';
import { publicKeyFromPem, verifyFspiopMessage } from '../../platform/fspiop/jws.js';

const HANDLER = fileURLToPath(new URL('../../handlers/notification/main.js', import.meta.url));
const CALLBACK_TIMEOUT_MS = 4_000;
const SLOW_ANSWER_MS = 40;
// The default, set here so that the throughput test can hold the handler to it: it is also the
// most connections the handler opens to one DFSP origin.
const IN_FLIGHT_MAX_PER_FSP = 64;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const config = testConfig();
const env = {};
let admin;
let producer;
let handler;
const receivers = {};

async function waitFor(description, predicate, timeoutMs, intervalMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}\n${handler?.output.slice(-3000) ?? ''}`);
    await sleep(intervalMs);
  }
}

/**
 * A DFSP's callback server: records every request; answers 200 after `delayMs`, or never.
 * `connectionsMax()` is the most connections open to it at once since `markConnections()`.
 */
async function startReceiver({ answer = true, delayMs = 0 } = {}) {
  const received = [];
  let connections = 0;
  let connectionsMax = 0;
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method, path: request.url, headers: request.headers, body: Buffer.concat(chunks), at: Date.now() });
      if (!answer) return;
      const reply = () => { response.writeHead(200); response.end(); };
      if (delayMs > 0) setTimeout(reply, delayMs);
      else reply();
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket) => {
    connections += 1;
    connectionsMax = Math.max(connectionsMax, connections);
    socket.on('close', () => { connections -= 1; });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received,
    connectionsMax: () => connectionsMax,
    markConnections: () => { connectionsMax = connections; },
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

function startHandler() {
  const child = spawn(process.execPath, [HANDLER], { env: { ...testProcessEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  child.stdout.on('data', (chunk) => { child.output += chunk; });
  child.stderr.on('data', (chunk) => { child.output += chunk; });
  child.exited = once(child, 'exit');
  return child;
}

async function waitHealthy(child) {
  await waitFor('the handler to be healthy', async () => {
    if (child.exitCode !== null) throw new Error(`handler exited ${child.exitCode}:\n${child.output}`);
    try {
      return (await fetch(`http://127.0.0.1:${env.PORT}/health`)).status === 200;
    } catch {
      return false;
    }
  }, 30_000, 100);
}

/** callbacks_total as { 'fsp/outcome': n }, summed over endpoint types, from the handler's /metrics. */
async function callbackCounts() {
  const text = await (await fetch(`http://127.0.0.1:${env.PORT}/metrics`)).text();
  const counts = {};
  for (const match of text.matchAll(/^callbacks_total\{([^}]*)\} (\d+)/gm)) {
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
    const key = `${labels.fsp}/${labels.outcome}`;
    counts[key] = (counts[key] ?? 0) + Number(match[2]);
  }
  return counts;
}

function produce(events) {
  const topic = topicName(env.KAFKA_TOPIC_PREFIX, TOPIC.notificationEvent);
  return producer.produce(events.map((event) => ({ topic, key: event.id, value: encodeEvent(event) })));
}

const transferCallback = (endpointType, method, transferId) => ({
  endpointType, method, resource: 'transfers', templateParams: { transferId },
});

/** A hub-originated transfer callback: no headers, the body as JSON. */
function hubEvent({ id, to, action = 'state', method = 'PUT', endpointType = 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', body }) {
  return { id, type: 'notification', action, from: 'Hub', to, headers: {}, body, at: Date.now(), callback: transferCallback(endpointType, method, id) };
}

const idFromPath = (path) => path.split('/')[2];

before(async () => {
  admin = await startAdminApi();
  await setUpHub(admin.request);
  for (const [name, options] of Object.entries({ payer: {}, payee: {}, slow: { delayMs: SLOW_ANSWER_MS }, dead: { answer: false }, down: {} })) {
    receivers[name] = await startReceiver(options);
  }
  receivers.down.close();
  for (const name of ['payer', 'payee', 'slow', 'dead', 'down']) {
    await onboardDfsp(admin.request, { name: `${name}fsp`, endpointBase: receivers[name].url, fundsIn: '' });
  }
  await onboardDfsp(admin.request, { name: 'barefsp', fundsIn: '' });
  Object.assign(env, {
    DB_PASSWORD: config.db.password, KAFKA_BROKERS: config.kafka.brokers,
    KAFKA_TOPIC_PREFIX: await createTestTopics(() => createAdminClient(config.kafka)),
    KAFKA_GROUP_PREFIX: `test-${uniqueSuffix()}`, ADMIN_API_URL: admin.baseUrl, ...operatorTokenEnv(['dfspDirectoryRead']), PORT: String(await freePort()),
    CALLBACK_TIMEOUT_MS: String(CALLBACK_TIMEOUT_MS), CALLBACK_RETRIES: '1', CALLBACK_RETRY_BACKOFF_MS: '50', LOG_LEVEL: 'warn',
    CALLBACK_IN_FLIGHT_MAX_PER_FSP: String(IN_FLIGHT_MAX_PER_FSP),
    // Failed callbacks wait on the retry topic longer than this file runs, so each counts once
    // here; notification-retry.test.js covers the retry topic.
    NOTIFICATION_RETRY_BACKOFF_MS: '600000',
    JWS_VERIFICATION: 'required', ...hubSigningEnv(), ...LOOPBACK_CALLBACK_ENV,
  });
  producer = createProducer({ kafka: config.kafka, logger: pino({ level: 'warn' }) });
  await producer.connect();
  handler = startHandler();
  await waitHealthy(handler);
});

after(async () => {
  if (handler && handler.exitCode === null && handler.signalCode === null) {
    handler.kill('SIGKILL');
    await handler.exited;
  }
  await producer?.disconnect().catch(() => {});
  for (const receiver of Object.values(receivers)) receiver.close();
  const client = createAdminClient(config.kafka);
  await Promise.all(topicDefinitions(env.KAFKA_TOPIC_PREFIX).map(({ name }) => deleteTopic(client, name).catch(() => {})));
  client.disconnect();
  await admin?.stop();
});

test('a forward reaches the payee with the payer\'s FSPIOP headers, signature and body bytes', { timeout: 20_000 }, async () => {
  const transferId = `fwd-${uniqueSuffix()}`;
  const rawBody = `{ "transferId":"${transferId}",\n  "amount": {"amount": "10.50", "currency":"USD"}, "note":"é" }`;
  const headers = {
    'content-type': 'application/vnd.interoperability.transfers+json;version=1.1',
    accept: 'application/vnd.interoperability.transfers+json;version=1',
    date: 'Mon, 02 Mar 2026 09:00:00 GMT', 'fspiop-source': 'payerfsp', 'fspiop-destination': 'payeefsp',
    'fspiop-signature': '{"signature":"sig-bytes","protectedHeader":"eyJhbGciOiJSUzI1NiJ9"}',
  };
  await produce([{
    id: transferId, type: 'notification', action: 'prepare', from: 'payerfsp', to: 'payeefsp', headers, rawBody,
    body: JSON.parse(rawBody), at: Date.now(), callback: transferCallback('FSPIOP_CALLBACK_URL_TRANSFER_POST', 'POST', transferId),
  }]);
  const request = await waitFor('the forwarded POST', () => receivers.payee.received.find((r) => r.body.includes(transferId)), 15_000);
  assert.equal(request.method, 'POST');
  assert.equal(request.path, '/transfers');
  assert.deepEqual(request.body, Buffer.from(rawBody, 'utf8'), 'the body is byte-identical');
  for (const name of Object.keys(headers)) assert.equal(request.headers[name], headers[name], name);
  assert.equal(request.headers['fspiop-uri'], '/transfers');
  assert.equal(request.headers['fspiop-http-method'], 'POST');
  assert.equal(request.headers['content-length'], String(Buffer.byteLength(rawBody)));
  assert.equal(request.headers.host, new URL(receivers.payee.url).host);
});

test('hub-originated PUT and PATCH come from the hub, and templates and base-URL paths are rendered', { timeout: 20_000 }, async () => {
  const transferId = `hub-${uniqueSuffix()}`;
  const error = { errorInformation: { errorCode: '3303', errorDescription: 'Transfer expired' } };
  const quoteId = `q-${uniqueSuffix()}`;
  await produce([
    hubEvent({ id: transferId, to: 'payerfsp', action: 'error', endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', body: error }),
    hubEvent({ id: transferId, to: 'payeefsp', action: 'patch', method: 'PATCH', body: { transferState: 'COMMITTED' } }),
    { id: `p-${transferId}`, type: 'notification', action: 'put', from: 'Hub', to: 'payerfsp', headers: {}, body: { party: {} },
      callback: { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_PUT', method: 'PUT', resource: 'parties',
        templateParams: { partyIdType: 'MSISDN', partyIdentifier: `+44 20/${transferId}` } } },
    { id: quoteId, type: 'notification', action: 'put', from: 'Hub', to: 'payerfsp', headers: {}, body: error,
      callback: { endpointType: 'FSPIOP_CALLBACK_URL_QUOTES', method: 'PUT', resource: 'quotes', templateParams: {}, path: `/quotes/${quoteId}/error` } },
  ]);
  const put = await waitFor('the hub PUT …/error', () => receivers.payer.received.find((r) => r.path === `/transfers/${transferId}/error`), 15_000);
  const patch = await waitFor('the hub PATCH', () => receivers.payee.received.find((r) => r.path === `/transfers/${transferId}`), 15_000);
  assert.equal(put.method, 'PUT');
  assert.deepEqual(JSON.parse(put.body), error);
  assert.equal(put.headers['fspiop-source'], 'Hub');
  assert.equal(put.headers['fspiop-destination'], 'payerfsp');
  assert.equal(put.headers['content-type'], 'application/vnd.interoperability.transfers+json;version=1.1');
  assert.equal(put.headers['fspiop-uri'], `/transfers/${transferId}/error`);
  assert.equal(put.headers['fspiop-http-method'], 'PUT');
  assert.equal(put.headers.accept, undefined);
  assert.ok(Math.abs(Date.parse(put.headers.date) - Date.now()) < 10_000 && /GMT$/.test(put.headers.date), put.headers.date);
  assert.equal(patch.method, 'PATCH');
  assert.deepEqual([patch.headers['fspiop-destination'], patch.headers['fspiop-http-method'], patch.headers.accept], ['payeefsp', 'PATCH', undefined]);
  assert.deepEqual(JSON.parse(patch.body), { transferState: 'COMMITTED' });
  const encodedParty = `/parties/MSISDN/${encodeURIComponent(`+44 20/${transferId}`)}`;
  const party = await waitFor('the parties PUT', () => receivers.payer.received.find((r) => r.path === encodedParty), 15_000);
  assert.equal(party.headers['content-type'], 'application/vnd.interoperability.parties+json;version=1.1');
  const quote = await waitFor('the quotes PUT', () => receivers.payer.received.find((r) => r.path === `/quotes/${quoteId}/error`), 15_000);
  assert.equal(quote.headers['fspiop-uri'], `/quotes/${quoteId}/error`);
  await assertSignedByHub([put, patch, party, quote]);
});

/** Each call verifies with the hub's key as the admin API publishes it, over the bytes and path received. */
async function assertSignedByHub(calls) {
  const published = await admin.request('GET', '/participants/Hub/jwsKeys');
  assert.equal(published.status, 200, published.text);
  const keys = published.body.map((key) => publicKeyFromPem(key.publicKey));
  assert.equal(keys.length, 1);
  for (const call of calls) {
    const problem = await verifyFspiopMessage({ method: call.method, uri: call.path, headers: call.headers, body: call.body, keys });
    assert.equal(problem, null, `${call.method} ${call.path}`);
    assert.equal(JSON.parse(Buffer.from(JSON.parse(call.headers['fspiop-signature']).protectedHeader, 'base64url')).alg, 'RS256');
  }
}

test('with JWS required, a notification handler without the hub\'s signing key stops at start-up', { timeout: 20_000 }, async () => {
  const child = spawn(process.execPath, [HANDLER], {
    env: { ...testProcessEnv(), ...env, PORT: String(await freePort()), JWS_HUB_SIGNING_KEY_PATH: '' }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk) => { output += chunk; });
  const [code] = await once(child, 'exit');
  assert.notEqual(code, 0);
  assert.match(output, /JWS_HUB_SIGNING_KEY_PATH is required/);
});

test('the callbacks of one transfer arrive in the order they were consumed', { timeout: 20_000 }, async () => {
  const run = uniqueSuffix();
  const transfers = Array.from({ length: 50 }, (_, index) => `order-${run}-${index}`);
  const events = [];
  for (let seq = 0; seq < 6; seq += 1) {
    for (const id of transfers) events.push(hubEvent({ id, to: 'payerfsp', method: seq % 2 ? 'PATCH' : 'PUT', body: { seq } }));
  }
  await produce(events);
  const mine = () => receivers.payer.received.filter((r) => r.path.startsWith(`/transfers/order-${run}-`));
  await waitFor('every ordered callback', () => mine().length >= events.length, 15_000);
  const seen = new Map();
  for (const request of mine()) {
    const id = idFromPath(request.path);
    seen.set(id, [...(seen.get(id) ?? []), JSON.parse(request.body).seq]);
  }
  assert.equal(seen.size, transfers.length);
  for (const [id, sequence] of seen) assert.deepEqual(sequence, [0, 1, 2, 3, 4, 5], id);
  assert.deepEqual(mine().filter((r) => JSON.parse(r.body).seq === 1).map((r) => r.method), transfers.map(() => 'PATCH'));
});

test('a DFSP that never answers, one that is down and one without endpoints do not delay a healthy DFSP', { timeout: 30_000 }, async (t) => {
  const run = uniqueSuffix();
  const events = [];
  for (let index = 0; index < 100; index += 1) {
    events.push(hubEvent({ id: `ok-${run}-${index}`, to: 'payerfsp' }));
    if (index % 5 === 0) {
      for (const to of ['deadfsp', 'downfsp', 'barefsp', 'ghostfsp']) events.push(hubEvent({ id: `${to}-${run}-${index}`, to }));
    }
  }
  const before = await callbackCounts();
  const producedAt = Date.now();
  await produce(events);
  const healthy = () => receivers.payer.received.filter((r) => r.path.startsWith(`/transfers/ok-${run}-`));
  await waitFor('the healthy DFSP\'s callbacks', () => healthy().length >= 100, 15_000);
  const healthyMs = Math.max(...healthy().map((r) => r.at)) - producedAt;
  t.diagnostic(`100 healthy callbacks all arrived ${healthyMs} ms after producing; the dead DFSP's timeout is ${CALLBACK_TIMEOUT_MS} ms`);
  assert.ok(healthyMs < CALLBACK_TIMEOUT_MS / 2, `healthy callbacks arrived within ${healthyMs} ms`);

  const delta = (after, key) => (after[key] ?? 0) - (before[key] ?? 0);
  const counts = await waitFor('every callback to reach an outcome', async () => {
    const now = await callbackCounts();
    return delta(now, 'deadfsp/failed') >= 20 ? now : null;
  }, 2 * CALLBACK_TIMEOUT_MS + 5_000, 100);
  assert.equal(delta(counts, 'payerfsp/delivered'), 100);
  assert.equal(delta(counts, 'deadfsp/failed'), 20);
  assert.equal(delta(counts, 'downfsp/failed'), 20);
  assert.equal(delta(counts, 'barefsp/no_endpoint'), 20);
  assert.equal(delta(counts, 'unknown/no_endpoint'), 20, 'a DFSP the admin API does not know is labelled "unknown"');
  assert.equal(receivers.dead.received.filter((r) => r.path.includes(run)).length, 20, 'the dead DFSP accepted each call and never answered');

  // Its circuit is now open: a new batch with callbacks to it is not held up even once.
  const again = [hubEvent({ id: `dead-again-${run}`, to: 'deadfsp' }), hubEvent({ id: `ok-again-${run}`, to: 'payerfsp' })];
  const againAt = Date.now();
  await produce(again);
  await waitFor('the next healthy callback', () => receivers.payer.received.some((r) => r.path === `/transfers/ok-again-${run}`), 5_000);
  await waitFor('the dead DFSP\'s callback to fail fast', async () => delta(await callbackCounts(), 'deadfsp/failed') >= 21, 5_000);
  t.diagnostic(`with the circuit open, a batch with a dead-DFSP callback finished in ${Date.now() - againAt} ms`);
});

test('throughput: ten thousand callbacks to two fast DFSPs are each delivered exactly once, over no more connections than the in-flight bound', { timeout: 40_000 }, async (t) => {
  const run = uniqueSuffix();
  const count = 10_000;
  const dfsps = ['payer', 'payee'];
  const events = Array.from({ length: count }, (_, index) => hubEvent({ id: `tp-${run}-${index}`, to: `${dfsps[index % 2]}fsp` }));
  const before = await callbackCounts();
  for (const name of dfsps) receivers[name].markConnections();
  const startedAt = Date.now();
  await produce(events);
  const producedMs = Date.now() - startedAt;
  const arrived = () => dfsps.flatMap((name) => receivers[name].received).filter((r) => r.path.startsWith(`/transfers/tp-${run}-`));
  const delivered = (counts, name) => (counts[`${name}fsp/delivered`] ?? 0) - (before[`${name}fsp/delivered`] ?? 0);
  // Done when the handler has counted every delivery, so that a repeat would have arrived by then.
  const counts = await waitFor('every throughput callback to be counted',
    async () => { const now = await callbackCounts(); return dfsps.every((name) => delivered(now, name) >= count / 2) ? now : null; }, 30_000, 100);
  const times = arrived().map((r) => r.at);
  const spanMs = Math.max(...times) - Math.min(...times);
  t.diagnostic(`${count} callbacks: produced in ${producedMs} ms, all delivered ${Date.now() - startedAt} ms after the first produce; `
    + `${Math.round(count / (spanMs / 1000))} callbacks/s from first to last arrival; at most `
    + `${dfsps.map((name) => receivers[name].connectionsMax()).join(' and ')} connections open at once to each DFSP`);

  for (const name of dfsps) assert.equal(delivered(counts, name), count / 2, `${name}fsp: every callback counted delivered once`);
  assert.equal(arrived().length, count, 'no callback was sent twice');
  for (const name of dfsps) {
    const expected = events.filter((event) => event.to === `${name}fsp`).map((event) => event.id).sort();
    const got = receivers[name].received.filter((r) => r.path.startsWith(`/transfers/tp-${run}-`)).map((r) => idFromPath(r.path)).sort();
    assert.deepEqual(got, expected, `${name}fsp got each of its callbacks, once`);
    // Calls to one DFSP go out side by side, over kept-alive connections, and never over more
    // connections than CALLBACK_IN_FLIGHT_MAX_PER_FSP (one call per connection at a time).
    const connectionsMax = receivers[name].connectionsMax();
    assert.ok(connectionsMax > 1 && connectionsMax <= IN_FLIGHT_MAX_PER_FSP, `${name}fsp: ${connectionsMax} connections open at once`);
  }
});

test('a handler killed mid-stream and restarted delivers every callback at least once', { timeout: 40_000 }, async (t) => {
  const run = uniqueSuffix();
  const count = 3_000;
  await produce(Array.from({ length: count }, (_, index) => hubEvent({ id: `kill-${run}-${index}`, to: 'slowfsp' })));
  const mine = () => receivers.slow.received.filter((r) => r.path.startsWith(`/transfers/kill-${run}-`));
  await waitFor('part of the stream to arrive', () => mine().length >= 300, 15_000);
  handler.kill('SIGKILL');
  await handler.exited;
  const atKill = mine().length;
  assert.ok(atKill < count, `killed mid-stream (${atKill} of ${count} had arrived)`);

  const restartedAt = Date.now();
  handler = startHandler();
  await waitHealthy(handler);
  await waitFor('every id to arrive', () => new Set(mine().map((r) => idFromPath(r.path))).size >= count, 30_000, 100);
  const duplicates = mine().length - count;
  t.diagnostic(`killed after ${atKill} callbacks; the restarted handler completed the stream ${Date.now() - restartedAt} ms after its start `
    + `(the killed member's session must expire first); ${duplicates} callbacks were sent twice`);
  // A callback is sent again only if the killed handler had sent it without committing its
  // offset: the restarted handler repeats those once, and sends nothing twice of its own. Its
  // consumer gets no partition before the killed member's session (10 s) expires, so nothing it
  // sends arrives within a second of the kill; the second covers calls the killed handler had
  // written in full that this process records just after seeing it exit.
  const copies = new Map();
  for (const request of mine()) {
    const id = idFromPath(request.path);
    copies.set(id, [...(copies.get(id) ?? []), request.at]);
  }
  const repeated = [...copies].filter(([, times]) => times.length > 1);
  assert.equal(repeated.length, duplicates, 'no callback was sent three times');
  for (const [id, times] of repeated) {
    assert.equal(times.length, 2, id);
    assert.ok(times[0] < restartedAt + 1_000, `${id}: its first copy came from the killed handler`);
  }

  handler.kill('SIGTERM');
  const [code] = await handler.exited;
  assert.equal(code, 0, `SIGTERM stops the handler cleanly:\n${handler.output.slice(-2000)}`);
});
