// Integration tests run against the real MariaDB and Kafka that scripts/infra-up.sh starts.
// Each test file gets a database and a topic prefix of its own, so runs never see each
// other's rows or messages.
import { randomBytes } from 'node:crypto';
import { OPERATOR_TOKEN_VARIABLES, loadConfig } from '../../platform/config.js';
import { createDatabase } from '../../platform/db.js';
import { topicDefinitions } from '../../platform/kafka/topics.js';
import { MIGRATION_DIRECTORIES } from '../../tools/lib/schema.js';

// The same local-only values scripts/env.sh sets, for a test run without it.
const LOCAL_DEFAULTS = {
  DB_PASSWORD: 'switch-local-dev',
  OPERATOR_TOKEN_READ_WRITE: 'local-operator-read-write',
  OPERATOR_TOKEN_READ_ONLY: 'local-operator-read-only',
  OPERATOR_TOKEN_ORACLE_WRITE: 'local-oracle-write-token',
  OPERATOR_TOKEN_DFSP_DIRECTORY_READ: 'local-dfsp-directory-read',
};

// The local runtime's mutual TLS (scripts/env.sh) is its own edges' and its own hub's, from
// files in its RUN_DIR; an edge or a callback sender a test builds gets what the test gives it
// (test/support/switch.js, scheme-tls.js).
const RUNTIME_ONLY = [
  'CLIENT_IDENTITY', 'TLS_CERT_PATH', 'TLS_KEY_PATH', 'TLS_CLIENT_CA_PATH', 'CALLBACK_TLS_CERT_PATH', 'CALLBACK_TLS_KEY_PATH', 'CALLBACK_TLS_CA_PATH',
];

/** This process's environment without the local runtime's mutual TLS: what a process a test spawns starts from. */
export function testProcessEnv() {
  const environment = { ...process.env };
  for (const name of RUNTIME_ONLY) delete environment[name];
  return environment;
}

export function testConfig(overrides = {}, options = {}) {
  return loadConfig({ ...LOCAL_DEFAULTS, ...testProcessEnv(), ...overrides }, options);
}

/**
 * The operator tokens the switch under test accepts, by name (`readWrite`, `readOnly`,
 * `oracleWrite`, `dfspDirectoryRead`: platform/config.js's OPERATOR_TOKEN_VARIABLES).
 */
export function operatorTokens() {
  return testConfig({}, { operatorApi: true }).operatorAuth.tokens;
}

/** The environment that gives a spawned process the tokens `names` (all by default). */
export function operatorTokenEnv(names = Object.keys(OPERATOR_TOKEN_VARIABLES)) {
  const tokens = operatorTokens();
  return Object.fromEntries(names.map((name) => [OPERATOR_TOKEN_VARIABLES[name], tokens[name]]));
}

export function uniqueSuffix() {
  return `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

/**
 * Creates a fresh database, runs every migration in it, and returns a knex handle plus the
 * environment a child process needs to use the same database. `drop()` removes it.
 */
export async function createTestDatabase(prefix = 'fspiop_test') {
  const config = testConfig();
  const name = `${prefix}_${uniqueSuffix()}`;
  const admin = createDatabase(config.db, { database: undefined });
  await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await admin.destroy();
  const db = createDatabase(config.db, { database: name, migrationDirectories: MIGRATION_DIRECTORIES });
  await db.migrate.latest();
  return {
    db,
    name,
    env: { DB_NAME: name },
    async drop() {
      await db.destroy();
      const cleaner = createDatabase(config.db, { database: undefined });
      await cleaner.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      await cleaner.destroy();
    },
  };
}

/** Creates the switch's topics under a fresh prefix and returns the prefix. */
export async function createTestTopics(adminClientFactory) {
  const prefix = `test-${uniqueSuffix()}-`;
  const admin = adminClientFactory();
  try {
    for (const { name, partitions } of topicDefinitions(prefix)) {
      await new Promise((resolve, reject) =>
        admin.createTopic({ topic: name, num_partitions: partitions, replication_factor: 1 }, (err) =>
          err ? reject(err) : resolve()));
    }
  } finally {
    admin.disconnect();
  }
  return prefix;
}
