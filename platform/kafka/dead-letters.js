// Dead letters: a message a handler could not process after repeated attempts is written
// here, with where it came from and why it failed, so its partition can move on and an
// operator can read it and, once the cause is fixed, replay it (tools/dead-letters.js).
// The record keeps the original key and value byte for byte; replay produces exactly those.
import { deadLetterTopicBase, topicName } from './topics.js';
import { isTransientFailure } from '../transient-failures.js';

const ERROR_MESSAGE_LENGTH_MAX = 2_000;

/**
 * The dead-letter record's value for `message` ({ topic, partition, offset, key, value,
 * timestamp }). Without `withValue` the original bytes are left out and only their length
 * kept: the operator finds them at the source offset while the topic retains them.
 */
export function encodeDeadLetter({ handler, message, error, failures, at = new Date(), withValue = true }) {
  const value = Buffer.isBuffer(message.value) ? message.value : Buffer.from(message.value ?? '');
  return Buffer.from(JSON.stringify({
    handler,
    topic: message.topic,
    partition: message.partition,
    offset: message.offset,
    key: message.key,
    timestampMs: message.timestamp ?? null,
    failures,
    error: { name: error?.name ?? 'Error', code: error?.code ?? null, message: String(error?.message ?? error).slice(0, ERROR_MESSAGE_LENGTH_MAX) },
    deadLetteredAt: at.toISOString(),
    ...(withValue ? { valueBase64: value.toString('base64') } : { valueOmitted: true, valueBytes: value.length }),
  }), 'utf8');
}

/** Parses a dead-letter record's value; `value` is the original message value as a Buffer, or null if it was left out. */
export function decodeDeadLetter(buffer) {
  const record = JSON.parse(Buffer.isBuffer(buffer) ? buffer.toString('utf8') : String(buffer));
  const { valueBase64, ...rest } = record;
  return { ...rest, value: valueBase64 === undefined ? null : Buffer.from(valueBase64, 'base64') };
}

export function deadLetterTopic(topicPrefix, handler) {
  return topicName(topicPrefix, deadLetterTopicBase(handler));
}

/**
 * The consumer's `deadLetter(message, error, failures)` for one handler: `finish(message,
 * error)` returns the records that close what the message concerned (a transfer or quote
 * ended, its parties told), produced with the dead letter in one awaited call so the
 * partition moves on only once both are durable.
 */
export function createDeadLetterSink({ handler, producer, topicPrefix, logger, finish = async () => [], onDeadLetter = () => {} }) {
  const topic = deadLetterTopic(topicPrefix, handler);
  return async function deadLetter(message, error, failures) {
    let closing = [];
    try {
      closing = await finish(message, error);
    } catch (finishError) {
      // An outage is retried with the dead letter; anything else must not keep the message
      // from being set aside: what it concerned is left to its expiry and to a replay.
      if (isTransientFailure(finishError)) throw finishError;
      logger.error({ err: finishError, topic: message.topic, partition: message.partition, offset: message.offset }, 'could not finish what a dead letter concerned');
    }
    const letter = (withValue) => ({ topic, key: message.key, value: encodeDeadLetter({ handler, message, error, failures, withValue }) });
    try {
      await producer.produce([letter(true), ...closing]);
    } catch (produceError) {
      // The original bytes, a third larger as base64, may not fit under the broker's message
      // size when the original nearly did; a letter the broker refuses for good would hold
      // the partition forever, so it goes without them.
      if (isTransientFailure(produceError)) throw produceError;
      logger.warn({ err: produceError, topic: message.topic, partition: message.partition, offset: message.offset }, 'dead letter refused with its value; writing it without');
      await producer.produce([letter(false), ...closing]);
    }
    onDeadLetter(message);
  };
}
