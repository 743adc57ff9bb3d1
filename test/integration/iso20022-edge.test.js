// ISO 20022 at the api-adapter against a real Kafka (issue 34, "Ingress"): an ISO 20022
// POST /transfers (a pacs.008 with a real ILP v4 prepare) is answered 202 after exactly one
// prepare event carrying the FSPIOP form as its body and the ISO 20022 text as received in
// its headers; a malformed one is refused naming the element and produces nothing; a signed
// one is verified over the ISO 20022 bytes as sent, and a tampered one refused. The server
// runs in-process on a free port with a topic prefix of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import Kafka from 'node-rdkafka';
import pino from 'pino';
import ilpPacket from 'ilp-packet';
import { createTestTopics, testConfig, uniqueSuffix } from '../support/environment.js';
import { jwsKeyPair } from '../support/jws-keys.js';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { decodeEvent } from '../../platform/kafka/envelope.js';
import { TOPIC, topicName, topicDefinitions } from '../../platform/kafka/topics.js';
import { createMetrics } from '../../platform/metrics.js';
import { createEdgeServer } from '../../platform/fspiop/edge-process.js';
import { createJwsKeyStore } from '../../platform/fspiop/jws-keys.js';
import { signFspiopMessage } from '../../platform/fspiop/jws.js';
import { createKafkaProbe } from '../../platform/kafka/health.js';
import { isoContentType } from '../../platform/iso20022/media-types.js';
import { ORIGINAL_BODY_HEADER } from '../../platform/iso20022/original.js';
import { transferRoutes } from '../../api-adapter/routes.js';

const EVENT_WAIT_MS = 15_000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const logger = pino({ level: 'fatal' });
const env = {};

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A fresh ULID (the ISO 20022 document's identifier): 48 bits of milliseconds, 80 random bits. */
function ulid() {
  let time = BigInt(Date.now());
  let text = '';
  for (let index = 0; index < 10; index += 1) { text = CROCKFORD[Number(time % 32n)] + text; time /= 32n; }
  for (const byte of randomBytes(16)) text += CROCKFORD[byte % 32];
  return text;
}

const FULFILMENT = randomBytes(32);
const CONDITION = createHash('sha256').update(FULFILMENT).digest();

async function startAdapter(config) {
  const metrics = createMetrics(config);
  const producer = createProducer({ kafka: config.kafka, logger });
  const probe = createKafkaProbe({ kafka: config.kafka, topic: topicName(config.kafka.topicPrefix, TOPIC.transferPrepare) });
  await producer.connect();
  await probe.connect();
  // The payer's key, as the admin API would hand it to the edge.
  const keyStore = createJwsKeyStore({ sources: [async (fsp) => (fsp === 'payerfsp' ? [jwsKeyPair('payerfsp').publicKey] : [])], ttlMs: 60_000 });
  const server = createEdgeServer({ config, logger, metrics, producer, kafkaHealth: () => probe.check(), routes: transferRoutes, keyStore });
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

async function startConsumer(kafkaConfig, topics) {
  const consumer = new Kafka.KafkaConsumer({
    'group.id': `test-${uniqueSuffix()}-iso20022-edge`, 'bootstrap.servers': kafkaConfig.brokers, 'enable.auto.commit': false,
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
  // Optional: an unsigned request passes, a signed one is verified (a DFSP's key is known).
  env.config = testConfig({ KAFKA_TOPIC_PREFIX: env.prefix, PORT: '0', JWS_VERIFICATION: 'optional' });
  env.prepareTopic = topicName(env.prefix, TOPIC.transferPrepare);
  env.fulfilTopic = topicName(env.prefix, TOPIC.transferFulfil);
  env.adapter = await startAdapter(env.config);
  Object.assign(env, await startConsumer(env.config.kafka, [env.prepareTopic, env.fulfilTopic]));
});

after(async () => {
  await env.adapter?.stop();
  if (env.consumer) await new Promise((resolve) => env.consumer.disconnect(() => resolve()));
  if (env.prefix) {
    const admin = createAdminClient(env.config.kafka);
    for (const { name } of topicDefinitions(env.prefix)) await deleteTopic(admin, name).catch(() => {});
    admin.disconnect();
  }
});

/** An HTTP request with exactly the given headers and body text. */
function send({ method, path, headers = {}, body }) {
  const allHeaders = body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) };
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port: env.adapter.port, method, path, headers: allHeaders }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode, text, json: text ? JSON.parse(text) : undefined });
      });
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

