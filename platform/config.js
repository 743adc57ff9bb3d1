// Configuration is read from environment variables once per process, validated, and
// returned frozen, so no module can read process.env behind the composition root's back.

import { readFileSync } from 'node:fs';
import { TOPIC } from './kafka/topics.js';
import { EXPIRATION_AHEAD_MAX_MS_DEFAULT, isKnownCurrency } from './fspiop/input-limits.js';

export class ConfigError extends Error {}

export function readString(env, name, fallback) {
  const value = env[name];
  if (value === undefined || value === '') {
    if (fallback === undefined) throw new ConfigError(`${name} is required but not set`);
    return fallback;
  }
  return value;
}

export function readInteger(env, name, fallback, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const text = readString(env, name, String(fallback));
  if (!/^\d+$/.test(text)) throw new ConfigError(`${name} must be a whole number, got "${text}"`);
  const value = Number(text);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

const KAFKA_SECURITY_PROTOCOLS = ['plaintext', 'ssl', 'sasl_plaintext', 'sasl_ssl'];

/**
 * How clients reach the brokers: plaintext locally; TLS and SASL/SCRAM for a managed
 * cluster such as MSK (the password has no default: a SASL protocol without it stops here).
 */
function readKafkaSecurity(env) {
  const protocol = readString(env, 'KAFKA_SECURITY_PROTOCOL', 'plaintext');
  if (!KAFKA_SECURITY_PROTOCOLS.includes(protocol)) {
    throw new ConfigError(`KAFKA_SECURITY_PROTOCOL must be one of ${KAFKA_SECURITY_PROTOCOLS.join(', ')}, got "${protocol}"`);
  }
  const sasl = protocol.startsWith('sasl');
  return {
    protocol,
    saslMechanism: sasl ? readString(env, 'KAFKA_SASL_MECHANISM', 'SCRAM-SHA-512') : undefined,
    saslUsername: sasl ? readString(env, 'KAFKA_SASL_USERNAME') : undefined,
    saslPassword: sasl ? readString(env, 'KAFKA_SASL_PASSWORD') : undefined,
    sslCaLocation: readString(env, 'KAFKA_SSL_CA_LOCATION', '') || undefined,
  };
}

/** Partition counts by base topic name, overriding the local defaults (Helm sets these). */
function readTopicPartitions(env) {
  const text = readString(env, 'TOPIC_PARTITIONS_JSON', '{}');
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`TOPIC_PARTITIONS_JSON is not JSON: ${text}`);
  }
  for (const [name, partitions] of Object.entries(parsed)) {
    if (!Object.values(TOPIC).includes(name)) throw new ConfigError(`TOPIC_PARTITIONS_JSON names an unknown topic ${name}`);
    if (!Number.isInteger(partitions) || partitions < 1) throw new ConfigError(`TOPIC_PARTITIONS_JSON: ${name} needs a positive whole number of partitions`);
  }
  return parsed;
}

export function deepFreeze(value) {
  for (const child of Object.values(value)) {
    if (child && typeof child === 'object') deepFreeze(child);
  }
  return Object.freeze(value);
}

/** A secret from the variable `name`, or from the file `fileName` names (a mounted Kubernetes Secret). */
function readSecretOrFile(env, name, fileName, path) {
  if (!path) return readString(env, name);
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`${fileName} names ${path}, which cannot be read: ${error.message}`);
  }
}

const OPERATOR_AUTH_MODES = ['required', 'off'];
// A guessable token would make the check worthless; 16 characters is a floor, not advice.
const OPERATOR_TOKEN_LENGTH_MIN = 16;

function checkOperatorToken(name, token) {
  if (token.length < OPERATOR_TOKEN_LENGTH_MIN) throw new ConfigError(`${name} must be at least ${OPERATOR_TOKEN_LENGTH_MIN} characters`);
  return token;
}

/**
 * The bearer tokens of the operator APIs (admin, settlement, ALS admin, built-in oracle), by
 * the name a process asks for them with, and the variable each is read from (or, with
 * `_FILE` after it, the file that holds it). The operator's two reach every API, read-write
 * or read-only, for people and their tools; the others are the narrow ones the DFSP-facing
 * processes hold. platform/http/operator-auth.js says what each may call.
 */
