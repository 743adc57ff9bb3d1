// Dead letters: a message a handler could not process after repeated attempts is written
// here, with where it came from and why it failed, so its partition can move on and an
// operator can read it and, once the cause is fixed, replay it (scripts/dead-letters.js).
// The record keeps the original key and value byte for byte; replay produces exactly those.
import { deadLetterTopicBase, topicName } from './topics.js';
import { isTransientFailure } from '../transient-failures.js';

const ERROR_MESSAGE_LENGTH_MAX = 2_000;

/** The dead-letter record's value for `message` ({ topic, partition, offset, key, value, timestamp }). */
export function encodeDeadLetter({ handler, message, error, failures, at = new Date() }) {
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
    valueBase64: value.toString('base64'),
  }), 'utf8');
}

/** Parses a dead-letter record's value; `value` is the original message value as a Buffer. */
export function decodeDeadLetter(buffer) {
  const record = JSON.parse(Buffer.isBuffer(buffer) ? buffer.toString('utf8') : String(buffer));
  const { valueBase64, ...rest } = record;
  return { ...rest, value: Buffer.from(valueBase64 ?? '', 'base64') };
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
    const record = { topic, key: message.key, value: encodeDeadLetter({ handler, message, error, failures }) };
    await producer.produce([record, ...closing]);
    onDeadLetter(message);
  };
}
