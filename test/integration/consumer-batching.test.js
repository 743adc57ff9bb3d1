// How the batch consumer forms batches, against a real Kafka: a batch is handed over once it
// holds batchSizeMax records or batchWaitMs after its first record, whichever comes first.
// A burst is therefore taken in batches larger than one record and never larger than
// batchSizeMax, and a steady trickle whose records arrive faster than the wait is handed over
// in several small batches instead of being held until batchSizeMax records have gathered
// (node-rdkafka's consume(n) restarts its timeout after every record, which did exactly that).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { uniqueSuffix } from '../support/environment.js';
import { createTopic } from '../../platform/kafka/admin.js';
import { sleep, topicWithProducer } from '../support/kafka-topic.js';
import { startBatchConsumer } from '../../platform/kafka/consumer.js';

const ASSIGN_WAIT_MS = 30_000;
const DRAIN_WAIT_MS = 30_000;

/**
 * Starts a consumer that records the size of every batch and the offsets it saw, and waits
 * until the partition is assigned, so that what is produced next reaches a running consumer.
 */
async function startRecordingConsumer({ config, logger, topic }, { batchSizeMax, batchWaitMs }) {
  const batchSizes = [];
  const offsets = [];
  let assigned;
  const assignedOnce = new Promise((resolve) => { assigned = resolve; });
  const consumer = await startBatchConsumer({
    kafka: config.kafka, groupId: `test-batching-${uniqueSuffix()}`, topics: [topic], logger,
    batchSizeMax, batchWaitMs,
    onRebalance: ({ event, assignment }) => { if (event === 'assign' && assignment.length > 0) assigned(); },
    handleBatch: async (messages) => {
      batchSizes.push(messages.length);
      offsets.push(...messages.map((message) => message.offset));
    },
  });
  let timer;
  const timeout = new Promise((resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no partition assigned within ${ASSIGN_WAIT_MS} ms`)), ASSIGN_WAIT_MS);
  });
  try {
    await Promise.race([assignedOnce, timeout]);
  } catch (error) {
    await consumer.stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return {
    batchSizes,
    offsets,
    stop: () => consumer.stop(),
    async waitForCount(count) {
      const deadline = Date.now() + DRAIN_WAIT_MS;
      while (offsets.length < count) {
        if (Date.now() > deadline) assert.fail(`only ${offsets.length} of ${count} records were handled within ${DRAIN_WAIT_MS} ms`);
        await sleep(20);
      }
    },
  };
}

function assertEveryOffsetOnce(offsets, count) {
  assert.deepEqual([...offsets].sort((a, b) => a - b), Array.from({ length: count }, (_, offset) => offset));
}

test('a burst is taken in batches larger than one record and never larger than batchSizeMax', { timeout: 90_000 }, async (t) => {
  const records = 1_000;
  const batchSizeMax = 100;
  const setup = await topicWithProducer(t, 'batching-burst');
  const consumer = await startRecordingConsumer(setup, { batchSizeMax, batchWaitMs: 20 });
  try {
    await setup.producer.produce(Array.from({ length: records }, (_, index) => ({ topic: setup.topic, key: 'burst', value: String(index) })));
    await consumer.waitForCount(records);
    // Let a redelivery, if the consumer made one, show up before the offsets are compared.
    await sleep(200);
  } finally {
    await consumer.stop();
  }
  const { batchSizes } = consumer;
  t.diagnostic(`batch sizes: ${batchSizes.join(', ')}`);
  assertEveryOffsetOnce(consumer.offsets, records);
  assert.ok(batchSizes.every((size) => size >= 1 && size <= batchSizeMax), `a batch exceeded ${batchSizeMax}: ${batchSizes.join(', ')}`);
  assert.equal(Math.max(...batchSizes), batchSizeMax, `a burst should drain in full batches: ${batchSizes.join(', ')}`);
  assert.ok(batchSizes.length <= records / 2, `${records} records came in ${batchSizes.length} batches: ${batchSizes.join(', ')}`);
});

test('a steady trickle faster than the wait is handed over in several batches, not held until batchSizeMax', { timeout: 90_000 }, async (t) => {
  const records = 300;
  const intervalMs = 2;
  const setup = await topicWithProducer(t, 'batching-trickle');
  const consumer = await startRecordingConsumer(setup, { batchSizeMax: 500, batchWaitMs: 20 });
  try {
    // One record every 2 ms, each sent without waiting for the previous acknowledgement, so
    // the records reach the broker (and the consumer) as a steady stream well inside the wait.
    const produced = [];
    for (let index = 0; index < records; index += 1) {
      produced.push(setup.producer.produce([{ topic: setup.topic, key: 'trickle', value: String(index) }]));
      await sleep(intervalMs);
    }
    await Promise.all(produced);
    await consumer.waitForCount(records);
    await sleep(200);
  } finally {
    await consumer.stop();
  }
  const { batchSizes } = consumer;
  t.diagnostic(`batch sizes: ${batchSizes.join(', ')}`);
  assertEveryOffsetOnce(consumer.offsets, records);
  assert.ok(batchSizes.length >= 5, `${records} trickled records came in only ${batchSizes.length} batches: ${batchSizes.join(', ')}`);
  assert.ok(Math.max(...batchSizes) < records / 2, `a batch held half the trickle or more: ${batchSizes.join(', ')}`);
  assert.ok(batchSizes.some((size) => size > 1), `no batch gathered more than one record within the wait: ${batchSizes.join(', ')}`);
});

test('a consumer started before its topic exists takes the topic up within seconds of its creation', { timeout: 90_000 }, async (t) => {
  // librdkafka's default metadata refresh (5 minutes) left such a consumer idle that long: the
  // chart's dev mode starts the handlers beside the Job that creates their topics.
  const { config, logger, topic, producer, admin } = await topicWithProducer(t, 'late-topic', { createTopicNow: false, logLevel: 'error' });
  const starting = startRecordingConsumer({ config, logger, topic }, { batchSizeMax: 100, batchWaitMs: 20 });
  await sleep(3_000);
  await createTopic(admin, { topic, partitions: 1 });
  const createdAtMs = Date.now();
  const consumer = await starting; // fails unless the partition is assigned within ASSIGN_WAIT_MS of the start
  try {
    t.diagnostic(`assigned ${Date.now() - createdAtMs} ms after the topic was created`);
    await producer.produce(Array.from({ length: 10 }, (_, index) => ({ topic, key: 'late', value: String(index) })));
    await consumer.waitForCount(10);
  } finally {
    await consumer.stop();
  }
  assertEveryOffsetOnce(consumer.offsets, 10);
});