export const OPERATOR_TOKEN_VARIABLES = Object.freeze({
  readWrite: 'OPERATOR_TOKEN_READ_WRITE',
  readOnly: 'OPERATOR_TOKEN_READ_ONLY',
  oracleWrite: 'OPERATOR_TOKEN_ORACLE_WRITE',
  dfspDirectoryRead: 'OPERATOR_TOKEN_DFSP_DIRECTORY_READ',
});

/**
 * Reads the tokens `names` (keys of OPERATOR_TOKEN_VARIABLES). A process that serves an
 * operator API reads every token, so it can tell a token it knows but may not admit (403)
 * from a stranger (401); a client reads only the tokens it sends. All are secrets without
 * defaults, so a missing one stops the process, unless OPERATOR_AUTH=off (a lab) turns the
 * check off altogether.
 */
function readOperatorAuth(env, names) {
  const mode = readString(env, 'OPERATOR_AUTH', 'required');
  if (!OPERATOR_AUTH_MODES.includes(mode)) throw new ConfigError(`OPERATOR_AUTH must be one of ${OPERATOR_AUTH_MODES.join(', ')}, got "${mode}"`);
  if (mode === 'off') return { required: false, tokens: {} };
  const tokens = {};
  for (const name of names) {
    const variable = OPERATOR_TOKEN_VARIABLES[name];
    if (!variable) throw new Error(`no operator token is called ${name}`);
    const path = readString(env, `${variable}_FILE`, '');
    const token = checkOperatorToken(variable, readSecretOrFile(env, variable, `${variable}_FILE`, path));
    // One secret under two names would give either holder the other's rights.
    const same = Object.keys(tokens).find((other) => tokens[other] === token);
    if (same) throw new ConfigError(`${variable} must differ from ${OPERATOR_TOKEN_VARIABLES[same]}`);
    tokens[name] = token;
  }
  return { required: true, tokens };
}

export function readBoolean(env, name, fallback) {
  const text = readString(env, name, String(fallback));
  if (text !== 'true' && text !== 'false') throw new ConfigError(`${name} must be true or false, got "${text}"`);
  return text === 'true';
}

const JWS_VERIFICATION_MODES = ['required', 'optional', 'off'];

/**
 * FSPIOP signatures (platform/fspiop/jws.js). `verification` is what the FSPIOP edges ask of
 * a DFSP message with a body: required (3105 without a valid signature), optional (verified
 * when present) or off. DFSP keys come from the admin API and, when set, a directory of
 * `<fsp>.pem` files (a mounted Secret); the edges reuse what they read for `keyCacheTtlMs`.
 * The hub signs what it originates with the private key at `hubSigningKeyPath`, and the
 * admin API publishes the public key at `hubPublicKeyPath`. A process that signs as the hub
 * (`signsAsHub`) stops at start-up without its key when verification is required.
 */
function readJws(env, { signsAsHub }) {
  const verification = readString(env, 'JWS_VERIFICATION', 'required');
  if (!JWS_VERIFICATION_MODES.includes(verification)) {
    throw new ConfigError(`JWS_VERIFICATION must be one of ${JWS_VERIFICATION_MODES.join(', ')}, got "${verification}"`);
  }
  const hubSigningKeyPath = readString(env, 'JWS_HUB_SIGNING_KEY_PATH', '') || undefined;
  // When DFSPs must sign, they must also be able to check every callback the hub makes in
  // its own name; a hub that cannot sign would send them messages they are bound to refuse.
  if (signsAsHub && verification === 'required' && !hubSigningKeyPath) {
    throw new ConfigError('JWS_HUB_SIGNING_KEY_PATH is required with JWS_VERIFICATION=required: the hub signs the callbacks it originates');
  }
  return {
    verification,
    keyCacheTtlMs: readInteger(env, 'JWS_KEY_CACHE_TTL_MS', 5_000), // 0: read the keys on every request
    keysDirectory: readString(env, 'JWS_KEYS_DIRECTORY', '') || undefined,
    hubSigningKeyPath,
    hubPublicKeyPath: readString(env, 'JWS_HUB_PUBLIC_KEY_PATH', '') || undefined,
  };
}

// Names come from FSPIOP-Source headers and Mojaloop's participant names: the same pattern the
// edges accept for a DFSP's key file, so an override can only name something a DFSP can be.
const RATE_LIMIT_FSP_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;
// The default is far above what one DFSP sends in the demo or the load test (250/s over four
// DFSPs is about 125 requests per second per DFSP at each edge), so only a runaway sender meets it.
const RATE_LIMIT_PER_SECOND_DEFAULT = 1000;

