// The /bulkTransfers routes of the api-adapter against a real Kafka: an accepted bulk is one
// `bulk-prepare` event keyed by its bulkTransferId, with the DFSP's bytes, in every version; a
// payee's answers and a GET are one event each on the fulfil topic; a bulk of 1,000 items
// fits; and every bulk the switch cannot take (no items, 1,001, a transfer id twice, parties
// the headers do not name, too many bytes) is answered synchronously, naming the path, with
// nothing produced.
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
import { BULK_PAYLOAD_BYTES_MAX, bulkTransferRoutes } from '../../api-adapter/bulk-routes.js';
import { quoteIlp } from '../support/test-dfsp.js';

const EVENT_WAIT_MS = 15_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const logger = pino({ level: 'fatal' });
const env = {};

before(async () => {
  const base = testConfig();
  env.prefix = await createTestTopics(() => createAdminClient(base.kafka));
  env.config = testConfig({ KAFKA_TOPIC_PREFIX: env.prefix, PORT: '0', JWS_VERIFICATION: 'off' });
  env.prepareTopic = topicName(env.prefix, TOPIC.transferPrepare);
  env.fulfilTopic = topicName(env.prefix, TOPIC.transferFulfil);
  env.producer = createProducer({ kafka: env.config.kafka, logger });
  await env.producer.connect();
  env.server = createEdgeServer({
    config: env.config, logger, metrics: createMetrics(env.config), producer: env.producer, kafkaHealth: async () => 'OK', routes: bulkTransferRoutes,
  });
  await env.server.start();
  env.consumer = new Kafka.KafkaConsumer({
    'group.id': `test-${uniqueSuffix()}-bulk-edge`, 'bootstrap.servers': env.config.kafka.brokers, 'enable.auto.commit': false,
  }, { 'auto.offset.reset': 'earliest' });
  await new Promise((resolve, reject) => env.consumer.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve())));
  env.messages = [];
  env.consumer.on('data', (message) => env.messages.push(message));
  env.consumer.subscribe([env.prepareTopic, env.fulfilTopic]);
  env.consumer.consume();
});

after(async () => {
  await env.server?.stop({ timeout: 2000 });
  await env.producer?.disconnect().catch(() => {});
  if (env.consumer) await new Promise((resolve) => env.consumer.disconnect(() => resolve()));
  if (env.prefix) {
    const admin = createAdminClient(env.config.kafka);
    for (const { name } of topicDefinitions(env.prefix)) await deleteTopic(admin, name).catch(() => {});
    admin.disconnect();
  }
});

function send({ method, path, headers = {}, body }) {
  const allHeaders = body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port: env.server.info.port, method, path, headers: allHeaders }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode, text, json: /json/.test(response.headers['content-type'] ?? '') && text ? JSON.parse(text) : undefined });
      });
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

function bulkHeaders({ version = '1.1', source = 'payerfsp', destination = 'payeefsp' } = {}) {
  const headers = {
    'Content-Type': `application/vnd.interoperability.bulkTransfers+json;version=${version}`,
    Accept: `application/vnd.interoperability.bulkTransfers+json;version=${version.split('.')[0]}`,
    Date: new Date().toUTCString(),
    'FSPIOP-Source': source,
  };
  if (destination) headers['FSPIOP-Destination'] = destination;
  return headers;
}

// A real payee's ILP packet and condition, of the size Mojaloop's SDKs write.
const ILP = quoteIlp({
  secret: 'payeefsp-secret', transferId: randomUUID(), amount: '10.25', currency: 'USD', payeeAddress: 'g.payeefsp', expiration: new Date(Date.now() + 60_000).toISOString(),
});

function item(transferId = randomUUID()) {
  return { transferId, transferAmount: { currency: 'USD', amount: '10.25' }, ilpPacket: ILP.ilpPacket, condition: ILP.condition };
}

function bulkBody({ bulkTransferId = randomUUID(), items = 2, ...overrides } = {}) {
  return {
    bulkTransferId,
    bulkQuoteId: randomUUID(),
    payerFsp: 'payerfsp',
    payeeFsp: 'payeefsp',
    individualTransfers: Array.from({ length: items }, () => item()),
    expiration: new Date(Date.now() + 60_000).toISOString(),
    ...overrides,
  };
}

const eventsFor = (id) => env.messages.filter((message) => message.key?.toString() === id);

async function expectOneEvent(id, topic) {
  const deadline = Date.now() + EVENT_WAIT_MS;
  while (eventsFor(id).length === 0) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for an event keyed ${id}`);
    await sleep(20);
  }
  await sleep(300);
  const messages = eventsFor(id);
  assert.equal(messages.length, 1, `exactly one event keyed ${id}`);
  assert.equal(messages[0].topic, topic);
  return decodeEvent(messages[0].value);
}

for (const version of ['1.0', '1.1', '2.0']) {
  test(`a valid POST /bulkTransfers in ${version} is answered 202 after one bulk-prepare event with the DFSP's bytes`, async () => {
    const body = bulkBody({ items: 3 });
    const rawBody = `${JSON.stringify(body, null, 1)}\n`;
    const response = await send({ method: 'POST', path: '/bulkTransfers', headers: bulkHeaders({ version }), body: rawBody });
    assert.equal(response.status, 202, response.text);
    const event = await expectOneEvent(body.bulkTransferId, env.prepareTopic);
    assert.equal(event.type, 'bulkTransfer');
    assert.equal(event.action, 'bulk-prepare');
    assert.equal(event.from, 'payerfsp');
    assert.equal(event.to, 'payeefsp');
    assert.equal(event.rawBody, rawBody, 'the bytes the payer signed');
    assert.equal(event.headers['content-type'], `application/vnd.interoperability.bulkTransfers+json;version=${version}`);
  });
}

