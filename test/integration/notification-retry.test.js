// The notification handler as a child process against real Kafka, the real admin API over a
// fresh database and real HTTP DFSP servers: a callback to a DFSP that is down is not dropped
// but arrives through topic-notification-retry once the DFSP is back, signed by the hub; and a
// notification whose `to` is a flood of commas (a junk FSPIOP-Source) is an unknown DFSP,
// counted and skipped, so the next normal callback goes out once and the pipeline never rewinds.
// The handler reads the admin API through an HTTP proxy that refuses long URIs with a bare
// 414, as an ingress in front of it does (nginx: "414 Request-URI Too Large", not FSPIOP).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { onboardDfsp, setUpHub, startAdminApi } from '../support/admin-api.js';
import { createTestTopics, operatorTokenEnv, testConfig, testProcessEnv, uniqueSuffix } from '../support/environment.js';
import { startRecordingServer } from '../support/recording-server.js';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { startBatchConsumer } from '../../platform/kafka/consumer.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { TOPIC, topicDefinitions, topicName } from '../../platform/kafka/topics.js';
import { freePort } from '../../scripts/lib/ports.js';
import { hubSigningEnv } from '../support/jws-keys.js';
import { LOOPBACK_CALLBACK_ENV } from '../support/callback-destinations.js';

const HANDLER = fileURLToPath(new URL('../../handlers/notification/main.js', import.meta.url));
const RETRY_BACKOFF_MS = 1_000;
const PROXY_URI_LENGTH_MAX = 256;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const config = testConfig();
const env = {};
const servers = [];
let admin;
let producer;
let handler;
let payer;
let flakyPort;

async function waitFor(description, predicate, timeoutMs, intervalMs = 50) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}\n${handler?.output.slice(-3000) ?? ''}`);
    await sleep(intervalMs);
  }
}

/** The ingress: forwards GETs to the admin API, and answers a long URI itself with HTML. */
async function startAdminProxy(targetUrl) {
  const server = http.createServer((request, response) => {
    if (request.url.length > PROXY_URI_LENGTH_MAX) {
      response.writeHead(414, { 'content-type': 'text/html' }).end('<html><body><h1>414 Request-URI Too Large</h1></body></html>');
      return;
    }
    fetch(`${targetUrl}${request.url}`, { headers: { authorization: request.headers.authorization ?? '' } }).then(async (answer) => {
      response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(await answer.text());
    }, () => response.writeHead(502).end());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
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

/** A counter from the handler's /metrics, summed over the series whose labels include `labels`. */
async function metric(name, labels = {}) {
  const text = await (await fetch(`http://127.0.0.1:${env.PORT}/metrics`)).text();
  let sum = 0;
  for (const match of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\d+)`, 'gm'))) {
    const found = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) sum += Number(match[2]);
  }
  return sum;
}

function produce(events) {
  const topic = topicName(env.KAFKA_TOPIC_PREFIX, TOPIC.notificationEvent);
  return producer.produce(events.map((event) => ({ topic, key: event.id, value: encodeEvent(event) })));
}

/** A hub-originated PUT of a transfer's state to `to`. */
function hubEvent(id, to) {
  return {
    id, type: 'notification', action: 'state', from: 'Hub', to, headers: {}, body: { transferState: 'COMMITTED' }, at: Date.now(),
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', resource: 'transfers', templateParams: { transferId: id } },
  };
}

before(async () => {
  admin = await startAdminApi();
  await setUpHub(admin.request);
  payer = await startRecordingServer({ name: 'payerfsp' });
  servers.push(payer);
  const proxy = await startAdminProxy(admin.baseUrl);
  servers.push(proxy);
  // flakyfsp's endpoints point at a port nothing listens on yet: every call is refused.
  flakyPort = await freePort();
  await onboardDfsp(admin.request, { name: 'payerfsp', endpointBase: payer.url, fundsIn: '' });
  await onboardDfsp(admin.request, { name: 'flakyfsp', endpointBase: `http://127.0.0.1:${flakyPort}`, fundsIn: '' });
  Object.assign(env, {
    DB_PASSWORD: config.db.password, KAFKA_BROKERS: config.kafka.brokers,
    KAFKA_TOPIC_PREFIX: await createTestTopics(() => createAdminClient(config.kafka)),
    KAFKA_GROUP_PREFIX: `test-${uniqueSuffix()}`, ADMIN_API_URL: proxy.url, ...operatorTokenEnv(['dfspDirectoryRead']),
    PORT: String(await freePort()), CALLBACK_TIMEOUT_MS: '2000', CALLBACK_RETRIES: '1', CALLBACK_RETRY_BACKOFF_MS: '50',
    NOTIFICATION_RETRY_BACKOFF_MS: String(RETRY_BACKOFF_MS), LOG_LEVEL: 'warn', JWS_VERIFICATION: 'required', ...hubSigningEnv(), ...LOOPBACK_CALLBACK_ENV,
  });
  producer = createProducer({ kafka: config.kafka, logger: pino({ level: 'warn' }) });
  await producer.connect();
  handler = startHandler();
  await waitFor('the handler to be healthy', async () => {
    if (handler.exitCode !== null) throw new Error(`handler exited ${handler.exitCode}:\n${handler.output}`);
    return fetch(`http://127.0.0.1:${env.PORT}/health`).then((response) => response.status === 200, () => false);
  }, 30_000, 100);
});