/** A rate in requests per second: a whole number, or `off` (0 means the same) for no limit. */
function parseRatePerSecond(name, text) {
  if (text === 'off') return 0;
  if (!/^\d+$/.test(text)) throw new ConfigError(`${name} must be a whole number of requests per second or "off", got "${text}"`);
  return Number(text);
}

/** A limit `{ perSecond, burst }`, or null when the rate is off; the burst defaults to two seconds' worth. */
function rateLimitOf(name, perSecond, burst) {
  if (perSecond === 0) return null;
  const tokensMax = burst ?? perSecond * 2;
  if (!Number.isSafeInteger(tokensMax) || tokensMax < 1) throw new ConfigError(`${name}: the burst must be a whole number of at least 1, got ${burst}`);
  return { perSecond, burst: tokensMax };
}

function readRateLimitOverrides(env) {
  const text = readString(env, 'RATE_LIMIT_OVERRIDES_JSON', '{}');
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`RATE_LIMIT_OVERRIDES_JSON is not JSON: ${text}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError('RATE_LIMIT_OVERRIDES_JSON must be an object of DFSP names');
  const overrides = Object.create(null); // names like "constructor" are DFSP names here, not inherited keys
  for (const [fsp, entry] of Object.entries(parsed)) {
    const name = `RATE_LIMIT_OVERRIDES_JSON: ${fsp}`;
    if (!RATE_LIMIT_FSP_PATTERN.test(fsp)) throw new ConfigError(`${name} is not a DFSP name`);
    if (!entry || typeof entry !== 'object') throw new ConfigError(`${name} needs {"perSecond": n, "burst": n}`);
    const perSecond = parseRatePerSecond(name, String(entry.perSecond));
    overrides[fsp] = rateLimitOf(name, perSecond, entry.burst);
  }
  return overrides;
}

/**
 * Per-DFSP rate limits at the FSPIOP edges (platform/fspiop/rate-limit.js): every DFSP gets
 * `defaultLimit` (null: unlimited) unless `overrides` names it (null there: that DFSP is not
 * limited). `bucketsMax` bounds the buckets kept, since their keys come from request headers.
 */
function readRateLimit(env) {
  const perSecond = parseRatePerSecond('RATE_LIMIT_PER_SECOND', readString(env, 'RATE_LIMIT_PER_SECOND', String(RATE_LIMIT_PER_SECOND_DEFAULT)));
  const burstText = readString(env, 'RATE_LIMIT_BURST', '');
  const burst = burstText === '' ? undefined : readInteger(env, 'RATE_LIMIT_BURST', 0, { min: 1 });
  return {
    defaultLimit: rateLimitOf('RATE_LIMIT_BURST', perSecond, burst),
    overrides: readRateLimitOverrides(env),
    bucketsMax: readInteger(env, 'RATE_LIMIT_BUCKETS_MAX', 10_000, { min: 1 }),
  };
}

const CLIENT_IDENTITY_MODES = Object.freeze(['off', 'certificate', 'header']);

/**
 * How a DFSP-facing edge knows which DFSP is calling, besides its signature: `certificate`
 * (the edge serves HTTPS and asks for a client certificate from the scheme's CA, whose CN
 * must equal FSPIOP-Source), `header` (an ingress verified the certificate and passes its
 * subject in a header only it can set), or `off`.
 */
function readClientIdentity(env) {
  const mode = readString(env, 'CLIENT_IDENTITY', 'off');
  if (!CLIENT_IDENTITY_MODES.includes(mode)) throw new ConfigError(`CLIENT_IDENTITY must be one of ${CLIENT_IDENTITY_MODES.join(', ')}, got "${mode}"`);
  const tls = {
    certPath: readString(env, 'TLS_CERT_PATH', '') || undefined,
    keyPath: readString(env, 'TLS_KEY_PATH', '') || undefined,
    clientCaPath: readString(env, 'TLS_CLIENT_CA_PATH', '') || undefined,
  };
  if (Boolean(tls.certPath) !== Boolean(tls.keyPath)) throw new ConfigError('TLS_CERT_PATH and TLS_KEY_PATH go together');
  if (mode === 'certificate' && !(tls.certPath && tls.clientCaPath)) {
    throw new ConfigError('CLIENT_IDENTITY=certificate needs TLS_CERT_PATH, TLS_KEY_PATH and TLS_CLIENT_CA_PATH');
  }
  return { mode, tls, subjectHeader: readString(env, 'CLIENT_IDENTITY_HEADER', 'ssl-client-subject-dn').toLowerCase() };
}

/** The database settings; the password has no default, so a missing secret stops the process. */
function readDatabase(env) {
  return {
  host: readString(env, 'DB_HOST', '127.0.0.1'),
  port: readInteger(env, 'DB_PORT', 3307, { min: 1, max: 65535 }),
  user: readString(env, 'DB_USER', 'switch'),
  password: readString(env, 'DB_PASSWORD'),
  database: readString(env, 'DB_NAME', 'fspiop'),
  poolSizeMax: readInteger(env, 'DB_POOL_SIZE_MAX', 10, { min: 1, max: 500 }),
  ssl: readString(env, 'DB_SSL', 'false') === 'true',
  };
}

const LIBRDKAFKA_TIMEOUT_SCAN_MS = 1000;

/**
 * How long a produce may take, from one setting so that the parts cannot drift apart: an edge
 * answers 503 (2003, "not stored, retry") after `produceTimeoutMs` at the latest, and every
 * producer gives a record up before that (`enqueueTimeoutMs` waiting for room in librdkafka's
 * queue, then `messageTimeoutMs`, librdkafka's message.timeout.ms), leaving time for the
 * delivery report to arrive. So the edge's 503 comes only once the record can no longer land.
 */
function readProduceTimeouts(env) {
  const produceTimeoutMs = readInteger(env, 'KAFKA_PRODUCE_TIMEOUT_MS', 10000, { min: 2000, max: 600000 });
  const enqueueTimeoutMs = Math.floor(produceTimeoutMs / 10);
  // librdkafka looks for timed-out records once a second (a topic it cannot reach, say), so a
  // record's failure may be reported up to a second after message.timeout.ms.
  const reportGraceMs = LIBRDKAFKA_TIMEOUT_SCAN_MS + Math.floor(produceTimeoutMs / 10);
  return { produceTimeoutMs, enqueueTimeoutMs, messageTimeoutMs: produceTimeoutMs - enqueueTimeoutMs - reportGraceMs };
}

/**
 * The currencies a scheme holds to their ISO 4217 minor units at the edges: none by default,
 * so every amount may have the four decimals the API's Amount allows, as Mojaloop accepts.
 */
function readMinorUnitCurrencies(env) {
  const codes = readString(env, 'AMOUNT_MINOR_UNITS_CURRENCIES', '').split(',').map((code) => code.trim()).filter(Boolean);
  const unknown = codes.filter((code) => !isKnownCurrency(code));
  if (unknown.length > 0) throw new ConfigError(`AMOUNT_MINOR_UNITS_CURRENCIES names no ISO 4217 currency: ${unknown.join(', ')}`);
  return new Set(codes);
}

/**
 * How far ahead of now an FSPIOP `expiration` may lie at the edges, and which currencies keep
 * to their minor units there (platform/fspiop/input-limits.js).
 */
function readInputLimits(env) {
  return {
    expirationAheadMaxMs: readInteger(env, 'EXPIRATION_AHEAD_MAX_MS', EXPIRATION_AHEAD_MAX_MS_DEFAULT, { min: 1000 }),
    minorUnitCurrencies: readMinorUnitCurrencies(env),
  };
}

/**
 * Parses the environment into the configuration every process shares. Secrets (the
 * database password) have no default: a missing one stops the process at start-up. A
 * process without a database (the FSPIOP edges, the notification handler) passes
 * `usesDatabase: false` and needs no database settings at all.
 */
export function loadConfig(env = process.env, { defaultPort = 3000, usesDatabase = true, operatorApi = false, operatorTokens = [], signsAsHub = false } = {}) {
  return deepFreeze({
    serviceName: readString(env, 'SERVICE_NAME', 'fspiop-switch'),
    replicaIndex: readInteger(env, 'REPLICA_INDEX', 0),
    httpPort: readInteger(env, 'PORT', defaultPort, { min: 0, max: 65535 }), // 0 lets the OS choose (tests)
    // Loopback unless told otherwise: on one machine nothing else needs to reach a port, and
    // operator APIs have their own setting so that opening the DFSP edges never opens them.
    httpHost: operatorApi ? readString(env, 'OPERATOR_HOST', '127.0.0.1') : readString(env, 'HOST', '127.0.0.1'),
    operatorAuth: readOperatorAuth(env, operatorApi ? Object.keys(OPERATOR_TOKEN_VARIABLES) : operatorTokens),
    // Callback URLs may not point at link-local or cloud metadata addresses unless a lab allows it.
    callbackUrlsAllowLinkLocal: readBoolean(env, 'CALLBACK_URL_ALLOW_LINK_LOCAL', false),
    hubName: readString(env, 'HUB_NAME', 'Hub'),
    adminApiBaseUrl: readString(env, 'ADMIN_API_BASE_URL', 'http://127.0.0.1:3001'),
    adminApiUrl: readString(env, 'ADMIN_API_URL', 'http://127.0.0.1:3001'), // where handlers ask for DFSP endpoints
    logLevel: readString(env, 'LOG_LEVEL', 'info'),
    db: usesDatabase ? readDatabase(env) : undefined,
    timeout: {
      intervalMs: readInteger(env, 'TIMEOUT_INTERVAL_MS', 1000, { min: 10, max: 600000 }),
      batchSizeMax: readInteger(env, 'TIMEOUT_BATCH_SIZE_MAX', 500, { min: 1, max: 100000 }),
      staleReleaseAfterMs: readInteger(env, 'TIMEOUT_STALE_RELEASE_AFTER_MS', 30000, { min: 1000, max: 3600000 }),
    },
    // Continuous gross settlement: how often the settlement API settles the transfers
    // committed since, and how many it settles per transaction.
    grossSettlement: {
      intervalMs: readInteger(env, 'GROSS_SETTLEMENT_INTERVAL_MS', 1000, { min: 10, max: 600000 }),
      batchSizeMax: readInteger(env, 'GROSS_SETTLEMENT_BATCH_SIZE_MAX', 500, { min: 1, max: 100000 }),
    },
    kafka: {
      brokers: readString(env, 'KAFKA_BROKERS', '127.0.0.1:9192'),
      topicPrefix: readString(env, 'KAFKA_TOPIC_PREFIX', ''),
      topicPartitions: readTopicPartitions(env),
      security: readKafkaSecurity(env),
      clientId: readString(env, 'KAFKA_CLIENT_ID', 'fspiop-switch'),
      groupPrefix: readString(env, 'KAFKA_GROUP_PREFIX', 'fspiop'),
      batchSizeMax: readInteger(env, 'KAFKA_BATCH_SIZE_MAX', 500, { min: 1, max: 100000 }),
      // Measured from a batch's first record (platform/kafka/consumer.js), so it is the most
      // a quiet topic adds per handler hop: 10 ms over the five or six hops of a transfer stays
      // far inside the one-second latency goal, while at a few hundred events per second it
      // gathers several events per database transaction and produce instead of one or two.
      // Under load batches fill while the previous one is handled, so the wait rarely applies.
      batchWaitMs: readInteger(env, 'KAFKA_BATCH_WAIT_MS', 10, { min: 0, max: 10000 }),
      ...readProduceTimeouts(env),
      // A message that fails this many times for a reason other than an outage is set aside.
      deadLetterAfterFailures: readInteger(env, 'DEAD_LETTER_AFTER_FAILURES', 3, { min: 1, max: 100 }),
      handlerStuckAfterMs: readInteger(env, 'HANDLER_STUCK_AFTER_MS', 60000, { min: 1000 }),
      // A consumer that has not polled, is out of its group or has a handler call hung this
      // long ends its process to be restarted (platform/kafka/consumer.js, healthOf).
      handlerExitAfterMs: readInteger(env, 'HANDLER_EXIT_AFTER_MS', 60000, { min: 1000 }),
    },
    // Off as in Mojaloop (ENABLE_ON_US_TRANSFERS=false): a scheme decides whether it carries
    // payments a DFSP could book on its own ledger; its test deployments turn it on.
    transfers: { onUsAllowed: readBoolean(env, 'TRANSFERS_ON_US_ALLOWED', false) },
    inputLimits: readInputLimits(env),
    jws: readJws(env, { signsAsHub }),
    clientIdentity: readClientIdentity(env),
    rateLimit: readRateLimit(env),
  });
}
