// The notification handler component: consumes topic-notification-event and makes
// one HTTP callback per event (handlers/README.md), and consumes topic-notification-retry,
// where callbacks that could not be delivered wait for their next attempt (retry.js).
// Health and metrics on PORT (default 4301). Startable in a process of its own (main.js) or
// beside others (scripts/compact-host.js).
import { loadConfig } from '../../platform/config.js';
import { createLogger } from '../../platform/logger.js';
import { createMetrics, registerConsumerLag } from '../../platform/metrics.js';
import { createHttpServer } from '../../platform/http/server.js';
import { startBatchConsumer } from '../../platform/kafka/consumer.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { TOPIC, topicName } from '../../platform/kafka/topics.js';
import { createCallbackDelivery } from '../../platform/delivery/callback-delivery.js';
import { readDeliveryConfig } from '../../platform/delivery/config.js';
import { readNotificationConfig } from './config.js';
import { createNotificationHandler, createNotifyContext } from './handler.js';
import { createNotificationMetrics } from './metrics.js';
import { createHubSigner, readHubSigningKey } from '../../platform/delivery/hub-signature.js';
import { createRetryHandler, createRetryScheduler, createRetryWaiter } from './retry.js';
import { createRequesterNotifier } from './requester-notifier.js';
import { consumerCheck, deadLetterOptions, exitWhenStalled } from '../../platform/handler-runtime.js';
import { preloadTransformFacades } from '../../platform/iso20022/transformer.js';

function readSettings(processEnv) {
  const env = { SERVICE_NAME: 'notification-handler', ...processEnv };
  const config = loadConfig(env, {
    defaultPort: 4301, usesDatabase: false, operatorTokens: ['dfspDirectoryRead'], signsAsHub: true,
  });
  // The delivery settings every sender of callbacks shares, and this handler's own, from the same environment.
  return { config, delivery: readDeliveryConfig(env), settings: readNotificationConfig(env) };
}

/**
 * What delivers callbacks: the endpoints, the deliverer and the hub's signature and client
 * certificate, read once at start-up (a missing or unreadable key stops the component here,
 * not at the first callback).
 */
function createDelivery({ config, delivery, logger, metrics }) {
  const hubSigningKey = readHubSigningKey(config.jws);
  const { endpoints, deliverer, tls: callbackTls, versions } = createCallbackDelivery({
    settings: delivery, adminApiUrl: config.adminApiUrl, adminApiToken: config.operatorAuth.tokens.dfspDirectoryRead,
    allowLinkLocal: config.callbackUrlsAllowLinkLocal, logger,
  });
  const notificationMetrics = createNotificationMetrics(metrics);
  const context = createNotifyContext({
    endpoints, deliverer, logger, hubName: config.hubName, metrics: notificationMetrics, signCallback: createHubSigner(hubSigningKey), versions,
  });
  return { context, deliverer, notificationMetrics, hubSigns: Boolean(hubSigningKey), hubClientCertificate: Boolean(callbackTls.cert) };
}

/** The batch handlers of the main topic and of the retry topic. */
function createHandlers({ config, delivery, settings, producer, retryTopic, context, notificationMetrics }) {
  const scheduleRetries = createRetryScheduler({
    producer, topic: retryTopic, metrics: notificationMetrics, throttledWarn: context.throttledWarn,
    settings: { backoffMs: settings.retryBackoffMs, backoffMaxMs: settings.retryBackoffMaxMs, ageMaxMs: settings.retryAgeMaxMs },
  });
  // The requester's error goes to the main topic, so it is delivered, signed and retried as any hub callback.
  const tellRequesters = createRequesterNotifier({
    producer, topic: topicName(config.kafka.topicPrefix, TOPIC.notificationEvent), hubName: config.hubName, metrics: notificationMetrics,
  });
  const handleBatch = createNotificationHandler({ context, batchDeadlineMs: delivery.batchDeadlineMs, scheduleRetries, tellRequesters });
  const retryWaiter = createRetryWaiter();
  const handleRetryBatch = createRetryHandler({
    context, schedule: scheduleRetries, waiter: retryWaiter, batchDeadlineMs: delivery.batchDeadlineMs,
  });
  return { handleBatch, handleRetryBatch, retryWaiter };
}

