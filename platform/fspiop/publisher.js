// How an FSPIOP edge hands a request on: one event, produced and acknowledged by Kafka
// (acks=all) before the DFSP hears 202/200 (DESIGN.md, "Processing contract"). A produce
// that fails becomes a synchronous 503 with 2003, so a DFSP is never left hanging and knows
// to retry. "Not stored" must mean the record can no longer land, or a DFSP that retries
// with a new transferId pays twice: the producer gives a record up (enqueue wait plus
// librdkafka's message.timeout.ms) before the edge's own deadline `timeoutMs`, both derived
// from KAFKA_PRODUCE_TIMEOUT_MS in platform/config.js, so the deadline here is only a backstop.
import { encodeEvent } from '../kafka/envelope.js';
import { topicName } from '../kafka/topics.js';
import { metricOnce } from '../metrics.js';
import { fspiopFailure } from './edge.js';

const PRODUCED_METRIC = 'fspiop_edge_events_produced_total';

class ProduceTimeoutError extends Error {
  constructor(timeoutMs) {
    super(`Kafka did not acknowledge the event within ${timeoutMs} ms`);
    this.name = 'ProduceTimeoutError';
  }
}

function within(promise, timeoutMs) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new ProduceTimeoutError(timeoutMs)), timeoutMs);
  });
  // Promise.race subscribes to the produce promise, so its late rejection is handled.
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function producedCounter(metrics) {
  return metricOnce(metrics, metrics.client.Counter, {
    name: PRODUCED_METRIC, help: 'Events an FSPIOP edge produced and Kafka acknowledged, by topic (base name).', labelNames: ['topic'],
  });
}

// librdkafka's RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE: a record over message.max.bytes.
const ERR_MSG_SIZE_TOO_LARGE = 10;

/**
 * `publish(baseTopic, event)` encodes the event, produces it keyed by `event.id` to the
 * prefixed topic, and resolves to null once Kafka acknowledged it, or to an
 * fspiopFailure(2003) when Kafka failed or did not answer within `timeoutMs`, or 3104 when
 * the event is larger than Kafka takes.
 */
export function createEventPublisher({ producer, topicPrefix, timeoutMs, metrics, logger }) {
  const produced = producedCounter(metrics);
  const log = logger.child({ component: 'fspiop-publisher' });
  return {
    async publish(baseTopic, event) {
      const topic = topicName(topicPrefix, baseTopic);
      let record;
      try {
        record = { topic, key: event.id, value: encodeEvent(event) };
      } catch (error) {
        // The edge's limits keep such a body out, so this is a request no event can carry
        // (too deep for JSON.stringify, say): the DFSP hears why, and nothing is produced.
        log.warn({ err: error, topic, id: event.id, action: event.action }, 'event could not be encoded');
        return fspiopFailure(3100, 'the request cannot be carried as an event');
      }
      try {
        await within(producer.produce([record]), timeoutMs);
      } catch (error) {
        // Kafka refuses a record over its largest message at once, and would refuse the same
        // request every time: the DFSP must hear that it is too large, not to retry it.
        if (error?.code === ERR_MSG_SIZE_TOO_LARGE) {
          log.warn({ err: error, topic: record.topic, id: event.id, action: event.action, bytes: record.value.length }, 'event larger than Kafka carries');
          return fspiopFailure(3104, 'the request\'s event is larger than the largest message the switch carries; send a smaller request');
        }
        log.warn({ err: error, topic: record.topic, id: event.id, action: event.action }, 'event not acknowledged by Kafka');
        return fspiopFailure(2003, 'the request could not be stored; retry later');
      }
      produced.inc({ topic: baseTopic });
      return null;
    },
  };
}
