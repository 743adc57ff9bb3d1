// Per-DFSP rate limits at a real transfers edge (the api-adapter, in-process, real Kafka, JWS
// required): a DFSP over its limit is answered 429 with FSPIOP 2005 and produces nothing,
// while another DFSP at the same moment is accepted; requests that fail the edge's identity
// checks, or only claim a DFSP's name, never spend that DFSP's tokens: they spend those of the
// address they came from, so a forger flooding in a victim's name shuts out only itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import Kafka from 'node-rdkafka';
import pino from 'pino';
import { createTestTopics, testConfig, uniqueSuffix } from '../support/environment.js';
import { jwsKeyPair, publicKeysDirectory } from '../support/jws-keys.js';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { TOPIC, topicName, topicDefinitions } from '../../platform/kafka/topics.js';
import { createMetrics } from '../../platform/metrics.js';
import { createEdgeServer } from '../../platform/fspiop/edge-process.js';
import { createJwsKeyStore, directoryKeySource } from '../../platform/fspiop/jws-keys.js';
import { createKafkaProbe } from '../../platform/kafka/health.js';
import { transferRoutes } from '../../api-adapter/routes.js';
import { dfspHeaders, signedHeaders } from '../../scripts/lib/fspiop-headers.js';

const EVENT_WAIT_MS = 15_000;
const DFSPS = ['greedyfsp', 'politefsp', 'victimfsp', 'payeefsp'];
// One token a second: no test here runs long enough for a refill to blur the counts.
const OVERRIDES = { greedyfsp: { perSecond: 1, burst: 5 }, victimfsp: { perSecond: 1, burst: 3 } };
// Every other DFSP, and every address whose requests prove no sender: low, so a flood is cut short.
const DEFAULT_PER_SECOND = 50;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const logger = pino({ level: 'fatal' });
const env = {};

async function startAdapter(config) {
  const metrics = createMetrics(config);
  const producer = createProducer({ kafka: config.kafka, logger });
  const probe = createKafkaProbe({ kafka: config.kafka, topic: topicName(config.kafka.topicPrefix, TOPIC.transferPrepare) });
  await producer.connect();
  await probe.connect();
  const keyStore = createJwsKeyStore({ sources: [directoryKeySource(publicKeysDirectory(DFSPS))], ttlMs: 60_000 });
  const server = createEdgeServer({ config, logger, metrics, producer, kafkaHealth: () => probe.check(), routes: transferRoutes, keyStore });
  await server.start();
  return {
    url: `http://127.0.0.1:${server.info.port}`,
    async stop() {
      await server.stop({ timeout: 2000 });
      await producer.disconnect().catch(() => {});
      await probe.disconnect();
    },
  };
}

async function startConsumer(kafkaConfig, topics) {
  const consumer = new Kafka.KafkaConsumer({
    'group.id': `test-${uniqueSuffix()}-rate-limit`, 'bootstrap.servers': kafkaConfig.brokers, 'enable.auto.commit': false,
  }, { 'auto.offset.reset': 'earliest' });
  await new Promise((resolve, reject) => consumer.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve())));
  const keys = [];
  consumer.on('data', (message) => keys.push(message.key?.toString()));
  consumer.subscribe(topics);
  consumer.consume();
  return { consumer, keys };
}

