// A promise-based Kafka producer whose produce() resolves only when the broker has
// acknowledged every record (acks=all). The HTTP edges answer 202 and the handlers commit
// their offsets on the strength of that promise (DESIGN.md, "Processing contract").
import Kafka from 'node-rdkafka';
import { librdkafkaSecurity } from './security.js';
import { noteBrokerError } from './broker-errors.js';

const ERR_QUEUE_FULL = Kafka.CODES.ERRORS.ERR__QUEUE_FULL;
const QUEUE_FULL_RETRY_MS = 5;
const DEFAULT_POLL_INTERVAL_MS = 1;
const DISCONNECT_FLUSH_MS = 10_000;

export function producerConfig(kafka, overrides = {}) {
  return {
    'bootstrap.servers': kafka.brokers,
    ...librdkafkaSecurity(kafka.security),
    'client.id': kafka.clientId,
    // The delivery report is the acknowledgement we wait for; without it nothing resolves.
    dr_cb: true,
    'request.required.acks': -1,
    // Idempotence keeps librdkafka's internal retries from writing a record twice or out of
    // order, which matters because a retried record would otherwise be a second event.
    'enable.idempotence': true,
    // Many concurrent produce() calls share one broker request when they arrive within
    // the linger window; this replaces any per-call flush.
    'linger.ms': 2,
    'compression.type': 'lz4',
    'socket.nagle.disable': true,
    // A record not durable within this time fails its produce() call instead of holding an
    // HTTP request or a batch for librdkafka's default five minutes (a missing topic, say);
    // config.js derives it from KAFKA_PRODUCE_TIMEOUT_MS, below the edges' answer deadline.
    'message.timeout.ms': kafka.messageTimeoutMs ?? 30_000,
    // A record for a topic the broker does not (yet) list waits for the topic this long, and
    // message.timeout.ms does not end that wait, so it gets the same bound.
    'topic.metadata.propagation.max.ms': kafka.messageTimeoutMs ?? 30_000,
    ...overrides,
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Tracks the records of one produce() call: it settles once every record that reached
 * librdkafka's queue has a delivery report, and rejects if any of them failed.
 */
function createCall(count, openCalls, resolve, reject) {
  const call = { remaining: count, error: null };
  call.settle = (error, n = 1) => {
    if (error && !call.error) call.error = error;
    call.remaining -= n;
    if (call.remaining <= 0 && openCalls.delete(call)) {
      if (call.error) reject(call.error);
      else resolve();
    }
  };
  openCalls.add(call);
  return call;
}

function asBuffer(value) {
  if (Buffer.isBuffer(value)) return value;
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  throw new TypeError('record.value must be a Buffer or a string');
}

/** Serves delivery reports; a producer that is not connected has none to serve. */
function poll(producer) {
  try { producer.poll(); } catch { /* Disconnected. */ }
}

/**
 * Counts records awaiting a delivery report and polls librdkafka only while there are some,
 * so an idle process stays idle while a short interval keeps acknowledgement latency close
 * to the broker's. The alternatives were measured at 2,000 records/s on one 2-core machine:
 * node-rdkafka's setPollInterval is the same timer, but it runs while idle too; a 2 ms
 * interval used a fifth less of the process's CPU (about 9 % of a core instead of 11-12 %)
 * but added close to a millisecond to the median acknowledgement (4.5 ms instead of 3.5-4.7);
 * and a flush() kept running on the thread pool while records are pending delivers reports
 * at once (median 0.8 ms) for slightly more CPU, because librdkafka sends immediately while
 * a flush is under way, ignoring linger.ms and the batching of produce requests it buys.
 */
function createReportPoller(producer, intervalMs) {
  let pending = 0;
  let timer = null;
  return {
    add(delta) {
      pending += delta;
      if (pending > 0 && timer === null) timer = setInterval(() => poll(producer), intervalMs);
      else if (pending <= 0 && timer !== null) { clearInterval(timer); timer = null; }
    },
    clear() { this.add(-pending); },
    count: () => pending,
  };
}

/**
 * Enqueues the records of one call in order, waiting (not failing) while librdkafka's
 * local queue is full. If a record cannot be enqueued, the rest are counted as failed and
 * the call settles once the records already queued have reported.
 */
async function enqueueAll(producer, poller, records, call, queueFullTimeoutMs) {
  for (let index = 0; index < records.length; index += 1) {
    const { topic, key, value } = records[index];
    const deadline = Date.now() + queueFullTimeoutMs;
    for (;;) {
      try {
        producer.produce(topic, null, asBuffer(value), key ?? null, null, call);
        poller.add(1);
        break;
      } catch (error) {
        if (error.code === ERR_QUEUE_FULL && Date.now() < deadline) {
          poll(producer);
          await sleep(QUEUE_FULL_RETRY_MS);
          continue;
        }
        call.settle(error, records.length - index);
        return;
      }
    }
  }
}

/** Flushes what is queued, disconnects, and fails any call whose records never reported. */
function flushAndDisconnect(producer, poller, openCalls, log) {
  return new Promise((resolve, reject) => {
    if (!producer.isConnected()) { resolve(); return; }
    producer.flush(DISCONNECT_FLUSH_MS, (flushError) => {
      if (flushError) log.warn({ err: flushError }, 'kafka producer flush before disconnect failed');
      producer.disconnect((error) => {
        poller.clear();
        // A record still unreported after the flush is not known to be durable.
        const lost = Object.assign(new Error('kafka producer disconnected before delivery was confirmed'), { transient: true });
        for (const call of [...openCalls]) call.settle(lost, call.remaining);
        if (error) reject(error);
        else resolve();
      });
    });
  });
}

function producedCounter(metrics) {
  const counter = new metrics.client.Counter({
    name: 'kafka_messages_produced_total',
    help: 'Records the broker acknowledged, by topic.',
    labelNames: ['topic'],
    registers: [metrics.registry],
  });
  return (records) => {
    const perTopic = new Map();
    for (const { topic } of records) perTopic.set(topic, (perTopic.get(topic) ?? 0) + 1);
    for (const [topic, count] of perTopic) counter.inc({ topic }, count);
  };
}

/**
 * Creates a producer. `produce(records)` takes `[{ topic, key, value }]` (value a Buffer or
 * a string) and resolves when every record was acknowledged, or rejects if any failed.
 * `config` adds or overrides librdkafka properties. With `metrics` (platform/metrics.js),
 * acknowledged records are counted per topic.
 */
export function createProducer({ kafka, logger, metrics, pollIntervalMs = DEFAULT_POLL_INTERVAL_MS, queueFullTimeoutMs = kafka.enqueueTimeoutMs ?? 30_000, config = {} }) {
  const countProduced = metrics ? producedCounter(metrics) : () => {};
  const log = logger.child({ component: 'kafka-producer' });
  const producer = new Kafka.Producer(producerConfig(kafka, config));
  const poller = createReportPoller(producer, pollIntervalMs);
  const openCalls = new Set();

  producer.on('delivery-report', (error, report) => {
    poller.add(-1);
    report.opaque?.settle(error ?? null);
  });
  producer.on('event.error', (error) => {
    noteBrokerError();
    log.warn({ err: error, code: error.code }, 'kafka producer error');
  });

  return {
    connect() {
      return new Promise((resolve, reject) => {
        producer.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve()));
      });
    },
    produce(records) {
      if (records.length === 0) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const call = createCall(records.length, openCalls, resolve, reject);
        enqueueAll(producer, poller, records, call, queueFullTimeoutMs);
      }).then(() => countProduced(records));
    },
    disconnect: () => flushAndDisconnect(producer, poller, openCalls, log),
    pendingCount: () => poller.count(),
  };
}
