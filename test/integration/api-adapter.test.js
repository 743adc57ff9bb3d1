// The api-adapter against a real Kafka: every accepted FSPIOP /transfers request is one
// event on the right topic, keyed by transfer id, with the DFSP's body bytes; every
// rejected request is answered synchronously with errorInformation and produces nothing.
// The server runs in-process on a free port with a topic prefix of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import Kafka from 'node-rdkafka';
import pino from 'pino';
import { createTestTopics, testConfig, uniqueSuffix } from '../support/environment.js';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { decodeEvent } from '../../platform/kafka/envelope.js';
import { TOPIC, topicName, topicDefinitions } from '../../platform/kafka/topics.js';
import { createMetrics } from '../../platform/metrics.js';
import { createEdgeServer } from '../../platform/fspiop/edge-process.js';
import { createKafkaProbe } from '../../platform/kafka/health.js';
import { transferRoutes } from '../../api-adapter/routes.js';

const EVENT_WAIT_MS = 15_000;
const PAYLOAD_LIMIT = 64 * 1024;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const logger = pino({ level: 'fatal' });

const env = {};

/** Starts an api-adapter in-process; `producerConfig` overrides librdkafka properties. */
async function startAdapter(config, producerConfig = {}) {
  const metrics = createMetrics(config);
  const producer = createProducer({ kafka: config.kafka, logger, config: producerConfig });
  const probe = createKafkaProbe({ kafka: config.kafka, topic: topicName(config.kafka.topicPrefix, TOPIC.transferPrepare) });
  await producer.connect();
  await probe.connect();
  const server = createEdgeServer({ config, logger, metrics, producer, kafkaHealth: () => probe.check(), routes: transferRoutes });
  await server.start();
  return {
    port: server.info.port,
    async stop() {
      await server.stop({ timeout: 2000 });
      await producer.disconnect().catch(() => {});
      await probe.disconnect();
    },
  };
}

/** A consumer reading the test topics from the beginning into `messages`. */
async function startConsumer(kafkaConfig, topics) {
  const consumer = new Kafka.KafkaConsumer({
    'group.id': `test-${uniqueSuffix()}-api-adapter`,
    'bootstrap.servers': kafkaConfig.brokers,
    'enable.auto.commit': false,
  }, { 'auto.offset.reset': 'earliest' });
  await new Promise((resolve, reject) => consumer.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve())));
  const messages = [];
  consumer.on('data', (message) => messages.push(message));
  consumer.subscribe(topics);
  consumer.consume();
  return { consumer, messages };
}

before(async () => {
  const base = testConfig();
  env.prefix = await createTestTopics(() => createAdminClient(base.kafka));
  // These tests forward placeholder signatures byte for byte, so verification is off here;
  // test/integration/jws.test.js proves it against the running switch.
  env.config = testConfig({ KAFKA_TOPIC_PREFIX: env.prefix, PORT: '0', JWS_VERIFICATION: 'off' });
  env.prepareTopic = topicName(env.prefix, TOPIC.transferPrepare);
  env.fulfilTopic = topicName(env.prefix, TOPIC.transferFulfil);
  env.adapter = await startAdapter(env.config);
  const { consumer, messages } = await startConsumer(env.config.kafka, [env.prepareTopic, env.fulfilTopic]);
  env.consumer = consumer;
  env.messages = messages;
  env.offsetClient = new Kafka.Producer({ 'bootstrap.servers': env.config.kafka.brokers });
  await new Promise((resolve, reject) => env.offsetClient.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve())));
});

after(async () => {
  await env.adapter?.stop();
  if (env.consumer) await new Promise((resolve) => env.consumer.disconnect(() => resolve()));
  if (env.offsetClient) await new Promise((resolve) => env.offsetClient.disconnect(() => resolve()));
  if (env.prefix) {
    const admin = createAdminClient(env.config.kafka);
    for (const { name } of topicDefinitions(env.prefix)) await deleteTopic(admin, name).catch(() => {});
    admin.disconnect();
  }
});

/** An HTTP request with exactly the given headers (fetch would add Accept and Content-Type). */
// A body goes with a Content-Length, as DFSP clients send it: a chunked body over the limit
// is cut off by hapi mid-stream, and the client may lose the 413 to a connection reset.
function send({ port = env.adapter.port, method, path, headers = {}, body }) {
  const allHeaders = body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers: allHeaders }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const isJson = /json/.test(response.headers['content-type'] ?? '');
        resolve({ status: response.statusCode, text, json: isJson && text ? JSON.parse(text) : undefined });
      });
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