function isoHeaders(extra = {}) {
  return {
    'content-type': isoContentType('transfers'), accept: isoContentType('transfers'), date: new Date().toUTCString(),
    'fspiop-source': 'payerfsp', 'fspiop-destination': 'payeefsp', ...extra,
  };
}

const agent = (fsp) => ({ FinInstnId: { Othr: { Id: fsp } } });
const person = (msisdn) => ({ Id: { PrvtId: { Othr: { SchmeNm: { Prtry: 'MSISDN' }, Id: msisdn } } } });

/** A pacs.008 for `transferId` with a real ILP v4 prepare for 100.25 USD. */
function pacs008(transferId, amount = '100.250') {
  const expiresAt = new Date(Date.now() + 60_000);
  const packet = ilpPacket.serializeIlpPrepare({
    amount: '10025', destination: 'g.payeefsp.msisdn.27713803912', expiresAt, executionCondition: CONDITION, data: Buffer.from('{}'),
  }).toString('base64url');
  return {
    GrpHdr: { MsgId: ulid(), CreDtTm: new Date().toISOString(), NbOfTxs: '1', SttlmInf: { SttlmMtd: 'CLRG' }, PmtInstrXpryDtTm: expiresAt.toISOString() },
    CdtTrfTxInf: {
      PmtId: { TxId: transferId }, ChrgBr: 'SHAR', Cdtr: person('27713803912'), Dbtr: person('44123456789'),
      CdtrAgt: agent('payeefsp'), DbtrAgt: agent('payerfsp'),
      IntrBkSttlmAmt: { Ccy: 'USD', ActiveCurrencyAndAmount: amount }, VrfctnOfTerms: { IlpV4PrepPacket: packet },
    },
  };
}

const eventsFor = (id) => env.messages.filter((message) => message.key?.toString() === id);

