// The pipelined batch consumer (the notification handler's mode) against a real Kafka: when
// the pipeline is full and the batch at its head is still running while later ones have
// finished, the consumer must wait for the head without starving the event loop, so the
// head's own I/O (here a timer; in production a DFSP's HTTP answer) can complete. Offsets
// are committed only up to the first unfinished batch, and every message is handled once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { testConfig, uniqueSuffix } from '../support/environment.js';
import { createAdminClient, createTopic, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { startBatchConsumer } from '../../platform/kafka/consumer.js';

const MESSAGES = 6;
const HEAD_DELAY_MS = 300;

test('a slow head batch in a full pipeline finishes, and the loop does not spin meanwhile', { timeout: 60_000 }, async (t) => {
  const config = testConfig();
  const logger = pino({ level: 'warn' });
  const topic = `test-pipeline-${uniqueSuffix()}`;
  const admin = createAdminClient(config.kafka);
  await createTopic(admin, { topic, partitions: 1 });
  const producer = createProducer({ kafka: config.kafka, logger });
  await producer.connect();
  t.after(async () => {
    await producer.disconnect();
    await deleteTopic(admin, topic).catch(() => {});
    admin.disconnect();
  });
  await producer.produce(Array.from({ length: MESSAGES }, (_, index) => ({ topic, key: 'one-key', value: String(index) })));

  const handled = [];
  let loopTurns = 0;
  let allHandled;
  const finished = new Promise((resolve) => { allHandled = resolve; });
  // A macrotask counter: if the consumer loop spun on microtasks, it would stay at zero.
  const ticker = setInterval(() => { loopTurns += 1; }, 10);
  const consumer = await startBatchConsumer({
    kafka: config.kafka, groupId: `test-pipeline-${uniqueSuffix()}`, topics: [topic], logger,
    batchSizeMax: 1, pipelineDepthMax: 2,
    handleBatch: async ([message]) => {
      if (message.value.toString() === '0') await new Promise((resolve) => setTimeout(resolve, HEAD_DELAY_MS));
      handled.push(message.value.toString());
      if (handled.length === MESSAGES) allHandled();
    },
  });
  try {
    await finished;
  } finally {
    clearInterval(ticker);
    await consumer.stop();
  }
  assert.deepEqual([...handled].sort(), Array.from({ length: MESSAGES }, (_, index) => String(index)));
  assert.ok(loopTurns >= HEAD_DELAY_MS / 10 / 2, `the event loop turned only ${loopTurns} times while the head batch waited`);
});
