// The account-lookup edge component (FSPIOP /parties, /participants and v2.0's
// /services/FXP, PORT default 4002). It reads participants, the FXPs' currency pairs and the
// oracle registry from MySQL, reads the built-in oracle's table in process and asks other
// oracles over HTTP, sends the /parties calls to DFSPs itself (reading their endpoints from
// the admin API and signing its own as the hub), and produces the /participants and /services
// answers as notification events. Its one state, the pending lookups, is in MySQL, so it
// scales by replicas. Startable in a process of its own (main.js) or beside others
// (scripts/compact-host.js).
// It has the shape of platform/fspiop/edge-process.js, which it cannot use as it stands: that
// runner has no database, and /health here also reports the database the edge reads.
import { loadConfig } from '../platform/config.js';
import { readAccountLookupConfig } from './config.js';
import { createDatabase, createSqlPool, datastoreHealth } from '../platform/db.js';
import { createLogger } from '../platform/logger.js';
import { createMetrics } from '../platform/metrics.js';
import { createProducer } from '../platform/kafka/producer.js';
import { TOPIC, topicName } from '../platform/kafka/topics.js';
import { findFxpCandidates, findParticipantState } from '../ledger/ports/participant-directory.js';
import { createKafkaProbe } from '../platform/kafka/health.js';
import { createParticipantDirectory } from './participant-directory.js';
import { createOracleRegistry, readOracleRegistry } from './oracle-registry.js';
import { createOracleClient } from './oracle-client.js';
import { createAccountLookupServer } from './server.js';
import { createPendingLookups } from './pending-lookups.js';
import { startSweeping } from '../platform/periodic-sweep.js';
import { findParty } from './oracle/repository.js';
import { createPartyCallbackMetrics, createPartyCallbackSender } from './party-callbacks.js';
import { createCallbackDelivery } from '../platform/delivery/callback-delivery.js';
import { readDeliveryConfig } from '../platform/delivery/config.js';
import { createHubSigner, readHubSigningKey } from '../platform/delivery/hub-signature.js';

// Two narrow tokens: one registers and removes parties in the built-in oracle (which it reads
// in process, from the database), the other reads DFSP endpoints from the admin API. The
// component signs its own /parties errors as the hub.
function readSettings(processEnv) {
  const env = { SERVICE_NAME: 'account-lookup', ...processEnv };
  const config = loadConfig(env, {
    defaultPort: 4002, operatorTokens: ['oracleWrite', 'dfspDirectoryRead'], signsAsHub: true,
  });
  // The /parties calls go out with the delivery settings and pieces the notification handler uses too (party-callbacks.js).
  return { config, delivery: readDeliveryConfig(env), settings: readAccountLookupConfig(env) };
}

/** The oracles' side: the participant cache, the oracle registry and the client that asks them. */
function createOracles({ config, settings, db, pool, metrics }) {
  const directory = createParticipantDirectory({
    findParticipant: (name) => findParticipantState(db, name), hubName: config.hubName, ttlMs: settings.participantCacheTtlMs,
  });
  const registry = createOracleRegistry({
    readAll: () => readOracleRegistry(db), builtInUrl: settings.oracleBuiltInUrl, ttlMs: settings.oracleRegistryTtlMs,
  });
  const client = createOracleClient({
    timeoutMs: settings.oracleRequestTimeoutMs, connectionsMax: settings.oracleConnectionsMax, metrics,
    builtIn: { url: settings.oracleBuiltInUrl, token: config.operatorAuth.tokens.oracleWrite, findParty: (query) => findParty(pool, query) },
  });
  return { directory, registry, client };
}

/** The /parties calls to DFSPs, signed as the hub, with the hub's client certificate (read here, at start-up). */
function createCallbacks({ config, delivery, metrics, logger }) {
  const { endpoints, deliverer, versions } = createCallbackDelivery({
    settings: delivery, adminApiUrl: config.adminApiUrl, adminApiToken: config.operatorAuth.tokens.dfspDirectoryRead,
    allowLinkLocal: config.callbackUrlsAllowLinkLocal, logger,
  });
  const callbacks = createPartyCallbackSender({
    endpoints, deliverer, versions, signCallback: createHubSigner(readHubSigningKey(config.jws)), hubName: config.hubName,
    metrics: createPartyCallbackMetrics(metrics), logger: logger.child({ component: 'party-callbacks' }),
    deadlineMs: delivery.batchDeadlineMs, bytesHeldMax: delivery.inFlightBytesMax,
  });
  return { callbacks, deliverer };
}

export async function start(processEnv) {
  const { config, delivery, settings } = readSettings(processEnv);
  const logger = createLogger(config);
  const metrics = createMetrics(config);
  const db = createDatabase(config.db, { metrics });
  // Every discovery reads the built-in oracle and records or checks a pending lookup: those
  // statements go through a mysql2 pool without knex's query builder; knex serves the rest.
  const pool = createSqlPool(config.db);
  const producer = createProducer({ kafka: config.kafka, logger, metrics });
  const probe = createKafkaProbe({ kafka: config.kafka, topic: topicName(config.kafka.topicPrefix, TOPIC.notificationEvent) });
  const { directory, registry, client } = createOracles({ config, settings, db, pool, metrics });
  const { callbacks, deliverer } = createCallbacks({ config, delivery, metrics, logger });
  const lookups = createPendingLookups({ db: pool, ttlMs: settings.partyLookupTtlMs });
  // Every replica purges every expired lookup once a TTL, in short batches until one is not
  // full (pending-lookups.js), so the purge keeps pace with any lookup rate; a call that finds
  // a backlog has already drained it, so the sweep never needs to come back at once.
  const purging = startSweeping({
    name: 'party-lookups', sweepOnce: () => lookups.purgeExpired(), logger,
    settings: { intervalMs: settings.partyLookupTtlMs, batchSizeMax: Number.POSITIVE_INFINITY },
  });

  await producer.connect();
  await probe.connect();
  const server = createAccountLookupServer({
    config, logger, metrics, producer, callbacks, directory, registry, client, lookups,
    findFxps: (pair) => findFxpCandidates(db, pair),
    health: async () => ({ broker: await probe.check(), datastore: await datastoreHealth(db) }),
  });
  await server.start();
  logger.info({ port: server.info.port, builtInOracle: settings.oracleBuiltInUrl }, 'account-lookup listening');

  // Requests in flight finish their oracle call and produce before the producer is closed, and
  // the calls they handed over end (each within its deadline) before the connections close.
  const stop = async () => {
    await server.stop({ timeout: 5000 });
    await callbacks.drain();
    await purging.stop();
    await deliverer.close();
    await producer.disconnect();
    await probe.disconnect();
    await client.close();
    await pool.end();
    await db.destroy();
  };
  return { name: 'account-lookup', logger, port: server.info.port, stop };
}
