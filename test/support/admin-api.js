// Starts the real admin API (in this process, on a free port) over a fresh test database.
import pino from 'pino';
import { adminClient, ensureDfsp } from '../../scripts/lib/onboarding.js';
import { createAdminServer } from '../../ledger/admin-api/server.js';
import { ensureHubParticipant } from '../../ledger/repositories/participants.js';
import { createMetrics } from '../../platform/metrics.js';
import { operatorHeaders } from '../../scripts/lib/operator-auth.js';
import { createTestDatabase, operatorTokens, testConfig } from './environment.js';
import { hubKeyFiles, jwsKeyPair } from './jws-keys.js';

/** The headers of an operator call with the test token `name` (`readWrite`, `readOnly`, `oracleWrite`, `dfspDirectoryRead`). */
export function adminHeaders(name = 'readWrite') {
  return operatorHeaders(operatorTokens()[name]);
}

/** The admin API over a fresh database; `topicPrefix`: the Kafka topics of the switch it serves (its dead letters). */
export async function startAdminApi({ topicPrefix } = {}) {
  const database = await createTestDatabase();
  const prefixEnv = topicPrefix === undefined ? {} : { KAFKA_TOPIC_PREFIX: topicPrefix };
  const config = testConfig({ PORT: '0', DB_NAME: database.name, SERVICE_NAME: 'admin-api-test', ...prefixEnv }, { operatorApi: true });
  await ensureHubParticipant(database.db, { hubName: config.hubName, now: new Date() });
  // It publishes the hub key the switch under test signs with (support/switch.js).
  const server = createAdminServer({
    db: database.db, config, logger: pino({ level: 'silent' }), metrics: createMetrics(config), hubPublicKey: hubKeyFiles().publicKey,
  });
  await server.start();
  const baseUrl = `http://127.0.0.1:${server.info.port}`;
  return {
    baseUrl,
    db: database.db,
    databaseName: database.name,
    request: adminClient(baseUrl, { token: config.operatorAuth.tokens.readWrite }),
    async stop() {
      await server.stop();
      await database.drop();
    },
  };
}

/**
 * Central-ledger's onboarding sequence for one DFSP (the same code the demo uses), with the
 * public key of the test run's key pair of its name (jws-keys.js) unless `jwsPublicKey` is
 * given (null registers none).
 */
export function onboardDfsp(request, options) {
  const jwsPublicKey = options.jwsPublicKey === undefined ? jwsKeyPair(options.name).publicKey : options.jwsPublicKey;
  return ensureDfsp(request, { ...options, jwsPublicKey });
}

/** Hub accounts and a default settlement model, as a scheme's first onboarding step. */
export async function setUpHub(request, currency = 'USD') {
  for (const type of ['HUB_MULTILATERAL_SETTLEMENT', 'HUB_RECONCILIATION']) {
    const result = await request('POST', '/participants/Hub/accounts', { type, currency });
    if (result.status !== 201) throw new Error(`hub account ${type}: ${result.status} ${result.text}`);
  }
  const model = await request('POST', '/settlementModels', {
    name: `DEFERREDNET${currency}`, settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED',
    currency, requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  });
  if (model.status !== 201) throw new Error(`settlement model: ${model.status} ${model.text}`);
}