test('a bulk of 1,000 items with SDK-sized ILP packets fits the bulk routes\' limit and Kafka', async () => {
  const body = bulkBody({ items: 1000 });
  const rawBody = JSON.stringify(body);
  assert.ok(Buffer.byteLength(rawBody) < BULK_PAYLOAD_BYTES_MAX, `${Buffer.byteLength(rawBody)} bytes`);
  assert.ok(Buffer.byteLength(rawBody) > 64 * 1024, 'larger than the limit of a single request');
  const response = await send({ method: 'POST', path: '/bulkTransfers', headers: bulkHeaders(), body: rawBody });
  assert.equal(response.status, 202, response.text);
  const event = await expectOneEvent(body.bulkTransferId, env.prepareTopic);
  assert.equal(event.body.individualTransfers.length, 1000);
});

for (const [name, action, path, body] of [
  ['PUT /bulkTransfers/{ID}', 'bulk-fulfil', '', { bulkTransferState: 'COMPLETED', completedTimestamp: new Date().toISOString(), individualTransferResults: [{ transferId: randomUUID(), fulfilment: 'WLctttbu2HvTsa1XWvUoGRcQozHsqeu9Ahl2JW9Bsu8' }] }],
  ['PUT /bulkTransfers/{ID}/error', 'bulk-abort', '/error', { errorInformation: { errorCode: '5104', errorDescription: 'Payee rejected the bulk' } }],
  ['GET /bulkTransfers/{ID}', 'bulk-get', '', undefined],
]) {
  test(`${name} is one ${action} event on the fulfil topic, keyed by the bulk`, async () => {
    const bulkTransferId = randomUUID();
    const headers = bulkHeaders({ source: 'payeefsp', destination: 'payerfsp' });
    const method = body === undefined ? 'GET' : 'PUT';
    const response = await send({ method, path: `/bulkTransfers/${bulkTransferId}${path}`, headers, body: body && JSON.stringify(body) });
    assert.equal(response.status, method === 'GET' ? 202 : 200, response.text);
    const event = await expectOneEvent(bulkTransferId, env.fulfilTopic);
    assert.equal(event.type, 'bulkTransfer');
    assert.equal(event.action, action);
    assert.equal(event.from, 'payeefsp');
    assert.equal(event.to, 'payerfsp');
  });
}

const duplicateItems = () => {
  const twice = randomUUID();
  return [item(), item(twice), item(), item(twice)];
};

for (const [name, build, code, status, detail] of [
  ['no individual transfers', () => bulkBody({ individualTransfers: [] }), '3100', 400, /\/requestBody\/individualTransfers must NOT have fewer than 1 items/],
  ['1,001 individual transfers', () => bulkBody({ items: 1001 }), '3100', 400, /\/requestBody\/individualTransfers must NOT have more than 1000 items/],
  ['one transfer id twice', () => bulkBody({ individualTransfers: duplicateItems() }), '3100', 400, /\/requestBody\/individualTransfers\/3\/transferId repeats that of item 1$/],
  ['a payer that is not FSPIOP-Source', () => bulkBody({ payerFsp: 'otherfsp' }), '3100', 400, /\/requestBody\/payerFsp otherfsp is not the FSPIOP-Source payerfsp/],
  ['a payee that is not FSPIOP-Destination', () => bulkBody({ payeeFsp: 'otherfsp' }), '3100', 400, /\/requestBody\/payeeFsp otherfsp is not the FSPIOP-Destination payeefsp/],
  ['a transfer id that is no UUID', () => bulkBody({ individualTransfers: [{ ...item(), transferId: 'x1' }] }), '3100', 400, /individualTransfers\/0\/transferId/],
  ['more bytes than the bulk routes read', () => bulkBody({ items: 1000, extensionList: { extension: [{ key: 'pad', value: 'x'.repeat(32) }] }, individualTransfers: Array.from({ length: 1000 }, () => ({ ...item(), ilpPacket: 'A'.repeat(1000) })) }), '3104', 413, /exceeds 900000 bytes|Payload content length greater than maximum allowed/],
]) {
  test(`a bulk with ${name} is answered ${status} with ${code}, naming the path, and produces nothing`, async () => {
    const body = build();
    const response = await send({ method: 'POST', path: '/bulkTransfers', headers: bulkHeaders(), body: JSON.stringify(body) });
    assert.equal(response.status, status, response.text);
    assert.equal(response.json?.errorInformation?.errorCode, code, response.text);
    assert.match(response.json.errorInformation.errorDescription, detail);
    await sleep(500);
    assert.equal(eventsFor(body.bulkTransferId).length, 0);
  });
}

test('a POST /bulkTransfers without FSPIOP-Destination is refused: a bulk names its payee in the header too', async () => {
  const body = bulkBody();
  const response = await send({ method: 'POST', path: '/bulkTransfers', headers: bulkHeaders({ destination: null }), body: JSON.stringify(body) });
  assert.equal(response.status, 400, response.text);
  assert.equal(response.json.errorInformation.errorCode, '3102');
  assert.match(response.json.errorInformation.errorDescription, /fspiop-destination/i);
});
