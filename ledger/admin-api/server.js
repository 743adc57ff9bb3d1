// The admin API (central-ledger compatible, port 3001): every route, on the shared HTTP base.
import { createOperatorServer } from '../../platform/http/operator-server.js';
import { datastoreHealth } from '../../platform/db.js';
import { participantRoutes } from './participant-routes.js';
import { onboardingRoutes } from './onboarding-routes.js';
import { fundsRoutes } from './funds-routes.js';
import { jwsKeyRoutes } from './jws-key-routes.js';
import { currencyPairRoutes } from './currency-pair-routes.js';
import { registerPositionMetrics } from './position-metrics.js';
import { OPERATOR_API, operatorTokenRoute } from '../../platform/http/operator-auth.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { transferRoutes } from './transfer-routes.js';
import { deadLetterRoutes } from './dead-letter-routes.js';
import { createOperatorAudit } from '../../platform/http/operator-audit.js';
import { insertAuditEntry } from '../repositories/operator-audit.js';
import { adminSnapshot, auditRoutes } from './audit.js';

export function createAdminServer({ db, config, logger, metrics, clock = () => new Date(), hubPublicKey }) {
  registerPositionMetrics(metrics, { db, hubName: config.hubName, logger });
  const health = async () => ({ datastore: await datastoreHealth(db) });
  const server = createOperatorServer({ port: config.httpPort, host: config.httpHost, operatorAuth: config.operatorAuth, api: OPERATOR_API.admin, logger, metrics, health });
  // Every write route runs in a transaction that also writes its audit row; routes reach the
  // database through audit.db, which is that transaction while they run.
  const audit = createOperatorAudit({ db, api: 'admin', snapshot: adminSnapshot, record: insertAuditEntry, clock });
  const route = (routes) => server.route(audit.auditWrites(routes));
  const deps = { db: audit.db, config, clock };
  route(auditRoutes({ db }));
  route([...participantRoutes(deps), ...onboardingRoutes(deps), ...fundsRoutes(deps), ...currencyPairRoutes(deps), ...jwsKeyRoutes({ ...deps, hubPublicKey })]);
  route([operatorTokenRoute(), ...transferRoutes({ db }), ...deadLetterRoutes({ ...deps, kafka: config.kafka, producer: replayProducer(server, { config, logger, metrics }) })]);
  return server;
}

/**
 * The producer of dead-letter replays, connected on the first replay (most admin APIs never
 * replay, and none should need Kafka to start) and disconnected when the server stops. A
 * connection that failed is tried again on the next replay.
 */
function replayProducer(server, { config, logger, metrics }) {
  let connected;
  server.ext('onPostStop', async () => {
    if (connected) await (await connected.catch(() => null))?.disconnect();
  });
  return () => {
    connected ??= (async () => {
      const producer = createProducer({ kafka: config.kafka, logger, metrics });
      await producer.connect();
      return producer;
    })();
    return connected.catch((error) => {
      connected = undefined;
      throw error;
    });
  };
}