after(async () => {
  if (handler && handler.exitCode === null && handler.signalCode === null) {
    handler.kill('SIGKILL');
    await handler.exited;
  }
  await producer?.disconnect().catch(() => {});
  await Promise.all(servers.map((server) => server.close()));
  const client = createAdminClient(config.kafka);
  await Promise.all(topicDefinitions(env.KAFKA_TOPIC_PREFIX).map(({ name }) => deleteTopic(client, name).catch(() => {})));
  client.disconnect();
  await admin?.stop();
});

test('a callback to a DFSP that is down arrives through the retry topic once the DFSP is back', { timeout: 40_000 }, async (t) => {
  const id = `retry-${uniqueSuffix()}`;
  await produce([hubEvent(id, 'flakyfsp')]);
  await waitFor('the callback to fail and go to the retry topic', async () => (await metric('callback_retries_scheduled_total', { fsp: 'flakyfsp' })) >= 1, 15_000);
  const failedAt = Date.now();
  // The DFSP comes back on its registered port after the first retry has failed too.
  await waitFor('a retry round to fail while the DFSP is down', async () => (await metric('callback_retries_total', { fsp: 'flakyfsp', outcome: 'failed' })) >= 1, 15_000);
  const flaky = await startRecordingServer({ name: 'flakyfsp', port: flakyPort });
  servers.push(flaky);
  const call = await flaky.waitFor((received) => received.path === `/transfers/${id}`, 20_000);
  t.diagnostic(`delivered ${call.at - failedAt} ms after it first went to the retry topic`);
  assert.equal(call.method, 'PUT');
  assert.deepEqual(call.body, { transferState: 'COMMITTED' });
  assert.equal(call.headers['fspiop-source'], 'Hub');
  assert.deepEqual(flaky.signatureFailures, [], 'the retried call carries a fresh, valid hub signature');
  await waitFor('the delivered retry to be counted', async () => (await metric('callback_retries_total', { fsp: 'flakyfsp', outcome: 'delivered' })) === 1, 5_000);
  assert.equal(await metric('callbacks_dropped_total'), 0);
});

test('a `to` of thousands of commas is an unknown DFSP; the next normal callback goes out once', { timeout: 30_000 }, async () => {
  const run = uniqueSuffix();
  const unknownBefore = await metric('callbacks_total', { fsp: 'unknown', outcome: 'no_endpoint' });
  await produce([hubEvent(`flood-${run}`, ','.repeat(100)), hubEvent(`flood-long-${run}`, ','.repeat(5_000))]);
  await produce([hubEvent(`next-${run}`, 'payerfsp')]);
  await payer.waitFor((call) => call.path === `/transfers/next-${run}`, 5_000);
  await waitFor('both junk callbacks to be counted as unknown', async () => (await metric('callbacks_total', { fsp: 'unknown', outcome: 'no_endpoint' })) - unknownBefore >= 2, 5_000);
  // A rewinding pipeline would deliver the next callback again and again with its batch.
  await sleep(3_000);
  assert.equal(payer.received.filter((call) => call.path === `/transfers/next-${run}`).length, 1, 'delivered exactly once');
  assert.doesNotMatch(handler.output, /batch failed/, 'no batch failed');
});

test('a pipelined consumer with inFlightBytesMax holds no more message bytes than that, plus one batch', { timeout: 40_000 }, async (t) => {
  const topic = topicName(env.KAFKA_TOPIC_PREFIX, TOPIC.notificationRetry);
  const valueBytes = 10_000;
  const count = 200;
  const inFlightBytesMax = 100_000;
  const batchSizeMax = 5;
  await producer.produce(Array.from({ length: count }, (_, index) => ({ topic, key: `k${index}`, value: Buffer.alloc(valueBytes, 97) })));
  // Each batch is held until the test has seen the pipeline fill, as a slow DFSP would hold it.
  const held = [];
  let heldBytes = 0;
  let heldBytesMax = 0;
  let consumed = 0;
  const consumer = await startBatchConsumer({
    kafka: config.kafka, groupId: `test-bytes-${uniqueSuffix()}`, topics: [topic], logger: pino({ level: 'warn' }),
    batchSizeMax, pipelineDepthMax: 1_000, inFlightBytesMax,
    handleBatch: (messages) => new Promise((resolve) => {
      const bytes = messages.reduce((sum, message) => sum + message.value.length, 0);
      heldBytes += bytes;
      heldBytesMax = Math.max(heldBytesMax, heldBytes);
      consumed += messages.length;
      held.push(() => { heldBytes -= bytes; resolve(); });
    }),
  });
  t.after(() => consumer.stop());
  while (consumed < count) {
    await sleep(200);
    held.splice(0, Math.ceil(held.length / 2)).forEach((release) => release());
  }
  held.splice(0).forEach((release) => release());
  t.diagnostic(`at most ${heldBytesMax} bytes held at once (bound ${inFlightBytesMax}, ${count * valueBytes} produced)`);
  assert.ok(heldBytesMax <= inFlightBytesMax + batchSizeMax * valueBytes, `${heldBytesMax} bytes held at once`);
});
