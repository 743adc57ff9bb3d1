// Reading and replaying a handler's dead letters (platform/kafka/dead-letters.js), for the
// operator command scripts/dead-letters.js and the tests. The dead-letter topic is read from
// its first offset to its end without a consumer group, so reading changes nothing.
import Kafka from 'node-rdkafka';
import { librdkafkaSecurity } from '../../platform/kafka/security.js';
import { decodeDeadLetter, deadLetterTopic } from '../../platform/kafka/dead-letters.js';

const READ_TIMEOUT_MS = 10_000;

function call(target, method, ...args) {
  return new Promise((resolve, reject) => target[method](...args, (error, result) => (error ? reject(error) : resolve(result))));
}

/** Every dead letter of `handler`, oldest first, each with `deadLetterOffset` and `value` (a Buffer, or null when it was left out). */
export async function readDeadLetters({ kafka, handler }) {
  const topic = deadLetterTopic(kafka.topicPrefix, handler);
  const consumer = new Kafka.KafkaConsumer({
    'bootstrap.servers': kafka.brokers, ...librdkafkaSecurity(kafka.security), 'group.id': `${kafka.groupPrefix}-dead-letter-reader`,
    'enable.auto.commit': false, 'client.id': `${kafka.clientId}-dead-letters`,
  }, {});
  await call(consumer, 'connect', { timeout: READ_TIMEOUT_MS });
  try {
    const { lowOffset, highOffset } = await call(consumer, 'queryWatermarkOffsets', topic, 0, READ_TIMEOUT_MS);
    if (highOffset <= lowOffset) return [];
    consumer.assign([{ topic, partition: 0, offset: lowOffset }]);
    const letters = [];
    const deadline = Date.now() + READ_TIMEOUT_MS;
    while (letters.length < highOffset - lowOffset && Date.now() < deadline) {
      const messages = await call(consumer, 'consume', 100);
      for (const message of messages) letters.push({ ...decodeDeadLetter(message.value), deadLetterOffset: message.offset });
    }
    return letters;
  } finally {
    await new Promise((resolve) => { consumer.disconnect(() => resolve()); });
  }
}

/**
 * Produces each dead letter's original record back onto the topic it came from, key and
 * value unchanged. The handlers are idempotent, so replaying a letter twice applies nothing twice.
 */
export async function replayDeadLetters({ producer, letters }) {
  await producer.produce(letters.map((letter) => ({ topic: letter.topic, key: letter.key, value: letter.value })));
}
