// `make dead-letters` (tools/dead-letters.js) against the real Kafka, with a dead-letter
// topic of three partitions, as an operator may create it: every letter of every partition is
// listed, oldest first in a stable order, each with its <partition>:<offset> address; replay
// takes those addresses, and a bare offset still works on a topic of one partition (the local
// default) and is refused where it would be ambiguous.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import Kafka from 'node-rdkafka';
import { createAdminClient, createTopic, deleteTopic } from '../../platform/kafka/admin.js';
import { deadLetterTopic, encodeDeadLetter } from '../../platform/kafka/dead-letters.js';
import { DEAD_LETTER_HANDLERS, TOPIC, topicName } from '../../platform/kafka/topics.js';
import { readDeadLetterTopic } from '../../platform/kafka/dead-letter-reader.js';
import { testConfig, uniqueSuffix } from '../support/environment.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const PREFIX = `test-${uniqueSuffix()}-`;
const PREPARE_PARTITIONS = 3;
const config = testConfig({ KAFKA_TOPIC_PREFIX: PREFIX });
const topics = [
  ...DEAD_LETTER_HANDLERS.map((handler) => ({ topic: deadLetterTopic(PREFIX, handler), partitions: handler === 'prepare' ? PREPARE_PARTITIONS : 1 })),
  { topic: topicName(PREFIX, TOPIC.transferPrepare), partitions: 1 },
  { topic: topicName(PREFIX, TOPIC.transferFulfil), partitions: 1 },
];

// The prepare letters as [dead-letter partition, key], in the order they were set aside: their
// partitions interleave, so only reading every partition and ordering by age lists them so.
const PREPARE_LETTERS = [[2, 'a'], [0, 'b'], [1, 'c'], [2, 'd'], [0, 'e'], [1, 'f']];

function letterValue(handler, sourceBase, key, at) {
  const message = { topic: topicName(PREFIX, sourceBase), partition: 0, offset: 100, key, value: Buffer.from(`original ${key}`), timestamp: at.getTime() };
  return encodeDeadLetter({ handler, message, error: new Error(`poison ${key}`), failures: 3, at });
}

/** Writes records `{ topic, partition, key, value }` in order and waits until Kafka has them all. */
async function produceInOrder(records) {
  const producer = new Kafka.Producer({ 'bootstrap.servers': config.kafka.brokers, dr_cb: true, 'enable.idempotence': true });
  await new Promise((resolve, reject) => producer.connect({ timeout: 10_000 }, (error) => (error ? reject(error) : resolve())));
  producer.setPollInterval(50);
  try {
    let delivered = 0;
    const all = new Promise((resolve, reject) => producer.on('delivery-report', (error) => {
      if (error) reject(error);
      delivered += 1;
      if (delivered === records.length) resolve();
    }));
    for (const record of records) producer.produce(record.topic, record.partition, record.value, record.key);
    await all;
  } finally {
    await new Promise((resolve) => { producer.disconnect(() => resolve()); });
  }
}

before(async () => {
  const admin = createAdminClient(config.kafka);
  try {
    for (const { topic, partitions } of topics) await createTopic(admin, { topic, partitions });
  } finally {
    admin.disconnect();
  }
  const start = Date.parse('2026-11-20T10:00:00.000Z');
  await produceInOrder([
    ...PREPARE_LETTERS.map(([partition, key], index) => ({
      topic: deadLetterTopic(PREFIX, 'prepare'), partition, key, value: letterValue('prepare', TOPIC.transferPrepare, key, new Date(start + index * 1000)),
    })),
    { topic: deadLetterTopic(PREFIX, 'fulfil'), partition: 0, key: 'g', value: letterValue('fulfil', TOPIC.transferFulfil, 'g', new Date(start)) },
  ]);
});

after(async () => {
  const admin = createAdminClient(config.kafka);
  try {
    await Promise.all(topics.map(({ topic }) => deleteTopic(admin, topic)));
  } finally {
    admin.disconnect();
  }
});

async function deadLetters(...args) {
  const child = spawn(process.execPath, ['tools/dead-letters.js', ...args], {
    cwd: ROOT, env: { ...process.env, KAFKA_BROKERS: config.kafka.brokers, KAFKA_TOPIC_PREFIX: PREFIX }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += chunk; });
  child.stderr.on('data', (chunk) => { stderr += chunk; });
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}

/** The `#<partition>:<offset> key=<key>` of each letter `list` printed, in its order. */
function listed(stdout, handler) {
  return [...stdout.matchAll(new RegExp(`^${handler}\\t#(\\d+:\\d+)\\t.*\\tkey=(\\w+)\\t`, 'gm'))].map((match) => `${match[1]} ${match[2]}`);
}

