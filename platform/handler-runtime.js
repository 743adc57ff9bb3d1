// What every handler process shares: one composition root (config parsed once, logger,
// metrics, database, producer), a /health and /metrics server, a batch consumer wired to
// the processing contract, batch metrics, and an orderly SIGTERM.
import { loadConfig } from './config.js';
import { createDatabase, createSqlPool } from './db.js';
import { createLogger } from './logger.js';
import { createMetrics, metricOnce, registerConsumerLag } from './metrics.js';
import { createHttpServer } from './http/server.js';
import { createProducer } from './kafka/producer.js';
import { startBatchConsumer } from './kafka/consumer.js';
import { decodeEvent, isMalformedEvent } from './kafka/envelope.js';
import { createDeadLetterSink } from './kafka/dead-letters.js';
import { isTransientFailure } from './transient-failures.js';
import { TOPIC, topicName } from './kafka/topics.js';
import { runComponent } from './component.js';

/** Topic names under the configured prefix, by their base names' keys (TOPIC). */
export function topicsOf(config) {
  return Object.fromEntries(Object.entries(TOPIC).map(([key, base]) => [key, topicName(config.kafka.topicPrefix, base)]));
}

/**
 * Starts a handler as a component (platform/component.js) from `env`. `start(deps)` begins
 * the work and returns `{ stop, healthy }`, and `health()` when the work is a consumer
 * (consumeEvents). Rejects when configuration or a connection is missing at start-up.
 */
export async function startHandler({ name, defaultPort, start }, env) {
  const config = loadConfig({ SERVICE_NAME: name, ...env }, { defaultPort });
  const logger = createLogger(config);
  const metrics = createMetrics(config);
  const db = createDatabase(config.db, { metrics });
  const producer = createProducer({ kafka: config.kafka, logger, metrics });
  await producer.connect();
  const work = await start({ config, logger, metrics, db, producer, topics: topicsOf(config), env });
  const server = createHttpServer({ port: config.httpPort, host: config.httpHost, logger, metrics, health: () => healthOf(db, work) });
  await server.start();
  logger.info({ port: config.httpPort }, `${name} handler running`);
  const stopWatching = exitWhenStalled(logger, work.health ? [work.health] : []);
  const stop = async () => {
    stopWatching();
    await work.stop();
    await producer.disconnect();
    await server.stop({ timeout: 2000 });
    await db.destroy();
  };
  return { name, logger, port: config.httpPort, stop };
}

/** Runs a handler as a process of its own (fails fast, exit 1, when it cannot start). */
export async function runHandlerProcess(spec) {
  return runComponent((env) => startHandler(spec, env));
}

async function healthOf(db, work) {
  let datastore = 'OK';
  try {
    await db.raw('SELECT 1');
  } catch {
    datastore = 'DOWN';
  }
  return { datastore, broker: work.healthy() ? 'OK' : 'DOWN', consumer: consumerCheck(work.health) };
}

/** A consumer's `health` as a /health check: its status, with the reason when it has one. */
export function consumerCheck(health) {
  const { status, reason } = health?.() ?? { status: 'OK' };
  return reason ? { status, reason } : status;
}

const WATCH_INTERVAL_MS = 1_000;

/**
 * Ends the process (code 1) once one of `healths` (each a consumer's health()) says that only
 * a restart can cure it, so that whatever runs the process (Kubernetes, perf/chaos.js)
 * starts it again: a consumer that stopped polling or cannot get back into its group must
 * not hold its partitions silently. In a process that hosts several components
 * (scripts/compact-host.js) this ends them all: a stalled consumer cannot be restarted alone
 * (librdkafka's state is in the process), and each of the others recovers from Kafka and the
 * database as after any crash. Returns the function that stops watching (on SIGTERM).
 */
