// Which failures a retry can cure. A handler whose batch fails for one of these (the
// database or the broker is away, a lock was contended) retries it without limit and never
// sets a message aside; any other failure belongs to the message, and after a few attempts
// the message becomes a dead letter (platform/kafka/consumer.js).
import Kafka from 'node-rdkafka';

// mysql2 and Node socket codes of an unreachable, restarting or overloaded server.
const TRANSIENT_DATABASE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED', 'ER_QUERY_INTERRUPTED', 'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT',
  'ER_NET_READ_ERROR', 'ER_NET_WRITE_INTERRUPTED', 'ER_OPTION_PREVENTS_STATEMENT',
]);

// librdkafka errors that are the record's own fault; every other one is the cluster's state.
const { ERRORS } = Kafka.CODES;
const PERMANENT_KAFKA_CODES = new Set([
  ERRORS.ERR_MSG_SIZE_TOO_LARGE, ERRORS.ERR__MSG_SIZE_TOO_LARGE, ERRORS.ERR_INVALID_MSG, ERRORS.ERR__INVALID_ARG,
  ERRORS.ERR_INVALID_RECORD, ERRORS.ERR_RECORD_LIST_TOO_LARGE,
].filter((code) => code !== undefined));

function isKafkaError(error) {
  return typeof error.code === 'number' && typeof error.origin === 'string';
}

/**
 * True when retrying later can succeed. Code that knows better marks its own errors with
 * `transient: true` (a peer service that could not be reached). An AggregateError is
 * transient only when every error in it is: one permanent failure is the message's.
 */
export function isTransientFailure(error) {
  if (error === null || typeof error !== 'object') return false;
  if (error instanceof AggregateError) return error.errors.length > 0 && error.errors.every(isTransientFailure);
  if (error.transient === true) return true;
  // knex's pool: no connection within the acquire timeout.
  if (error.name === 'KnexTimeoutError') return true;
  if (error.fatal === true) return true;
  if (TRANSIENT_DATABASE_CODES.has(error.code)) return true;
  if (isKafkaError(error)) return !PERMANENT_KAFKA_CODES.has(error.code);
  return false;
}