/** Every record on a one-partition topic, from its start to its end now. */
async function recordsOf(topic) {
  const consumer = new Kafka.KafkaConsumer({ 'bootstrap.servers': config.kafka.brokers, 'group.id': `${PREFIX}reader`, 'enable.auto.commit': false }, {});
  const call = (method, ...args) => new Promise((resolve, reject) => consumer[method](...args, (error, result) => (error ? reject(error) : resolve(result))));
  await call('connect', { timeout: 10_000 });
  try {
    const { highOffset } = await call('queryWatermarkOffsets', topic, 0, 10_000);
    consumer.assign([{ topic, partition: 0, offset: 0 }]);
    const records = [];
    const deadline = Date.now() + 15_000;
    while (records.length < highOffset && Date.now() < deadline) records.push(...await call('consume', 100));
    return records.map((record) => ({ key: record.key.toString(), value: record.value.toString() }));
  } finally {
    await new Promise((resolve) => { consumer.disconnect(() => resolve()); });
  }
}

test('list reads every partition to its end and prints the letters oldest first, each with its partition:offset', async () => {
  const { code, stdout, stderr } = await deadLetters('list', 'prepare', 'fulfil');
  assert.equal(code, 0, stderr);
  assert.match(stdout, /^prepare: 6 dead letter\(s\) on \S+topic-dead-letter-prepare \(3 partition\(s\)\)$/m);
  assert.deepEqual(listed(stdout, 'prepare'), ['2:0 a', '0:0 b', '1:0 c', '2:1 d', '0:1 e', '1:1 f']);
  assert.deepEqual(listed(stdout, 'fulfil'), ['0:0 g']);

  const everything = await deadLetters('list');
  assert.equal(everything.code, 0, everything.stderr);
  for (const handler of ['position', 'quoting-handler', 'notification']) assert.match(everything.stdout, new RegExp(`^${handler}: 0 dead letter\\(s\\)`, 'm'));
  assert.deepEqual(listed(everything.stdout, 'prepare'), listed(stdout, 'prepare'), 'the same order every time');
});

test('reading ends at the high watermarks of its start, not after a fixed wait; a missing topic and a read out of time are named', async () => {
  const started = Date.now();
  const read = await readDeadLetterTopic({ kafka: config.kafka, handler: 'prepare' });
  assert.equal(read.letters.length, PREPARE_LETTERS.length);
  assert.ok(Date.now() - started < 8_000, `read in ${Date.now() - started} ms`);
  const empty = await readDeadLetterTopic({ kafka: config.kafka, handler: 'position' });
  assert.deepEqual([empty.partitions, empty.letters], [1, []]);
  await assert.rejects(readDeadLetterTopic({ kafka: testConfig({ KAFKA_TOPIC_PREFIX: `${PREFIX}missing-` }).kafka, handler: 'prepare' }), /does not exist/);
  await assert.rejects(readDeadLetterTopic({ kafka: config.kafka, handler: 'prepare', timeoutMs: 0 }),
    /took longer than 0 ms: partition 0 at offset 0 of 2, partition 1 at offset 0 of 2, partition 2 at offset 0 of 2/);
});

test('replay takes partition:offset addresses; a bare offset is refused on three partitions and still works on one', async () => {
  const ambiguous = await deadLetters('replay', 'prepare', '1');
  assert.equal(ambiguous.code, 2);
  assert.match(ambiguous.stderr, /3 partitions: name 1 as <partition>:<offset>/);
  const missing = await deadLetters('replay', 'prepare', '1:0', '7:7');
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no dead letter at 7:7/);
  assert.deepEqual(await recordsOf(topicName(PREFIX, TOPIC.transferPrepare)), [], 'a refused replay replays nothing');

  const replayed = await deadLetters('replay', 'prepare', '2:1', '1:0');
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stdout, /replayed 2 dead letter\(s\) of prepare: #2:1 #1:0/);
  assert.deepEqual(await recordsOf(topicName(PREFIX, TOPIC.transferPrepare)), [{ key: 'd', value: 'original d' }, { key: 'c', value: 'original c' }]);

  const single = await deadLetters('replay', 'fulfil', '0');
  assert.equal(single.code, 0, single.stderr);
  assert.deepEqual(await recordsOf(topicName(PREFIX, TOPIC.transferFulfil)), [{ key: 'g', value: 'original g' }]);
});