async function expectOneEvent(id, topic) {
  const deadline = Date.now() + EVENT_WAIT_MS;
  while (eventsFor(id).length < 1) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for an event keyed ${id}`);
    await sleep(20);
  }
  await sleep(300);
  const messages = eventsFor(id);
  assert.equal(messages.length, 1, `exactly one event keyed ${id}`);
  assert.equal(messages[0].topic, topic);
  return decodeEvent(messages[0].value);
}

function watermark(topic, partition) {
  return new Promise((resolve, reject) => {
    env.consumer.queryWatermarkOffsets(topic, partition, 10_000, (error, offsets) => (error ? reject(error) : resolve(offsets.highOffset)));
  });
}

async function producedTotal() {
  const queries = [env.prepareTopic, env.fulfilTopic].flatMap((topic) => [0, 1, 2, 3].map((partition) => watermark(topic, partition)));
  return (await Promise.all(queries)).reduce((total, offset) => total + offset, 0);
}

test('an ISO 20022 POST /transfers is answered 202 after one prepare event with the FSPIOP body and the original text', async () => {
  const transferId = ulid();
  // Spacing and key order of the DFSP's own: only the text as received survives.
  const text = `${JSON.stringify(pacs008(transferId), null, 2)}\n`;
  const response = await send({ method: 'POST', path: '/transfers', headers: isoHeaders(), body: text });
  assert.equal(response.status, 202, response.text);
  const event = await expectOneEvent(transferId, env.prepareTopic);
  assert.deepEqual([event.type, event.action, event.from, event.to], ['transfer', 'prepare', 'payerfsp', 'payeefsp']);
  const iso = JSON.parse(text);
  assert.deepEqual(event.body, {
    transferId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { currency: 'USD', amount: '100.25' },
    ilpPacket: iso.CdtTrfTxInf.VrfctnOfTerms.IlpV4PrepPacket, condition: CONDITION.toString('base64url'),
    expiration: iso.GrpHdr.PmtInstrXpryDtTm,
  });
  assert.equal(event.rawBody, undefined, 'the event holds no rawBody: its body is not the parse of the text sent');
  assert.equal(event.headers[ORIGINAL_BODY_HEADER], text);
  assert.equal(event.headers['content-type'], isoContentType('transfers'));
  assert.equal(event.headers.accept, isoContentType('transfers'));
});

test('an ISO 20022 GET and PUT /transfers/{ID} reach the fulfil topic in their FSPIOP form', async () => {
  const lookupId = ulid();
  const lookup = await send({ method: 'GET', path: `/transfers/${lookupId}`, headers: isoHeaders() });
  assert.equal(lookup.status, 202, lookup.text);
  const get = await expectOneEvent(lookupId, env.fulfilTopic);
  assert.equal(get.action, 'get');
  assert.equal(get.headers.accept, isoContentType('transfers'));

  const transferId = ulid();
  const pacs002 = JSON.stringify({
    GrpHdr: { MsgId: ulid(), CreDtTm: new Date().toISOString() },
    TxInfAndSts: { ExctnConf: FULFILMENT.toString('base64url'), PrcgDt: { DtTm: new Date().toISOString() }, TxSts: 'COMM' },
  });
  const headers = isoHeaders({ 'fspiop-source': 'payeefsp', 'fspiop-destination': 'payerfsp' });
  const fulfil = await send({ method: 'PUT', path: `/transfers/${transferId}`, headers, body: pacs002 });
  assert.equal(fulfil.status, 200, fulfil.text);
  const event = await expectOneEvent(transferId, env.fulfilTopic);
  assert.equal(event.action, 'commit');
  assert.equal(event.body.transferState, 'COMMITTED');
  assert.equal(event.body.fulfilment, FULFILMENT.toString('base64url'));
  assert.equal(event.headers[ORIGINAL_BODY_HEADER], pacs002);
});

test('a malformed pacs.008 is refused naming the element and produces nothing', async () => {
  const before = await producedTotal();
  const missing = pacs008(ulid());
  delete missing.CdtTrfTxInf.IntrBkSttlmAmt;
  const wrongCode = pacs008(ulid());
  wrongCode.GrpHdr.SttlmInf.SttlmMtd = 'CASH';
  const cases = [
    [missing, '3102', /\/requestBody\/CdtTrfTxInf must have required property 'IntrBkSttlmAmt'/],
    [wrongCode, '3100', /\/requestBody\/GrpHdr\/SttlmInf\/SttlmMtd must be equal to one of the allowed values/],
    [pacs008(ulid(), '100.25001'), '3100', /\/requestBody\/CdtTrfTxInf\/IntrBkSttlmAmt\/ActiveCurrencyAndAmount 100\.25001 has 5 decimals/],
  ];
  for (const [body, code, description] of cases) {
    const response = await send({ method: 'POST', path: '/transfers', headers: isoHeaders(), body: JSON.stringify(body) });
    assert.equal(response.status, 400, response.text);
    assert.equal(response.json.errorInformation.errorCode, code);
    assert.match(response.json.errorInformation.errorDescription, description);
  }
  await sleep(500);
  assert.equal(await producedTotal(), before, 'no refused request produced an event');
});

test('a signed ISO 20022 request is verified over the bytes as sent, and a tampered one refused', async () => {
  const transferId = ulid();
  const text = JSON.stringify(pacs008(transferId));
  const headers = isoHeaders();
  const signature = await signFspiopMessage({ privateKey: jwsKeyPair('payerfsp').privateKey, method: 'POST', uri: '/transfers', headers, body: text });
  const signed = { ...headers, ...signature };
  const tampered = text.replace('"100.250"', '"900.250"');
  const before = await producedTotal();
  const refused = await send({ method: 'POST', path: '/transfers', headers: signed, body: tampered });
  assert.equal(refused.status, 400, refused.text);
  assert.equal(refused.json.errorInformation.errorCode, '3105');
  assert.equal(await producedTotal(), before);

  const accepted = await send({ method: 'POST', path: '/transfers', headers: signed, body: text });
  assert.equal(accepted.status, 202, accepted.text);
  const event = await expectOneEvent(transferId, env.prepareTopic);
  assert.equal(event.headers['fspiop-signature'], signature['fspiop-signature']);
  assert.equal(event.headers[ORIGINAL_BODY_HEADER], text);
  assert.equal(event.body.amount.amount, '100.25');
});
