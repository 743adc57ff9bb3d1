// Composition root of the notification handler: consumes topic-notification-event and makes
// one HTTP callback per event (handlers/README.md). Health and metrics on PORT (default 4301).
import { loadConfig } from '../../platform/config.js';
import { createLogger } from '../../platform/logger.js';
import { createMetrics, registerConsumerLag } from '../../platform/metrics.js';
import { createHttpServer } from '../../platform/http/server.js';
import { startBatchConsumer } from '../../platform/kafka/consumer.js';
import { TOPIC, topicName } from '../../platform/kafka/topics.js';
import { createDeliverer } from './deliver.js';
import { createEndpointCache } from './endpoints.js';
import { createNotificationHandler } from './handler.js';
import { createNotificationMetrics } from './metrics.js';
import { createHubSigner, readHubSigningKey } from './hub-signature.js';
import { exitOnSignal } from '../../platform/shutdown.js';

const config = loadConfig({ SERVICE_NAME: 'notification-handler', ...process.env }, {
  defaultPort: 4301, usesDatabase: false, operatorTokens: ['readOnly'], signsAsHub: true,
});
const logger = createLogger(config);
const metrics = createMetrics(config);
const settings = config.notification;
// Read once at start-up: a missing or unreadable key stops the process here, not at the first callback.
const hubSigningKey = readHubSigningKey(config.jws);

const endpoints = createEndpointCache({
  adminApiUrl: config.adminApiUrl, adminApiToken: config.operatorAuth.tokens.readOnly, ttlMs: settings.endpointCacheTtlMs, failureTtlMs: settings.endpointFailureTtlMs,
});
const deliverer = createDeliverer({
  timeoutMs: settings.callbackTimeoutMs,
  maxInFlightPerFsp: settings.callbackInFlightMaxPerFsp,
  queueMaxPerFsp: settings.callbackQueueMaxPerFsp,
  retries: settings.callbackRetries,
  retryBackoffMs: settings.callbackRetryBackoffMs,
  breakerFailures: settings.breakerFailures,
  breakerOpenMs: settings.breakerOpenMs,
  logger: logger.child({ component: 'callback-delivery' }),
});
const handleBatch = createNotificationHandler({
  endpoints, deliverer, logger, hubName: config.hubName, batchDeadlineMs: settings.batchDeadlineMs,
  metrics: createNotificationMetrics(metrics), signCallback: createHubSigner(hubSigningKey),
});

// The consumer does not expose librdkafka's connection state; "started and not stopping" is
// what this process can vouch for (a lost broker shows as consume errors in the log).
let consumer = null;
let stopping = false;
const server = createHttpServer({
  port: config.httpPort, host: config.httpHost, logger, metrics,
  health: () => ({ kafkaConsumer: consumer && !stopping ? 'OK' : 'DOWN' }),
});
await server.start();

const topic = topicName(config.kafka.topicPrefix, TOPIC.notificationEvent);
consumer = await startBatchConsumer({
  kafka: config.kafka, groupId: `${config.kafka.groupPrefix}-notification`, topics: [topic], logger, handleBatch,
  // Later batches go out while a slow DFSP holds an earlier one (see handler.js).
  pipelineDepthMax: settings.pipelineDepthMax,
});
registerConsumerLag(metrics, { handler: 'notification', consumer });
logger.info({ port: server.info.port, topic, adminApiUrl: config.adminApiUrl, hubSigns: Boolean(hubSigningKey) }, 'notification handler started');

// The batch in flight finishes (its callbacks delivered or failed) before the consumer closes.
exitOnSignal(logger, async () => {
  stopping = true;
  await consumer?.stop();
  await deliverer.close();
  await server.stop({ timeout: 5000 });
  logger.info('notification handler stopped');
});
