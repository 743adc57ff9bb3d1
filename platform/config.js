// Configuration is read from environment variables once per process, validated, and
// returned frozen, so no module can read process.env behind the composition root's back.

export class ConfigError extends Error {}

function readString(env, name, fallback) {
  const value = env[name];
  if (value === undefined || value === '') {
    if (fallback === undefined) throw new ConfigError(`${name} is required but not set`);
    return fallback;
  }
  return value;
}

function readInteger(env, name, fallback, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const text = readString(env, name, String(fallback));
  if (!/^\d+$/.test(text)) throw new ConfigError(`${name} must be a whole number, got "${text}"`);
  const value = Number(text);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function deepFreeze(value) {
  for (const child of Object.values(value)) {
    if (child && typeof child === 'object') deepFreeze(child);
  }
  return Object.freeze(value);
}

/**
 * Parses the environment into the configuration every process shares. Secrets (the
 * database password) have no default: a missing one stops the process at start-up.
 */
export function loadConfig(env = process.env, { defaultPort = 3000 } = {}) {
  return deepFreeze({
    serviceName: readString(env, 'SERVICE_NAME', 'fspiop-switch'),
    replicaIndex: readInteger(env, 'REPLICA_INDEX', 0),
    httpPort: readInteger(env, 'PORT', defaultPort, { min: 0, max: 65535 }), // 0 lets the OS choose (tests)
    hubName: readString(env, 'HUB_NAME', 'Hub'),
    adminApiBaseUrl: readString(env, 'ADMIN_API_BASE_URL', 'http://127.0.0.1:3001'),
    logLevel: readString(env, 'LOG_LEVEL', 'info'),
    db: {
      host: readString(env, 'DB_HOST', '127.0.0.1'),
      port: readInteger(env, 'DB_PORT', 3307, { min: 1, max: 65535 }),
      user: readString(env, 'DB_USER', 'switch'),
      password: readString(env, 'DB_PASSWORD'),
      database: readString(env, 'DB_NAME', 'fspiop'),
      poolSizeMax: readInteger(env, 'DB_POOL_SIZE_MAX', 10, { min: 1, max: 500 }),
      ssl: readString(env, 'DB_SSL', 'false') === 'true',
    },
    kafka: {
      brokers: readString(env, 'KAFKA_BROKERS', '127.0.0.1:9192'),
      topicPrefix: readString(env, 'KAFKA_TOPIC_PREFIX', ''),
      clientId: readString(env, 'KAFKA_CLIENT_ID', 'fspiop-switch'),
      groupPrefix: readString(env, 'KAFKA_GROUP_PREFIX', 'fspiop'),
      batchSizeMax: readInteger(env, 'KAFKA_BATCH_SIZE_MAX', 500, { min: 1, max: 100000 }),
      batchWaitMs: readInteger(env, 'KAFKA_BATCH_WAIT_MS', 5, { min: 0, max: 10000 }),
    },
  });
}
