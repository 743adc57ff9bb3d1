// Reading and replaying a handler's dead letters (dead-letters.js writes them), for the
// operator command tools/dead-letters.js, the admin API's /deadLetters and the tests. Every
// partition of the dead-letter topic is read from its first offset to its high watermark as
// it was when the read began, without a consumer group, so reading changes nothing and
// letters written meanwhile wait for the next read.
import Kafka from 'node-rdkafka';
import { librdkafkaSecurity } from './security.js';
import { decodeDeadLetter, deadLetterTopic } from './dead-letters.js';

const CALL_TIMEOUT_MS = 10_000;
// The whole read: far more than a topic of dead letters takes, so only a broker that stopped
// answering reaches it.
const READ_TIMEOUT_MS = 120_000;
const CONSUME_BATCH_MAX = 500;

function call(target, method, ...args) {
  return new Promise((resolve, reject) => target[method](...args, (error, result) => (error ? reject(error) : resolve(result))));
}

async function partitionsOf(consumer, topic) {
  const metadata = await call(consumer, 'getMetadata', { topic, timeout: CALL_TIMEOUT_MS });
  const found = metadata.topics.find((candidate) => candidate.name === topic);
  if (!found || found.partitions.length === 0) throw new Error(`the dead-letter topic ${topic} does not exist (tools/create-topics.js makes it)`);
  return found.partitions.map((partition) => partition.id).sort((a, b) => a - b);
}

/**
 * Consumes each range `{ partition, low, high }` until its next offset reaches `high`: a
 * record from that offset on was written after the read began. Partition EOF also ends a
 * range, in case the last offsets before `high` hold no record (transaction markers).
 */
async function consumeRanges(consumer, topic, ranges, timeoutMs) {
  const next = new Map(ranges.map((range) => [range.partition, range.low]));
  const highOf = new Map(ranges.map((range) => [range.partition, range.high]));
  const ended = new Set();
  const pending = () => ranges.filter((range) => !ended.has(range.partition) && next.get(range.partition) < range.high);
  consumer.on('partition.eof', ({ partition, offset }) => {
    if (offset >= highOf.get(partition)) ended.add(partition);
  });
  consumer.assign(ranges.map((range) => ({ topic, partition: range.partition, offset: range.low })));
  const letters = [];
  const deadline = Date.now() + timeoutMs;
  while (pending().length > 0) {
    if (Date.now() >= deadline) {
      const behind = pending().map((range) => `partition ${range.partition} at offset ${next.get(range.partition)} of ${range.high}`);
      throw new Error(`reading ${topic} took longer than ${timeoutMs} ms: ${behind.join(', ')}`);
    }
    for (const message of await call(consumer, 'consume', CONSUME_BATCH_MAX)) {
      if (message.offset >= highOf.get(message.partition) || message.offset < next.get(message.partition)) continue;
      letters.push({ ...decodeDeadLetter(message.value), deadLetterPartition: message.partition, deadLetterOffset: message.offset });
      next.set(message.partition, message.offset + 1);
    }
  }
  return letters;
}

/** Oldest first; letters set aside in the same millisecond keep their partition and offset order. */
function byAge(a, b) {
  return a.deadLetteredAt.localeCompare(b.deadLetteredAt) || a.deadLetterPartition - b.deadLetterPartition || a.deadLetterOffset - b.deadLetterOffset;
}

/**
 * `handler`'s dead-letter topic: `{ topic, partitions, letters }`, the letters oldest first,
 * each with `deadLetterPartition`, `deadLetterOffset` and `value` (a Buffer, or null when it
 * was left out). Fails with what is missing when the topic cannot be read to its end within
 * `timeoutMs`.
 */
export async function readDeadLetterTopic({ kafka, handler, timeoutMs = READ_TIMEOUT_MS }) {
  const topic = deadLetterTopic(kafka.topicPrefix, handler);
  const consumer = new Kafka.KafkaConsumer({
    'bootstrap.servers': kafka.brokers, ...librdkafkaSecurity(kafka.security), 'group.id': `${kafka.groupPrefix}-dead-letter-reader`,
    'enable.auto.commit': false, 'enable.partition.eof': true, 'client.id': `${kafka.clientId}-dead-letters`,
    // The ranges read are known to hold records: a fetch need not wait for more to arrive.
    'fetch.wait.max.ms': 10,
  }, {});
  await call(consumer, 'connect', { timeout: CALL_TIMEOUT_MS });
  try {
    const partitions = await partitionsOf(consumer, topic);
    const ranges = [];
    for (const partition of partitions) {
      const { lowOffset, highOffset } = await call(consumer, 'queryWatermarkOffsets', topic, partition, CALL_TIMEOUT_MS);
      if (highOffset > lowOffset) ranges.push({ partition, low: lowOffset, high: highOffset });
    }
    const letters = ranges.length === 0 ? [] : await consumeRanges(consumer, topic, ranges, timeoutMs);
    return { topic, partitions: partitions.length, letters: letters.sort(byAge) };
  } finally {
    await new Promise((resolve) => { consumer.disconnect(() => resolve()); });
  }
}

/** Every dead letter of `handler`, oldest first (readDeadLetterTopic's letters). */
export async function readDeadLetters(options) {
  return (await readDeadLetterTopic(options)).letters;
}

/** A letter's address on its dead-letter topic, as `list` prints it and `replay` takes it. */
export function deadLetterAddress(letter) {
  return `${letter.deadLetterPartition}:${letter.deadLetterOffset}`;
}

/**
 * The letters `selectors` name: `all`, or addresses `<partition>:<offset>`; a bare offset
 * names partition 0's on a topic of one partition (offsets are per partition, so on more it
 * would be ambiguous). Returns `{ wanted }` or `{ refusal }` saying which selectors match nothing.
 */
export function selectDeadLetters({ partitions, letters }, selectors) {
  if (selectors.includes('all')) return { wanted: letters };
  const bare = selectors.filter((selector) => /^\d+$/.test(selector));
  if (bare.length > 0 && partitions > 1) {
    return { refusal: `the topic has ${partitions} partitions: name ${bare.join(', ')} as <partition>:<offset>, as list prints them` };
  }
  const addresses = selectors.map((selector) => (/^\d+$/.test(selector) ? `0:${selector}` : selector));
  const byAddress = new Map(letters.map((letter) => [deadLetterAddress(letter), letter]));
  const unknown = selectors.filter((selector, index) => !byAddress.has(addresses[index]));
  if (unknown.length > 0) return { refusal: `no dead letter at ${unknown.join(', ')}` };
  return { wanted: [...new Set(addresses)].map((address) => byAddress.get(address)) };
}

/**
 * Produces each dead letter's original record back onto the topic it came from, key and
 * value unchanged. The handlers are idempotent, so replaying a letter twice applies nothing twice.
 */
export async function replayDeadLetters({ producer, letters }) {
  await producer.produce(letters.map((letter) => ({ topic: letter.topic, key: letter.key, value: letter.value })));
}