export function exitWhenStalled(logger, healths) {
  const timer = setInterval(() => {
    for (const health of healths) {
      const { status, reason, exit } = health();
      if (!exit) continue;
      logger.fatal({ status, reason }, 'the Kafka consumer cannot make progress; exiting so that the process is restarted');
      process.exit(1);
    }
  }, WATCH_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Starts a handler's batch consumer of the topics in `subscribeTo` (names as in `topics`):
 * events are decoded (a malformed one is logged and skipped, never retried forever) and
 * passed to `handleEvents`; the consumer commits offsets only after it resolved. Topics
 * consumed together must be keyed alike with equal partition counts, so that one member
 * gets the same partitions of each (range assignment) and sees one key's events in order.
 * A message that keeps failing for a reason other than an outage becomes a dead letter on
 * the handler's dead-letter topic, together with what `finishDeadLetter(event, error)`
 * returns: the records that end the transfer or quote it concerned.
 */
export async function consumeEvents({ name, subscribeTo, config, logger, metrics, producer, handleEvents, finishDeadLetter }) {
  const batchSize = new metrics.client.Histogram({
    name: 'handler_batch_size', help: 'Events per consumed batch.', labelNames: ['handler'],
    buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], registers: [metrics.registry],
  });
  const batchDuration = new metrics.client.Histogram({
    name: 'handler_batch_duration_seconds', help: 'Time to process one batch: prefetch, decide, apply, produce.',
    labelNames: ['handler'], buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [metrics.registry],
  });
  let connected = false;
  const consumer = await startBatchConsumer({
    ...deadLetterOptions({ name, subscribeTo, config, logger, metrics, producer, finishDeadLetter }),
    kafka: config.kafka,
    groupId: `${config.kafka.groupPrefix}-${name}`,
    topics: subscribeTo,
    logger,
    handleBatch: async (messages) => {
      const stopTimer = batchDuration.startTimer({ handler: name });
      batchSize.observe({ handler: name }, messages.length);
      const events = decodeEvents(messages, logger);
      if (events.length > 0) await handleEvents(events);
      stopTimer();
    },
  });
  connected = true;
  registerConsumerLag(metrics, { handler: name, consumer });
  return {
    stop: () => consumer.stop(), healthy: () => connected, stats: () => consumer.stats(), health: () => consumer.health(),
  };
}

/**
 * The consumer options that turn a message failing for good into a dead letter: the sink,
 * the settings, the failure classification, and a counter the alert rules watch.
 */
export function deadLetterOptions({ name, subscribeTo, config, logger, metrics, producer, finishDeadLetter }) {
  const deadLetters = metricOnce(metrics, metrics.client.Counter, {
    name: 'handler_dead_letters_total', help: 'Messages a handler set aside as dead letters, by handler and source topic.', labelNames: ['handler', 'topic'],
  });
  const baseTopic = (topic) => topic.slice(config.kafka.topicPrefix.length);
  // Zero from the start, so the alert's expression has data before anything goes wrong.
  for (const topic of subscribeTo) deadLetters.inc({ handler: name, topic: baseTopic(topic) }, 0);
  const finish = async (message, error) => {
    let event;
    try {
      event = decodeEvent(message.value);
    } catch {
      return [];
    }
    return finishDeadLetter ? finishDeadLetter(event, error) : [];
  };
  return {
    deadLetter: createDeadLetterSink({
      handler: name, producer, topicPrefix: config.kafka.topicPrefix, logger, finish,
      onDeadLetter: (message) => deadLetters.inc({ handler: name, topic: baseTopic(message.topic) }),
    }),
    isTransient: isTransientFailure,
    deadLetterAfterFailures: config.kafka.deadLetterAfterFailures,
    stuckAfterMs: config.kafka.handlerStuckAfterMs,
    exitAfterMs: config.kafka.handlerExitAfterMs,
  };
}

export function decodeEvents(messages, logger) {
  const events = [];
  for (const message of messages) {
    try {
      events.push(decodeEvent(message.value));
    } catch (error) {
      if (!isMalformedEvent(error)) throw error;
      logger.error({ topic: message.topic, partition: message.partition, offset: message.offset, reason: error.message }, 'malformed event skipped');
    }
  }
  return events;
}

/**
 * Starts `start(pool)` with a mysql2 pool of its own for a handler's hot path (prepare,
 * position, fulfil) and ends the pool after the work it returns has stopped, or at once if
 * starting failed.
 */
export async function withSqlPool(dbConfig, start) {
  const pool = createSqlPool(dbConfig);
  let work;
  try {
    work = await start(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return { ...work, stop: async () => { await work.stop(); await pool.end(); } };
}
