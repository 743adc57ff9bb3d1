// The pipelined batch consumer (the notification handler's mode) against a real Kafka: when
// the pipeline is full and the batch at its head is still running while later ones have
// finished, the consumer must wait for the head without starving the event loop, so the
// head's own I/O (in production a DFSP's HTTP answer) can complete. Offsets are committed
// only up to the first unfinished batch, and every message is handled once. The test holds
// the head batch until it chooses to release it, and reads the group's committed offsets
// from the broker while the head is held and after everything has finished.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import Kafka from 'node-rdkafka';
import { testConfig, uniqueSuffix } from '../support/environment.js';
import { createAdminClient, createTopic, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { startBatchConsumer } from '../../platform/kafka/consumer.js';
import { librdkafkaSecurity } from '../../platform/kafka/security.js';

const MESSAGES = 6;
// Message 0 finishes at once and is committed; the batch of message 1 is the held head.
const HEAD_OFFSET = 1;
// With one message per batch, the head plus two later batches fill the pipeline.
const PIPELINE_DEPTH = 3;
const LATER_BATCHES = Array.from({ length: PIPELINE_DEPTH - 1 }, (_, index) => String(HEAD_OFFSET + 1 + index));
// After the later batches finish, the head is held this much longer: the span the ticker below
// is measured over, and the margin for a commit of theirs, had one been sent, to reach the broker.
const HOLD_AFTER_LATER_MS = 300;
const COMMIT_WAIT_MS = 15_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function deferred() {
  let resolve;
  const promise = new Promise((done) => { resolve = done; });
  return { promise, resolve };
}

/**
 * Reads the group's committed offset of the topic's only partition from the broker. The
 * reader is a consumer of the same group that never subscribes, so it does not join the
 * group and takes no partition from the consumer under test.
 */
async function startCommittedOffsetReader(kafka, groupId, topic) {
  const reader = new Kafka.KafkaConsumer({
    'bootstrap.servers': kafka.brokers, ...librdkafkaSecurity(kafka.security), 'group.id': groupId, 'enable.auto.commit': false,
  }, {});
  await new Promise((resolve, reject) => reader.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve())));
  const read = () => new Promise((resolve, reject) => {
    reader.committed([{ topic, partition: 0 }], 10_000, (error, [partition] = []) => (error ? reject(error) : resolve(partition.offset)));
  });
  return {
    read,
    /** Polls until `accept(offset)` holds and returns that offset; fails with the last one seen. */
    async waitFor(accept, description) {
      const deadline = Date.now() + COMMIT_WAIT_MS;
      for (;;) {
        const offset = await read();
        if (accept(offset)) return offset;
        if (Date.now() > deadline) assert.fail(`the committed offset was still ${offset} after ${COMMIT_WAIT_MS} ms; waited for ${description}`);
        await sleep(50);
      }
    },
    close: () => new Promise((resolve) => reader.disconnect(() => resolve())),
  };
}

test('a held head batch in a full pipeline holds back the commit, finishes, and the loop does not spin meanwhile', { timeout: 60_000 }, async (t) => {
  const config = testConfig();
  const logger = pino({ level: 'warn' });
  const topic = `test-pipeline-${uniqueSuffix()}`;
  const groupId = `test-pipeline-${uniqueSuffix()}`;
  const admin = createAdminClient(config.kafka);
  await createTopic(admin, { topic, partitions: 1 });
  const producer = createProducer({ kafka: config.kafka, logger });
  await producer.connect();
  const committed = await startCommittedOffsetReader(config.kafka, groupId, topic);
  t.after(async () => {
    await committed.close();
    await producer.disconnect();
    await deleteTopic(admin, topic).catch(() => {});
    admin.disconnect();
  });
  await producer.produce(Array.from({ length: MESSAGES }, (_, index) => ({ topic, key: 'one-key', value: String(index) })));

  const handled = [];
  const headStarted = deferred();
  const headReleased = deferred();
  const laterFinished = deferred();
  const allFinished = deferred();
  let loopTurns = 0;
  // A macrotask counter: if the consumer loop spun on microtasks, it would stop turning.
  const ticker = setInterval(() => { loopTurns += 1; }, 10);
  const consumer = await startBatchConsumer({
    kafka: config.kafka, groupId, topics: [topic], logger,
    batchSizeMax: 1, pipelineDepthMax: PIPELINE_DEPTH,
    handleBatch: async ([message]) => {
      const value = message.value.toString();
      if (message.offset === HEAD_OFFSET) {
        headStarted.resolve({ at: Date.now(), turns: loopTurns });
        await headReleased.promise;
      }
      handled.push(value);
      if (LATER_BATCHES.every((later) => handled.includes(later))) laterFinished.resolve();
      if (handled.length === MESSAGES) allFinished.resolve();
    },
  });
  try {
    const held = await headStarted.promise;
    await laterFinished.promise;
    await sleep(HOLD_AFTER_LATER_MS);

    // The batch before the head was committed; the later batches, finished as they are, must
    // not be: a commit past the head would acknowledge a message that was never handled. The
    // consumer sends its commits without waiting for the broker's answer, so wait until the
    // one before the head has arrived, then check that nothing beyond it did. A commit of the
    // later batches would have been handed to librdkafka when they finished, at least
    // HOLD_AFTER_LATER_MS ago; a commit reaches the broker in milliseconds.
    const whileHeld = await committed.waitFor((offset) => offset >= HEAD_OFFSET, `offset ${HEAD_OFFSET}, the batch before the head`);
    assert.equal(whileHeld, HEAD_OFFSET, `while the head batch at offset ${HEAD_OFFSET} runs, the committed offset must not pass it`);

    const heldMs = Date.now() - held.at;
    const turnsWhileHeld = loopTurns - held.turns;
    headReleased.resolve();
    assert.ok(turnsWhileHeld >= heldMs / 10 / 2, `the event loop turned only ${turnsWhileHeld} times in the ${heldMs} ms the head batch was held`);

    await allFinished.promise;
    await committed.waitFor((offset) => offset === MESSAGES, `offset ${MESSAGES}, every message`);
  } finally {
    headReleased.resolve();
    clearInterval(ticker);
    await consumer.stop();
  }
  assert.deepEqual([...handled].sort(), Array.from({ length: MESSAGES }, (_, index) => String(index)));
});