function fspiopHeaders({ resource = 'transfers', source = 'payerfsp', destination = 'payeefsp', accept = true, ...extra } = {}) {
  const headers = {
    'Content-Type': `application/vnd.interoperability.${resource}+json;version=1.1`,
    Date: new Date().toUTCString(),
    'FSPIOP-Source': source,
    ...extra,
  };
  if (accept) headers.Accept = `application/vnd.interoperability.${resource}+json;version=1.1`;
  if (destination) headers['FSPIOP-Destination'] = destination;
  for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
  return headers;
}

function transferBody(transferId, overrides = {}) {
  return JSON.stringify({
    transferId,
    payerFsp: 'payerfsp',
    payeeFsp: 'payeefsp',
    amount: { amount: '100.25', currency: 'USD' },
    ilpPacket: 'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4w',
    condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA',
    expiration: new Date(Date.now() + 60_000).toISOString(),
    ...overrides,
  });
}

const eventsFor = (id) => env.messages.filter((message) => message.key?.toString() === id);

async function waitForEvents(id, count) {
  const deadline = Date.now() + EVENT_WAIT_MS;
  while (eventsFor(id).length < count) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} event(s) keyed ${id}`);
    await sleep(20);
  }
  // A short grace period so that a second, unexpected event would be seen too.
  await sleep(300);
  return eventsFor(id);
}

async function expectOneEvent(id, topic) {
  const messages = await waitForEvents(id, 1);
  assert.equal(messages.length, 1, `exactly one event keyed ${id}`);
  assert.equal(messages[0].topic, topic);
  return decodeEvent(messages[0].value);
}

// Asked through a client of its own: on the consumer's connection the query would wait
// behind the consumer's long-polling fetch requests.
function watermark(topic, partition) {
  return new Promise((resolve, reject) => {
    env.offsetClient.queryWatermarkOffsets(topic, partition, 10_000, (error, offsets) => (error ? reject(error) : resolve(offsets.highOffset)));
  });
}

/** How many records the two edge topics hold, read from the broker's high watermarks. */
async function producedTotal() {
  const queries = [env.prepareTopic, env.fulfilTopic].flatMap((topic) => [0, 1, 2, 3].map((partition) => watermark(topic, partition)));
  const offsets = await Promise.all(queries);
  return offsets.reduce((total, offset) => total + offset, 0);
}

test('a valid POST /transfers is answered 202 after exactly one prepare event with the DFSP bytes', async () => {
  const transferId = randomUUID();
  // Unusual spacing, key order and non-ASCII text: only a byte-for-byte copy survives.
  const rawBody = `{\n  "payeeFsp" : "payeefsp",  "transferId":"${transferId}",\t"payerFsp":"payerfsp",\n`
    + '"amount":{ "currency":"USD", "amount":"100.25" },"condition":"f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA",'
    + `"ilpPacket":"AYIBgQAAAAAAAASw","expiration":"${new Date(Date.now() + 60_000).toISOString()}",`
    + '"extensionList":{"extension":[{"key":"note","value":"café ☕ \\u00e9"}]}   }\n';
  const headers = fspiopHeaders({ 'FSPIOP-Signature': '{"signature":"abc","protectedHeader":"def"}', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'X-Custom': 'dropped' });
  const sentAt = Date.now();
  const response = await send({ method: 'POST', path: '/transfers', headers, body: rawBody });
  assert.equal(response.status, 202, response.text);
  assert.equal(response.text, '');

  const event = await expectOneEvent(transferId, env.prepareTopic);
  assert.equal(event.id, transferId);
  assert.equal(event.type, 'transfer');
  assert.equal(event.action, 'prepare');
  assert.equal(event.from, 'payerfsp');
  assert.equal(event.to, 'payeefsp');
  assert.deepEqual(event.headers, {
    'content-type': headers['Content-Type'], accept: headers.Accept, date: headers.Date, 'fspiop-source': 'payerfsp',
    'fspiop-destination': 'payeefsp', 'fspiop-signature': headers['FSPIOP-Signature'], traceparent: headers.traceparent,
  });
  assert.equal(event.rawBody, rawBody, 'rawBody is the exact text sent');
  assert.deepEqual(event.body, JSON.parse(rawBody));
  assert.equal(event.body.extensionList.extension[0].value, 'café ☕ é');
  assert.equal(typeof event.at, 'number');
  assert.ok(event.at >= sentAt - 1000 && event.at <= Date.now(), `at ${event.at} is when the edge accepted the request`);
});

test('a POST without FSPIOP-Destination is routed to the payeeFsp of the body', async () => {
  const transferId = randomUUID();
  const response = await send({ method: 'POST', path: '/transfers', headers: fspiopHeaders({ destination: null }), body: transferBody(transferId, { payeeFsp: 'otherpayee' }) });
  assert.equal(response.status, 202, response.text);
  const event = await expectOneEvent(transferId, env.prepareTopic);
  assert.equal(event.to, 'otherpayee');
  assert.equal(event.headers['fspiop-destination'], undefined);
});

test('Accept version=1 and Content-Type versions 1.0 and 2.0 are accepted', async () => {
  const first = randomUUID();
  const acceptMajor = fspiopHeaders({ Accept: 'application/vnd.interoperability.transfers+json;version=1', accept: false });
  assert.equal((await send({ method: 'POST', path: '/transfers', headers: acceptMajor, body: transferBody(first) })).status, 202);
  const second = randomUUID();
  const content10 = fspiopHeaders({ 'Content-Type': 'application/vnd.interoperability.transfers+json;version=1.0' });
  assert.equal((await send({ method: 'POST', path: '/transfers', headers: content10, body: transferBody(second) })).status, 202);
  const third = randomUUID();
  const content20 = fspiopHeaders({ 'Content-Type': 'application/vnd.interoperability.transfers+json;version=2.0', Accept: 'application/vnd.interoperability.transfers+json;version=2', accept: false });
  assert.equal((await send({ method: 'POST', path: '/transfers', headers: content20, body: transferBody(third) })).status, 202);
  assert.equal((await expectOneEvent(first, env.prepareTopic)).action, 'prepare');
  assert.equal((await expectOneEvent(second, env.prepareTopic)).action, 'prepare');
  assert.equal((await expectOneEvent(third, env.prepareTopic)).headers['content-type'], 'application/vnd.interoperability.transfers+json;version=2.0');
});

const CALLBACK_CASES = [
  ['PUT with transferState COMMITTED', 'PUT', '', { transferState: 'COMMITTED', fulfilment: 'uU0nuZNNPgilLlLX2n2r-sSE7-N6U4DukIj3rOLvzek', completedTimestamp: '2026-11-21T10:00:00.123Z' }, 200, 'commit'],
  ['PUT with transferState RESERVED', 'PUT', '', { transferState: 'RESERVED', fulfilment: 'uU0nuZNNPgilLlLX2n2r-sSE7-N6U4DukIj3rOLvzek' }, 200, 'reserve'],
  ['PUT with transferState ABORTED', 'PUT', '', { transferState: 'ABORTED' }, 200, 'reject'],
  ['PUT /error', 'PUT', '/error', { errorInformation: { errorCode: '5104', errorDescription: 'Payee rejected' } }, 200, 'abort'],
  ['GET', 'GET', '', undefined, 202, 'get'],
];

for (const [name, method, suffix, body, status, action] of CALLBACK_CASES) {
  test(`${name} is answered ${status} after one '${action}' event on the fulfil topic`, async () => {
    const transferId = randomUUID();
    const rawBody = body === undefined ? undefined : JSON.stringify(body, null, 1);
    const headers = fspiopHeaders({ source: 'payeefsp', destination: 'payerfsp', accept: method === 'GET' });
    const response = await send({ method, path: `/transfers/${transferId}${suffix}`, headers, body: rawBody });
    assert.equal(response.status, status, response.text);
    const event = await expectOneEvent(transferId, env.fulfilTopic);
    assert.equal(event.id, transferId);
    assert.equal(event.type, 'transfer');
    assert.equal(event.action, action);
    assert.equal(event.from, 'payeefsp');
    assert.equal(event.to, 'payerfsp');
    assert.equal(event.rawBody, rawBody);
    assert.deepEqual(event.body, body);
    assert.equal(event.headers['fspiop-source'], 'payeefsp');
  });
}

const jsonHeaders = (overrides) => fspiopHeaders(overrides);
const ERROR_CASES = [
  ['Content-Type missing', { headers: jsonHeaders({ 'Content-Type': undefined }) }, 400, '3102'],
  ['Content-Type malformed', { headers: jsonHeaders({ 'Content-Type': 'application/json' }) }, 400, '3101'],
  ['Content-Type for another resource', { headers: jsonHeaders({ 'Content-Type': 'application/vnd.interoperability.quotes+json;version=1.1' }) }, 400, '3101'],
  ['Content-Type version 3.0', { headers: jsonHeaders({ 'Content-Type': 'application/vnd.interoperability.transfers+json;version=3.0' }) }, 406, '3001'],
  ['Accept missing on POST', { headers: jsonHeaders({ accept: false }) }, 400, '3102'],
  ['Accept malformed', { headers: jsonHeaders({ accept: false, Accept: 'text/html' }) }, 400, '3101'],
  ['Accept version 3', { headers: jsonHeaders({ accept: false, Accept: 'application/vnd.interoperability.transfers+json;version=3' }) }, 406, '3001'],
  ['Date missing', { headers: jsonHeaders({ Date: undefined }) }, 400, '3102'],
  ['Date malformed', { headers: jsonHeaders({ Date: '2026-11-21 10:00' }) }, 400, '3101'],
  ['FSPIOP-Source missing', { headers: jsonHeaders({ 'FSPIOP-Source': undefined }) }, 400, '3102'],
  ['body not JSON', { body: () => '{"transferId": "oops",' }, 400, '3101'],
  ['body empty', { body: () => '' }, 400, '3102'],
  ['condition missing', { body: (id) => transferBody(id, { condition: undefined }) }, 400, '3102'],
  ['amount breaking the Amount pattern', { body: (id) => transferBody(id, { amount: { amount: '1.23456', currency: 'USD' } }) }, 400, '3100'],
  ['payload over the limit', { body: (id) => transferBody(id, { ilpPacket: 'A'.repeat(PAYLOAD_LIMIT) }) }, 413, '3104'],
  ['PUT with a transfer ID that is not a CorrelationId', { method: 'PUT', path: () => '/transfers/not-a-uuid', headers: jsonHeaders({ accept: false }), body: () => '{"transferState":"COMMITTED"}' }, 400, '3100'],
  ['PUT without transferState', { method: 'PUT', path: (id) => `/transfers/${id}`, headers: jsonHeaders({ accept: false }), body: () => '{"fulfilment":"uU0nuZNNPgilLlLX2n2r-sSE7-N6U4DukIj3rOLvzek"}' }, 400, '3102'],
  ['PUT /error without errorInformation', { method: 'PUT', path: (id) => `/transfers/${id}/error`, headers: jsonHeaders({ accept: false }), body: () => '{}' }, 400, '3102'],
  ['GET with a transfer ID that is not a CorrelationId', { method: 'GET', path: () => '/transfers/12345', body: () => undefined }, 400, '3100'],
  ['GET without Accept', { method: 'GET', path: (id) => `/transfers/${id}`, headers: jsonHeaders({ accept: false }), body: () => undefined }, 400, '3102'],
  ['an unknown route', { path: () => '/transfer' }, 404, '3002'],
  ['PATCH /transfers/{ID}', { method: 'PATCH', path: (id) => `/transfers/${id}`, body: () => '{"transferState":"COMMITTED","completedTimestamp":"2026-11-21T10:00:00.123Z"}' }, 501, '2002'],
];

for (const [name, request, status, code] of ERROR_CASES) {
  test(`${name} is answered ${status} with ${code} and produces nothing`, async () => {
    const transferId = randomUUID();
    const before = await producedTotal();
    const response = await send({
      method: request.method ?? 'POST',
      path: request.path ? request.path(transferId) : '/transfers',
      headers: request.headers ?? jsonHeaders(),
      body: request.body ? request.body(transferId) : transferBody(transferId),
    });
    assert.equal(response.status, status, response.text);
    assert.equal(response.json.errorInformation.errorCode, code, response.text);
    assert.ok(response.json.errorInformation.errorDescription.length > 0);
    assert.equal(await producedTotal(), before, 'no record reached the topics');
    assert.equal(eventsFor(transferId).length, 0);
  });
}

test('the answer names the field that broke the schema, and a header in lower case, in Mojaloop\'s words', async () => {
  const describe = async (request) => {
    const response = await send({ method: 'POST', path: '/transfers', headers: fspiopHeaders(), body: transferBody(randomUUID()), ...request });
    return [response.status, response.json.errorInformation.errorCode, response.json.errorInformation.errorDescription];
  };
  assert.deepEqual(await describe({ body: transferBody(randomUUID(), { condition: undefined }) }),
    [400, '3102', "Missing mandatory element - /requestBody must have required property 'condition'"]);
  assert.deepEqual(await describe({ headers: jsonHeaders({ 'FSPIOP-Source': undefined }) }),
    [400, '3102', "Missing mandatory element - /header must have required property 'fspiop-source'"]);
  assert.deepEqual(await describe({ headers: jsonHeaders({ Date: undefined }) }),
    [400, '3102', "Missing mandatory element - /header must have required property 'date'"]);
  assert.deepEqual(await describe({ headers: jsonHeaders({ 'Content-Type': 'application/json' }) }),
    [400, '3101', 'Malformed syntax - Invalid content-type header']);
  assert.deepEqual(await describe({ headers: jsonHeaders({ accept: false, Accept: 'text/html' }) }),
    [400, '3101', 'Malformed syntax - Invalid accept header']);
  assert.deepEqual(await describe({ body: '{"transferId": "oops",' }), [400, '3101', 'Malformed syntax - Invalid request payload JSON format']);
});

test('/health reports the broker in Mojaloop\'s shape and /metrics counts the events produced by topic', async () => {
  const health = await send({ method: 'GET', path: '/health' });
  assert.equal(health.status, 200, health.text);
  assert.deepEqual(health.json.services, [{ name: 'broker', status: 'OK' }]);
  assert.equal(health.json.status, 'OK');
  assert.match(health.json.versionNumber, /^\d+\.\d+\.\d+/);
  assert.ok(Date.parse(health.json.startTime) <= Date.now() && health.json.uptime > 0, health.text);
  const metrics = await send({ method: 'GET', path: '/metrics' });
  const prepared = /fspiop_edge_events_produced_total\{topic="topic-transfer-prepare"[^}]*\} (\d+)/.exec(metrics.text);
  assert.ok(prepared && Number(prepared[1]) >= 4, 'the prepare events were counted');
  assert.match(metrics.text, /http_request_duration_seconds_count\{[^}]*route="\/transfers"/);
});

test('a Kafka that cannot take the event gets a 503 with 2003 in bounded time, and /health says DOWN', { timeout: 30_000 }, async () => {
  // Topics that do not exist (auto-create is off) stand for a Kafka that cannot store the
  // event: the record is not acknowledged within the edge's 2 s, and the edge gives up on
  // its own. librdkafka fails the record itself a little later, so the producer's
  // disconnect does not wait for it.
  // Unsigned like the rest of this file: with verification on, the edge would ask the admin
  // API (not running here) for keys and answer 503 before Kafka was ever tried.
  const config = testConfig({ KAFKA_TOPIC_PREFIX: `missing-${uniqueSuffix()}-`, PORT: '0', KAFKA_PRODUCE_TIMEOUT_MS: '2000', JWS_VERIFICATION: 'off' });
  const adapter = await startAdapter(config, { 'topic.metadata.propagation.max.ms': 2500, 'message.timeout.ms': 3000 });
  try {
    const startedAt = Date.now();
    const response = await send({ port: adapter.port, method: 'POST', path: '/transfers', headers: fspiopHeaders(), body: transferBody(randomUUID()) });
    const elapsed = Date.now() - startedAt;
    assert.equal(response.status, 503, response.text);
    assert.equal(response.json.errorInformation.errorCode, '2003');
    assert.ok(elapsed >= 1950 && elapsed < 3400, `answered after ${elapsed} ms, by the edge's own timeout`);
    const health = await send({ port: adapter.port, method: 'GET', path: '/health' });
    assert.equal(health.status, 503);
    assert.deepEqual([health.json.status, health.json.services], ['DOWN', [{ name: 'broker', status: 'DOWN' }]]);
  } finally {
    await adapter.stop();
  }
});
