// The api-adapter (FSPIOP /transfers edge, port 3000) on the shared HTTP base.
import { createHttpServer } from '../platform/http/server.js';
import { createEventPublisher } from '../platform/fspiop/publisher.js';
import { transferRoutes } from './routes.js';

/**
 * `producer` is a connected platform/kafka producer; `kafkaHealth()` resolves to 'OK' or
 * 'DOWN' for /health.
 */
export function createApiAdapterServer({ config, logger, metrics, producer, kafkaHealth }) {
  const publisher = createEventPublisher({
    producer,
    topicPrefix: config.kafka.topicPrefix,
    timeoutMs: config.kafka.produceTimeoutMs,
    metrics,
    logger,
  });
  const health = async () => ({ kafka: await kafkaHealth() });
  const server = createHttpServer({ port: config.httpPort, logger, metrics, health });
  server.route(transferRoutes({ publisher }));
  return server;
}
