// The account-lookup edge (FSPIOP /parties, /participants and v2.0's /services, port 4002) on the shared HTTP base.
import { createEventPublisher } from '../platform/fspiop/publisher.js';
import { createDfspFacingServer } from '../platform/fspiop/edge-process.js';
import { createResponder, sendCallbacksAfterAnswer } from './edge-flow.js';
import { partyRoutes } from './parties-routes.js';
import { participantRoutes } from './participants-routes.js';
import { serviceRoutes } from './services-routes.js';

/**
 * `producer` is a connected platform/kafka producer (the /participants answers); `callbacks`
 * a party callback sender (party-callbacks.js: the /parties calls, sent once the DFSP is
 * answered); `directory` a participant directory; `registry` an oracle registry and `client`
 * an oracle client; `lookups` the pending lookups (pending-lookups.js); `findFxps(pair)` the
 * ledger's FXP candidates (services-routes.js); `health()` resolves to `{ name: 'OK' | 'DOWN' }`
 * for /health.
 */
export function createAccountLookupServer({ config, logger, metrics, producer, callbacks, directory, registry, client, lookups, findFxps, health }) {
  const publisher = createEventPublisher({
    producer, topicPrefix: config.kafka.topicPrefix, timeoutMs: config.kafka.produceTimeoutMs, metrics, logger,
  });
  const respond = createResponder({ publisher, logger: logger.child({ component: 'account-lookup' }) });
  const server = createDfspFacingServer({ config, logger, metrics, health });
  sendCallbacksAfterAnswer(server, callbacks.send);
  const deps = { respond, directory, registry, client, lookups, findFxps, hubName: config.hubName };
  server.route([...partyRoutes(deps), ...participantRoutes(deps), ...serviceRoutes(deps)]);
  return server;
}