export async function start(processEnv) {
  const { config, delivery, settings } = readSettings(processEnv);
  const logger = createLogger(config);
  const metrics = createMetrics(config);
  // The ISO 20022 mapping library loads while the consumers start, not on the first callback converted.
  preloadTransformFacades(logger);
  const sending = createDelivery({ config, delivery, logger, metrics });
  const producer = createProducer({ kafka: config.kafka, logger, metrics });
  await producer.connect();
  const topic = topicName(config.kafka.topicPrefix, TOPIC.notificationEvent);
  const retryTopic = topicName(config.kafka.topicPrefix, TOPIC.notificationRetry);
  const { handleBatch, handleRetryBatch, retryWaiter } = createHandlers({ config, delivery, settings, producer, retryTopic, ...sending });

  // The consumer does not expose librdkafka's connection state; "started and not stopping" is
  // what this component can vouch for (a lost broker shows as consume errors in the log).
  let consumer = null;
  let retryConsumer = null;
  let stopping = false;
  const server = createHttpServer({
    port: config.httpPort, host: config.httpHost, logger, metrics,
    health: () => ({
      broker: consumer && retryConsumer && !stopping ? 'OK' : 'DOWN', consumer: consumerCheck(consumer?.health), retryConsumer: consumerCheck(retryConsumer?.health),
    }),
  });
  await server.start();

  // Later batches go out while a slow DFSP holds an earlier one (see handler.js), and while
  // retries wait for their time; both are bounded in batches and in bytes.
  const pipeline = { pipelineDepthMax: settings.pipelineDepthMax, inFlightBytesMax: delivery.inFlightBytesMax };
  // A notification that keeps failing for a reason other than an outage is set aside; a
  // callback has nothing further to finish.
  const deadLetters = deadLetterOptions({ name: 'notification', subscribeTo: [topic, retryTopic], config, logger, metrics, producer });
  consumer = await startBatchConsumer({
    kafka: config.kafka, groupId: `${config.kafka.groupPrefix}-notification`, topics: [topic], logger, handleBatch, ...pipeline, ...deadLetters,
  });
  // Only the main consumer's batches can be stuck: retries wait for their time on purpose.
  retryConsumer = await startBatchConsumer({
    kafka: config.kafka, groupId: `${config.kafka.groupPrefix}-notification-retry`, topics: [retryTopic], logger,
    handleBatch: handleRetryBatch, ...pipeline, ...deadLetters, stuckAfterMs: Infinity,
  });
  const stopWatching = exitWhenStalled(logger, [consumer.health, retryConsumer.health]);
  registerConsumerLag(metrics, { handler: 'notification', consumer });
  logger.info({
    port: server.info.port, topic, retryTopic, adminApiUrl: config.adminApiUrl, hubSigns: sending.hubSigns,
    hubClientCertificate: sending.hubClientCertificate, callbackCaPath: delivery.tls.caPath ?? 'public roots',
    callbackAllowedCidrs: delivery.allowedCidrs.map(({ address, prefix }) => `${address}/${prefix}`),
  }, 'notification handler started');

  // The batch in flight finishes (its callbacks delivered, failed or on the retry topic) before
  // the consumer closes; retries still waiting for their time stay on their topic, uncommitted.
  const stop = async () => {
    stopping = true;
    stopWatching();
    retryWaiter.stop();
    await Promise.all([consumer?.stop(), retryConsumer?.stop()]);
    await sending.deliverer.close();
    await producer.disconnect();
    await server.stop({ timeout: 5000 });
    logger.info('notification handler stopped');
  };
  return { name: 'notification', logger, port: server.info.port, stop };
}
