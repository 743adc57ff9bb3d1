// Input limits at the FSPIOP edges against a real Kafka: the transfers and quotes edges run
// in-process on free ports with a topic prefix of their own, exactly as their composition
// roots build them. Every request that breaks a limit (a DateTime beyond 9999 in UTC, an
// expiration too far ahead, an amount finer than its currency where the scheme holds it to its
// minor units, as this file's edges do for USD and JPY, deep JSON, a garbage
// FSPIOP-Source, oversized headers) is answered 400 with errorInformation, and nothing of it
// reaches the topics, while a valid request sent after them does. The edge's "not stored"
// answer comes only after the producer itself gave the record up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import Kafka from 'node-rdkafka';
import pino from 'pino';
import { createTestTopics, testConfig, uniqueSuffix } from '../support/environment.js';
import { quoteHeaders, quoteRequestBody } from '../support/quote-dfsp.js';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { TOPIC, topicName, topicDefinitions } from '../../platform/kafka/topics.js';
import { createMetrics } from '../../platform/metrics.js';
import { createEdgeServer } from '../../platform/fspiop/edge-process.js';
import { createEventPublisher } from '../../platform/fspiop/publisher.js';
import { transferRoutes } from '../../api-adapter/routes.js';
import { quoteRoutes } from '../../quoting/routes.js';

const logger = pino({ level: 'fatal' });
const CONDITION = 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA';
const env = {};

async function startEdge(config, routes, probeState = 'OK') {
  const producer = createProducer({ kafka: config.kafka, logger });
  await producer.connect();
  const server = createEdgeServer({ config, logger, metrics: createMetrics(config), producer, kafkaHealth: async () => probeState, routes });
  await server.start();
  return { port: server.info.port, producer, async stop() { await server.stop({ timeout: 2000 }); await producer.disconnect().catch(() => {}); } };
}

async function startConsumer(kafkaConfig, topics) {
  const consumer = new Kafka.KafkaConsumer({
    'group.id': `test-${uniqueSuffix()}-input-limits`, 'bootstrap.servers': kafkaConfig.brokers, 'enable.auto.commit': false,
  }, { 'auto.offset.reset': 'earliest' });
  await new Promise((resolve, reject) => consumer.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve())));
  const keys = new Set();
  consumer.on('data', (message) => keys.add(message.key?.toString()));
  consumer.subscribe(topics);
  consumer.consume();
  return { consumer, keys };
}

/** A raw HTTP request, so that headers go exactly as given (no fetch defaults, no limits). */
function send({ port, method, path, headers = {}, body }) {
  const allHeaders = body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers: allHeaders, maxHeaderSize: 64 * 1024 }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: response.statusCode, text, json });
      });
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

const transferHeaders = (extra = {}) => ({
  'Content-Type': 'application/vnd.interoperability.transfers+json;version=1.1',
  Accept: 'application/vnd.interoperability.transfers+json;version=1.1',
  Date: new Date().toUTCString(), 'FSPIOP-Source': 'payerfsp', 'FSPIOP-Destination': 'payeefsp', ...extra,
});
const transferBody = (transferId, overrides = {}) => ({
  transferId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '100.25', currency: 'USD' },
  ilpPacket: 'AYIB', condition: CONDITION, expiration: new Date(Date.now() + 60_000).toISOString(), ...overrides,
});

before(async () => {
  const base = testConfig();
  env.prefix = await createTestTopics(() => createAdminClient(base.kafka));
  env.config = testConfig({ KAFKA_TOPIC_PREFIX: env.prefix, PORT: '0', JWS_VERIFICATION: 'off', AMOUNT_MINOR_UNITS_CURRENCIES: 'USD,JPY' });
  env.transfers = await startEdge(env.config, transferRoutes);
  env.quotes = await startEdge(env.config, quoteRoutes);
  env.topics = [TOPIC.transferPrepare, TOPIC.transferFulfil, TOPIC.quotesPost].map((name) => topicName(env.prefix, name));
  Object.assign(env, await startConsumer(env.config.kafka, env.topics));
});

after(async () => {
  await env.transfers?.stop();
  await env.quotes?.stop();
  if (env.consumer) await new Promise((resolve) => env.consumer.disconnect(() => resolve()));
  if (env.prefix) {
    const admin = createAdminClient(env.config.kafka);
    for (const { name } of topicDefinitions(env.prefix)) await deleteTopic(admin, name).catch(() => {});
    admin.disconnect();
  }
});

function assertRefused(response, code, detailPattern) {
  assert.equal(response.status, 400, response.text);
  assert.equal(response.json?.errorInformation?.errorCode, code, response.text);
  if (detailPattern) assert.match(response.json.errorInformation.errorDescription, detailPattern);
}

const FAR = '9999-12-31T23:59:59.999-01:00';
const deepPadding = `${'['.repeat(4500)}${']'.repeat(4500)}`;

const REFUSED_TRANSFERS = [
  ['an expiration in year 10000 once in UTC', (id) => JSON.stringify(transferBody(id, { expiration: FAR })), '3100', /\/expiration/],
  ['an expiration two days ahead', (id) => JSON.stringify(transferBody(id, { expiration: new Date(Date.now() + 2 * 86_400_000).toISOString() })), '3100', /expiration/],
  ['USD 0.0001', (id) => JSON.stringify(transferBody(id, { amount: { amount: '0.0001', currency: 'USD' } })), '3100', /\/amount .*USD allows 2/],
  ['JPY 1.5', (id) => JSON.stringify(transferBody(id, { amount: { amount: '1.5', currency: 'JPY' } })), '3100', /JPY allows 0/],
  ['4,500 nested arrays', (id) => JSON.stringify(transferBody(id)).replace(/}$/, `,"padding":${deepPadding}}`), '3100', /deeper than 32/],
];