before(async () => {
  const base = testConfig();
  env.prefix = await createTestTopics(() => createAdminClient(base.kafka));
  env.config = testConfig({
    KAFKA_TOPIC_PREFIX: env.prefix, PORT: '0', JWS_VERIFICATION: 'required', CLIENT_IDENTITY: 'off', RATE_LIMIT_PER_SECOND: String(DEFAULT_PER_SECOND),
    RATE_LIMIT_OVERRIDES_JSON: JSON.stringify(OVERRIDES),
  });
  env.adapter = await startAdapter(env.config);
  const topics = [TOPIC.transferPrepare, TOPIC.transferFulfil].map((topic) => topicName(env.prefix, topic));
  Object.assign(env, await startConsumer(env.config.kafka, topics));
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

/** A POST /transfers from `source`, signed with `signer`'s key (its own unless a test forges one), ready to send. */
async function preparedTransfer(source, signer = source) {
  const transferId = randomUUID();
  const body = JSON.stringify({
    transferId, payerFsp: source, payeeFsp: 'payeefsp', amount: { amount: '10.5', currency: 'USD' },
    ilpPacket: 'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4w',
    condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA', expiration: new Date(Date.now() + 60_000).toISOString(),
  });
  const headers = await signedHeaders(dfspHeaders('transfers', source, 'payeefsp'), {
    privateKey: jwsKeyPair(signer).privateKey, method: 'POST', uri: '/transfers', body,
  });
  return { transferId, send: () => fetch(`${env.adapter.url}/transfers`, { method: 'POST', headers, body }) };
}

async function answer(response) {
  const text = await response.text();
  return { status: response.status, retryAfter: response.headers.get('retry-after'), code: text ? JSON.parse(text).errorInformation?.errorCode : undefined };
}

async function waitForKeys(ids) {
  const deadline = Date.now() + EVENT_WAIT_MS;
  while (!ids.every((id) => env.keys.includes(id))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for events keyed ${ids.filter((id) => !env.keys.includes(id))}`);
    await sleep(20);
  }
  await sleep(500); // so that an event that should not exist has had time to appear as well
}

async function rateLimitedCount(fsp) {
  const text = await (await fetch(`${env.adapter.url}/metrics`)).text();
  const match = new RegExp(`^fspiop_edge_rate_limited_total\\{[^}]*fsp="${fsp}"[^}]*\\} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

test('a DFSP over its limit gets 429 with 2005 and produces nothing, while another DFSP at the same moment is accepted', async () => {
  // Everything is signed first and sent at once, so the two DFSPs' requests interleave.
  const greedy = await Promise.all(Array.from({ length: 8 }, () => preparedTransfer('greedyfsp')));
  const polite = await Promise.all(Array.from({ length: 4 }, () => preparedTransfer('politefsp')));
  const [greedyAnswers, politeAnswers] = await Promise.all([
    Promise.all(greedy.map((request) => request.send().then(answer))),
    Promise.all(polite.map((request) => request.send().then(answer))),
  ]);

  assert.deepEqual(politeAnswers.map(({ status }) => status), [202, 202, 202, 202], 'the other DFSP is not held back');
  const accepted = greedy.filter((_, index) => greedyAnswers[index].status === 202);
  const refused = greedy.filter((_, index) => greedyAnswers[index].status !== 202);
  assert.equal(accepted.length, 5, `its burst of 5 passes: ${JSON.stringify(greedyAnswers)}`);
  for (const refusal of greedyAnswers.filter(({ status }) => status !== 202)) {
    assert.deepEqual(refusal, { status: 429, retryAfter: '1', code: '2005' });
  }
  await waitForKeys([...polite, ...accepted].map(({ transferId }) => transferId));
  for (const { transferId } of refused) assert.equal(env.keys.includes(transferId), false, `refused ${transferId} was not produced`);
  assert.equal(await rateLimitedCount('greedyfsp'), 3);
  assert.equal(await rateLimitedCount('politefsp'), 0);
});

test('a forger\'s flood in a victim\'s name, refused or unproven, spends its own address\'s tokens; the victim is served', async () => {
  // Twenty prepares in victimfsp's name signed with another DFSP's key: refused for their signature.
  const forged = await Promise.all(Array.from({ length: 20 }, () => preparedTransfer('victimfsp', 'greedyfsp')));
  const forgedAnswers = await Promise.all(forged.map((request) => request.send().then(answer)));
  assert.ok(forgedAnswers.every(({ status, code }) => status === 400 && code === '3105'), JSON.stringify(forgedAnswers));
  // A thousand unsigned GETs in victimfsp's name, as fast as they go: only a claim, on the address's bucket.
  const started = Date.now();
  const getAnswers = [];
  for (let batch = 0; batch < 10; batch += 1) {
    getAnswers.push(...await Promise.all(Array.from({ length: 100 }, () => fetch(`${env.adapter.url}/transfers/${randomUUID()}`, {
      headers: dfspHeaders('transfers', 'victimfsp', 'payeefsp'),
    }).then(answer))));
  }
  const seconds = (Date.now() - started) / 1000;
  const passed = getAnswers.filter(({ status }) => status === 202).length;
  // The address's bucket held its burst (two seconds' worth), less the 20 refusals, and refilled while the flood lasted.
  assert.ok(passed <= 2 * DEFAULT_PER_SECOND - 20 + Math.ceil(seconds * DEFAULT_PER_SECOND), `${passed} of the flood passed in ${seconds} s`);
  assert.ok(getAnswers.filter(({ status, code }) => status === 429 && code === '2005').length >= 1000 - passed);
  assert.ok(await rateLimitedCount('unproven') >= 1000 - passed, 'counted as unproven, not as the victim');
  assert.equal(await rateLimitedCount('victimfsp'), 0);

  const own = await Promise.all(Array.from({ length: 3 }, () => preparedTransfer('victimfsp')));
  const ownAnswers = await Promise.all(own.map((request) => request.send().then(answer)));
  assert.deepEqual(ownAnswers.map(({ status }) => status), [202, 202, 202], 'the DFSP\'s own signed burst is whole');
  await waitForKeys(own.map(({ transferId }) => transferId));
});
