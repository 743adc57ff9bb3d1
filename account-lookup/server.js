// The account-lookup edge (FSPIOP /parties and /participants, port 4002) on the shared HTTP base.
import { createHttpServer } from '../platform/http/server.js';
import { createEventPublisher } from '../platform/fspiop/publisher.js';
import { createDfspKeyStore, registerSignatureCheck } from '../platform/fspiop/jws-keys.js';
import { createResponder } from './edge-flow.js';
import { partyRoutes } from './parties-routes.js';
import { participantRoutes } from './participants-routes.js';

/**
 * `producer` is a connected platform/kafka producer; `directory` a participant directory;
 * `registry` an oracle registry and `client` an oracle client; `lookups` the pending
 * lookups (pending-lookups.js); `health()` resolves to
 * `{ name: 'OK' | 'DOWN' }` for /health.
 */
export function createAccountLookupServer({ config, logger, metrics, producer, directory, registry, client, lookups, health }) {
  const publisher = createEventPublisher({
    producer, topicPrefix: config.kafka.topicPrefix, timeoutMs: config.kafka.produceTimeoutMs, metrics, logger,
  });
  const respond = createResponder({ publisher, logger: logger.child({ component: 'account-lookup' }) });
  const server = createHttpServer({ port: config.httpPort, host: config.httpHost, logger, metrics, health });
  const deps = { respond, directory, registry, client, lookups, hubName: config.hubName };
  registerSignatureCheck(server, { mode: config.jws.verification, keyStore: createDfspKeyStore(config), logger });
  server.route([...partyRoutes(deps), ...participantRoutes(deps)]);
  return server;
}
