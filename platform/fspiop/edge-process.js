// One composition root for every FSPIOP edge process (transfers, quotes, …): config parsed
// once, logger, metrics, a producer whose delivery reports gate every answer, a Kafka probe
// for /health, the shared HTTP base with the edge's routes, and an orderly SIGTERM.
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createMetrics } from '../metrics.js';
import { createHttpServer } from '../http/server.js';
import { createProducer } from '../kafka/producer.js';
import { createKafkaProbe } from '../kafka/health.js';
import { topicName } from '../kafka/topics.js';
import { createEventPublisher } from './publisher.js';
import { createDfspKeyStore, registerSignatureCheck } from './jws-keys.js';
import { edgeTlsOptions, registerClientIdentityCheck } from './client-identity.js';
import { registerRateLimit } from './rate-limit.js';
import { registerSourceRefusals, registerUnprovenSender } from './sender.js';
import { runComponent } from '../component.js';
import { preloadTransformFacades } from '../iso20022/transformer.js';

/**
 * The HTTP server of a DFSP-facing edge: HTTPS when configured, and before any route runs the
 * caller's client identity (mTLS) and its JWS signature are checked against FSPIOP-Source,
 * which leaves the request's sender and its proof (sender.js), then its rate limit.
 */
export function createDfspFacingServer({ config, logger, metrics, health, keyStore = createDfspKeyStore(config) }) {
  const tls = edgeTlsOptions(config.clientIdentity.tls);
  const server = createHttpServer({ port: config.httpPort, host: config.httpHost, tls, logger, metrics, health });
  registerSourceRefusals(server, { hubName: config.hubName });
  registerClientIdentityCheck(server, config.clientIdentity);
  registerSignatureCheck(server, { mode: config.jws.verification, keyStore, logger });
  registerUnprovenSender(server, { checksOff: config.clientIdentity.mode === 'off' && config.jws.verification === 'off' });
  // After the checks above, so only a request they proved spends its DFSP's tokens.
  registerRateLimit(server, { settings: config.rateLimit, metrics, logger });
  preloadTransformFacades(logger);
  return server;
}

/**
 * Builds an edge's HTTP server: `routes({ publisher, config })` returns its hapi routes;
 * `kafkaHealth()` resolves to 'OK' or 'DOWN'. Tests call this directly with their own
 * producer.
 */
export function createEdgeServer({ config, logger, metrics, producer, kafkaHealth, routes, keyStore }) {
  const publisher = createEventPublisher({
    producer, topicPrefix: config.kafka.topicPrefix, timeoutMs: config.kafka.produceTimeoutMs, metrics, logger,
  });
  const health = async () => ({ broker: await kafkaHealth() });
  const server = createDfspFacingServer({ config, logger, metrics, health, keyStore });
  server.route(routes({ publisher, config }));
  return server;
}

/**
 * Starts an edge as a component (platform/component.js) from `env`; `probeTopic` is the base
 * name of a topic the edge produces to.
 */
export async function startEdge({ name, defaultPort, probeTopic, routes }, env) {
  const config = loadConfig({ SERVICE_NAME: name, ...env }, { defaultPort, usesDatabase: false, operatorTokens: ['dfspDirectoryRead'] });
  const logger = createLogger(config);
  const metrics = createMetrics(config);
  const producer = createProducer({ kafka: config.kafka, logger, metrics });
  const probe = createKafkaProbe({ kafka: config.kafka, topic: topicName(config.kafka.topicPrefix, probeTopic) });
  await producer.connect();
  await probe.connect();
  const server = createEdgeServer({ config, logger, metrics, producer, kafkaHealth: () => probe.check(), routes });
  await server.start();
  logger.info({ port: server.info.port }, `${name} listening`);
  // Stopping the server first lets requests in flight finish their produce and get their
  // answer; only then is the producer flushed and closed.
  const stop = async () => {
    await server.stop({ timeout: 5000 });
    await producer.disconnect();
    await probe.disconnect();
  };
  return { name, logger, port: server.info.port, stop };
}

/** Runs an edge as a process of its own. */
export async function runEdgeProcess(spec) {
  return runComponent((env) => startEdge(spec, env));
}
