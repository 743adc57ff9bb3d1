// Composition root of the api-adapter process (FSPIOP /transfers edge).
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { createMetrics } from '../platform/metrics.js';
import { createProducer } from '../platform/kafka/producer.js';
import { TOPIC, topicName } from '../platform/kafka/topics.js';
import { createKafkaProbe } from './kafka-health.js';
import { createApiAdapterServer } from './server.js';

const config = loadConfig({ SERVICE_NAME: 'api-adapter', ...process.env }, { defaultPort: 3000, usesDatabase: false });
const logger = createLogger(config);
const metrics = createMetrics(config);
const producer = createProducer({ kafka: config.kafka, logger });
const probe = createKafkaProbe({ kafka: config.kafka, topic: topicName(config.kafka.topicPrefix, TOPIC.transferPrepare) });

await producer.connect();
await probe.connect();
const server = createApiAdapterServer({ config, logger, metrics, producer, kafkaHealth: () => probe.check() });
await server.start();
logger.info({ port: server.info.port }, 'api-adapter listening');

// Stopping the server first lets requests in flight finish their produce and get their
// answer; only then is the producer flushed and closed.
async function shutdown(signal) {
  logger.info({ signal }, 'shutting down');
  await server.stop({ timeout: 5000 });
  await producer.disconnect();
  await probe.disconnect();
  process.exit(0);
}
process.once('SIGTERM', () => shutdown('SIGTERM'));
process.once('SIGINT', () => shutdown('SIGINT'));
