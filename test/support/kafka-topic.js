// What the consumer tests share: a topic of their own on the real Kafka with a connected
// producer, removed when the test ends, and a wait for a condition.
import pino from 'pino';
import { testConfig, uniqueSuffix } from './environment.js';
import { createAdminClient, createTopic, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { deadLetterTopic, encodeDeadLetter } from '../../platform/kafka/dead-letters.js';
import { topicName } from '../../platform/kafka/topics.js';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves to `predicate()`'s first truthy value; fails naming `description` after `timeoutMs`. */
export async function waitFor(description, predicate, timeoutMs, intervalMs = 100) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    await sleep(intervalMs);
  }
}

/**
 * A topic named after `name` with `partitions` (created now unless `createTopicNow` is false;
 * then the caller creates it with `admin`), a connected producer, and their clean-up after `t`.
 */
export async function topicWithProducer(t, name, { partitions = 1, createTopicNow = true, logLevel = 'warn' } = {}) {
  const config = testConfig();
  const logger = pino({ level: logLevel });
  const topic = `test-${name}-${uniqueSuffix()}`;
  const admin = createAdminClient(config.kafka);
  if (createTopicNow) await createTopic(admin, { topic, partitions });
  const producer = createProducer({ kafka: config.kafka, logger });
  await producer.connect();
  t.after(async () => {
    await producer.disconnect();
    await deleteTopic(admin, topic).catch(() => {});
    admin.disconnect();
  });
  return { config, logger, topic, producer, admin };
}

/**
 * Sets a message aside on `handler`'s dead-letter topic of the switch with topic prefix
 * `prefix`, as the handler would after `failures` attempts: the message came from the
 * switch's topic `sourceTopic` (a TOPIC name) with `key` and `value`, and failed with `reason`.
 */
export async function produceDeadLetter({ prefix, handler, sourceTopic, key, value, reason, failures = 3 }) {
  const config = testConfig();
  const producer = createProducer({ kafka: config.kafka, logger: pino({ level: 'warn' }) });
  await producer.connect();
  try {
    const message = { topic: topicName(prefix, sourceTopic), partition: 0, offset: 7, key, value: Buffer.from(value), timestamp: Date.now() };
    await producer.produce([{ topic: deadLetterTopic(prefix, handler), key, value: encodeDeadLetter({ handler, message, error: new Error(reason), failures }) }]);
  } finally {
    await producer.disconnect();
  }
}