for (const [name, body, code, detail] of REFUSED_TRANSFERS) {
  test(`POST /transfers with ${name} is 400 ${code} and produces nothing`, async () => {
    const id = randomUUID();
    env.refused = [...(env.refused ?? []), id];
    assertRefused(await send({ port: env.transfers.port, method: 'POST', path: '/transfers', headers: transferHeaders(), body: body(id) }), code, detail);
  });
}

test('PUT /transfers with a completedTimestamp in year 10000 once in UTC is 400 3100 and produces nothing', async () => {
  const id = randomUUID();
  env.refused.push(id);
  const body = JSON.stringify({ transferState: 'COMMITTED', fulfilment: 'x'.repeat(43), completedTimestamp: FAR });
  const headers = transferHeaders({ 'FSPIOP-Source': 'payeefsp', 'FSPIOP-Destination': 'payerfsp' });
  delete headers.Accept;
  assertRefused(await send({ port: env.transfers.port, method: 'PUT', path: `/transfers/${id}`, headers, body }), '3100', /completedTimestamp/);
});

test('POST /quotes with an expiration in year 10000, or a fee finer than its currency, is 400 3100 and produces nothing', async () => {
  const far = { ...quoteRequestBody(), expiration: FAR };
  const fee = { ...quoteRequestBody(), fees: { amount: '0.001', currency: 'USD' } };
  env.refused.push(far.quoteId, fee.quoteId);
  const headers = quoteHeaders('payerfsp', 'payeefsp');
  assertRefused(await send({ port: env.quotes.port, method: 'POST', path: '/quotes', headers, body: JSON.stringify(far) }), '3100', /\/expiration/);
  assertRefused(await send({ port: env.quotes.port, method: 'POST', path: '/quotes', headers, body: JSON.stringify(fee) }), '3100', /\/fees/);
});

test('an FSPIOP-Source of a thousand commas is 3101; a 20 KB header is 400 with errorInformation, not 431', async () => {
  const commas = randomUUID();
  const big = randomUUID();
  env.refused.push(commas, big);
  const path = '/transfers';
  assertRefused(await send({ port: env.transfers.port, method: 'POST', path, headers: transferHeaders({ 'FSPIOP-Source': ','.repeat(1000) }), body: JSON.stringify(transferBody(commas)) }), '3101', /fspiop-source/);
  const oversized = await send({ port: env.transfers.port, method: 'POST', path, headers: transferHeaders({ 'X-Padding': 'a'.repeat(20 * 1024) }), body: JSON.stringify(transferBody(big)) });
  assertRefused(oversized, '3100', /headers exceed/);
  const quotes = await send({ port: env.quotes.port, method: 'POST', path: '/quotes', headers: quoteHeaders('payerfsp', 'payeefsp', { tracestate: 'x'.repeat(5000) }), body: JSON.stringify(quoteRequestBody()) });
  assertRefused(quotes, '3100', /tracestate/);
});

test('a valid transfer after the refused ones reaches its topic; none of the refused did', { timeout: 30_000 }, async () => {
  const id = randomUUID();
  const response = await send({ port: env.transfers.port, method: 'POST', path: '/transfers', headers: transferHeaders(), body: JSON.stringify(transferBody(id)) });
  assert.equal(response.status, 202, response.text);
  for (let waited = 0; !env.keys.has(id) && waited < 20_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(env.keys.has(id), 'the valid transfer was produced');
  assert.deepEqual(env.refused.filter((refused) => env.keys.has(refused)), [], 'no refused request was produced');
});

test('an event the envelope cannot encode is an FSPIOP 3100 from the publisher, never a throw', async () => {
  let deep = [];
  for (let level = 0; level < 20_000; level += 1) deep = [deep];
  const publisher = createEventPublisher({
    producer: env.transfers.producer, topicPrefix: env.prefix, timeoutMs: env.config.kafka.produceTimeoutMs, metrics: createMetrics(env.config), logger,
  });
  const id = randomUUID();
  const failure = await publisher.publish(TOPIC.transferPrepare, { id, type: 'transfer', action: 'prepare', body: deep });
  assert.equal(failure?.code, 3100);
  assert.equal(failure.httpStatus, 400);
  assert.equal(env.keys.has(id), false);
});

test('"not stored" (503 2003) comes after the producer gave the record up, before the edge\'s own deadline', { timeout: 30_000 }, async () => {
  // Topics that do not exist (auto-create is off) stand for a Kafka that cannot store the
  // event. With KAFKA_PRODUCE_TIMEOUT_MS=4000 the producer's own timeouts end by 3.6 s; the
  // edge's deadline at 4 s is only a backstop and must not be what answers.
  const config = testConfig({ KAFKA_TOPIC_PREFIX: `missing-${uniqueSuffix()}-`, PORT: '0', KAFKA_PRODUCE_TIMEOUT_MS: '4000', JWS_VERIFICATION: 'off' });
  const edge = await startEdge(config, transferRoutes, 'DOWN');
  try {
    const startedAt = Date.now();
    const response = await send({ port: edge.port, method: 'POST', path: '/transfers', headers: transferHeaders(), body: JSON.stringify(transferBody(randomUUID())) });
    const elapsedMs = Date.now() - startedAt;
    assert.equal(response.status, 503, response.text);
    assert.equal(response.json.errorInformation.errorCode, '2003');
    assert.ok(elapsedMs < 3900, `answered after ${elapsedMs} ms: the edge gave up before the producer did`);
  } finally {
    await edge.stop();
  }
});
