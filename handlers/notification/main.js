// Composition root of the notification handler: consumes topic-notification-event and makes
// one HTTP callback per event (handlers/README.md), and consumes topic-notification-retry,
// where callbacks that could not be delivered wait for their next attempt (retry.js).
// Health and metrics on PORT (default 4301).
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
import { exitOnSignal } from '../../platform/shutdown.js';
import { consumerCheck, deadLetterOptions, exitWhenStalled } from '../../platform/handler-runtime.js';

const env = { SERVICE_NAME: 'notification-handler', ...process.env };
const config = loadConfig(env, {
  defaultPort: 4301, usesDatabase: false, operatorTokens: ['dfspDirectoryRead'], signsAsHub: true,
});
// The delivery settings every sender of callbacks shares, and this handler's own, from the same environment.
const delivery = readDeliveryConfig(env);
const settings = readNotificationConfig(env);
const logger = createLogger(config);
const metrics = createMetrics(config);
// Read once at start-up: a missing or unreadable key stops the process here, not at the first callback.
const hubSigningKey = readHubSigningKey(config.jws);
// So is the hub's client certificate, presented on every callback to an https: endpoint.
const { endpoints, deliverer, tls: callbackTls, versions } = createCallbackDelivery({
  settings: delivery, adminApiUrl: config.adminApiUrl, adminApiToken: config.operatorAuth.tokens.dfspDirectoryRead,
  allowLinkLocal: config.callbackUrlsAllowLinkLocal, logger,
});
const notificationMetrics = createNotificationMetrics(metrics);
const context = createNotifyContext({
  endpoints, deliverer, logger, hubName: config.hubName, metrics: notificationMetrics, signCallback: createHubSigner(hubSigningKey), versions,
});
const producer = createProducer({ kafka: config.kafka, logger, metrics });
await producer.connect();
const retryTopic = topicName(config.kafka.topicPrefix, TOPIC.notificationRetry);
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

// The consumer does not expose librdkafka's connection state; "started and not stopping" is
// what this process can vouch for (a lost broker shows as consume errors in the log).
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
const topic = topicName(config.kafka.topicPrefix, TOPIC.notificationEvent);
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
  port: server.info.port, topic, retryTopic, adminApiUrl: config.adminApiUrl, hubSigns: Boolean(hubSigningKey),
  hubClientCertificate: Boolean(callbackTls.cert), callbackCaPath: delivery.tls.caPath ?? 'public roots',
  callbackAllowedCidrs: delivery.allowedCidrs.map(({ address, prefix }) => `${address}/${prefix}`),
}, 'notification handler started');

// The batch in flight finishes (its callbacks delivered, failed or on the retry topic) before
// the consumer closes; retries still waiting for their time stay on their topic, uncommitted.
exitOnSignal(logger, async () => {
  stopping = true;
  stopWatching();
  retryWaiter.stop();
  await Promise.all([consumer?.stop(), retryConsumer?.stop()]);
  await deliverer.close();
  await producer.disconnect();
  await server.stop({ timeout: 5000 });
  logger.info('notification handler stopped');
});
