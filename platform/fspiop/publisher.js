// How an FSPIOP edge hands a request on: one event, produced and acknowledged by Kafka
// (acks=all) before the DFSP hears 202/200 (DESIGN.md, "Processing contract"). A produce
// that fails or takes longer than the configured time becomes a synchronous 503 with 2003,
// so a DFSP is never left hanging and knows to retry. If the slow record does land later,
// the retry is a duplicate with the same content, which the handlers already treat as a
// resend rather than a new request.
import { encodeEvent } from '../kafka/envelope.js';
import { topicName } from '../kafka/topics.js';
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
  const existing = metrics.registry.getSingleMetric(PRODUCED_METRIC);
  if (existing) return existing;
  return new metrics.client.Counter({
    name: PRODUCED_METRIC,
    help: 'Events an FSPIOP edge produced and Kafka acknowledged, by topic (base name).',
    labelNames: ['topic'],
    registers: [metrics.registry],
  });
}

/**
 * `publish(baseTopic, event)` encodes the event, produces it keyed by `event.id` to the
 * prefixed topic, and resolves to null once Kafka acknowledged it, or to an
 * fspiopFailure(2003) when Kafka failed or did not answer within `timeoutMs`.
 */
export function createEventPublisher({ producer, topicPrefix, timeoutMs, metrics, logger }) {
  const produced = producedCounter(metrics);
  const log = logger.child({ component: 'fspiop-publisher' });
  return {
    async publish(baseTopic, event) {
      const record = { topic: topicName(topicPrefix, baseTopic), key: event.id, value: encodeEvent(event) };
      try {
        await within(producer.produce([record]), timeoutMs);
      } catch (error) {
        log.warn({ err: error, topic: record.topic, id: event.id, action: event.action }, 'event not acknowledged by Kafka');
        return fspiopFailure(2003, 'the request could not be stored; retry later');
      }
      produced.inc({ topic: baseTopic });
      return null;
    },
  };
}
