// The settings of callback delivery, which every process that calls DFSPs reads (the
// notification handler, account-lookup's /parties calls): read from the same environment as
// loadConfig (platform/config.js), once, at start-up, and returned frozen, so a bad value stops
// the process there.
import { ConfigError, deepFreeze, readBoolean, readInteger, readString } from '../config.js';
import { parseCidrList } from './callback-destinations.js';
import { API_VERSIONS, SCHEME_VERSION_DEFAULT } from '../fspiop/versions.js';

/** The version the hub speaks to a DFSP it knows nothing of (dfsp-versions.js): one the switch knows. */
function readVersionDefault(env) {
  const version = readString(env, 'FSPIOP_VERSION_DEFAULT', SCHEME_VERSION_DEFAULT);
  if (!API_VERSIONS.includes(version)) throw new ConfigError(`FSPIOP_VERSION_DEFAULT must be one of ${API_VERSIONS.join(', ')}, not ${version}`);
  return version;
}

function parseCidrs(name, text) {
  try {
    return parseCidrList(text);
  } catch (error) {
    throw new ConfigError(`${name}: ${error.message}`);
  }
}

/**
 * TLS of the callbacks to DFSP endpoints that are https: URLs (callback-tls.js reads the files):
 * the hub's client certificate and key, presented so that a DFSP can require them (mutual TLS),
 * and the CA a DFSP's server certificate must chain to (the scheme's); `publicRoots` trusts
 * Node's bundled public roots beside that CA. Without a CA only the public roots are trusted.
 */
function readCallbackTlsPaths(env) {
  const tls = {
    certPath: readString(env, 'CALLBACK_TLS_CERT_PATH', '') || undefined,
    keyPath: readString(env, 'CALLBACK_TLS_KEY_PATH', '') || undefined,
    caPath: readString(env, 'CALLBACK_TLS_CA_PATH', '') || undefined,
    publicRoots: readBoolean(env, 'CALLBACK_TLS_PUBLIC_ROOTS', false),
  };
  if (Boolean(tls.certPath) !== Boolean(tls.keyPath)) throw new ConfigError('CALLBACK_TLS_CERT_PATH and CALLBACK_TLS_KEY_PATH go together');
  return tls;
}

/**
 * The delivery settings. The deadline of one callback defaults to the longest a callback can
 * take: every attempt timing out, plus the backoffs between them. `inFlightBytesMax` bounds the
 * callback bytes a process holds at once (the notification handler's events being delivered,
 * account-lookup's calls).
 */
export function readDeliveryConfig(env = process.env) {
  const callbackTimeoutMs = readInteger(env, 'CALLBACK_TIMEOUT_MS', 10_000, { min: 1 }); // per HTTP attempt
  const callbackRetries = readInteger(env, 'CALLBACK_RETRIES', 2, { max: 10 }); // after the first attempt; 5xx and connection errors only
  const callbackRetryBackoffMs = readInteger(env, 'CALLBACK_RETRY_BACKOFF_MS', 200); // doubles per retry
  const longestCallbackMs = callbackTimeoutMs * (callbackRetries + 1) + callbackRetryBackoffMs * (2 ** callbackRetries - 1);
  return deepFreeze({
    endpointCacheTtlMs: readInteger(env, 'ENDPOINT_CACHE_TTL_MS', 60_000), // how long a DFSP's endpoints are reused
    endpointFailureTtlMs: readInteger(env, 'ENDPOINT_FAILURE_TTL_MS', 1_000), // how long a failed lookup is repeated
    endpointCacheEntriesMax: readInteger(env, 'ENDPOINT_CACHE_ENTRIES_MAX', 10_000, { min: 1 }), // DFSPs remembered, least recently used forgotten
    callbackTimeoutMs,
    callbackRetries,
    callbackRetryBackoffMs,
    callbackInFlightMaxPerFsp: readInteger(env, 'CALLBACK_IN_FLIGHT_MAX_PER_FSP', 64, { min: 1 }), // also the sockets per DFSP origin
    callbackQueueMaxPerFsp: readInteger(env, 'CALLBACK_QUEUE_MAX_PER_FSP', 10_000), // beyond it a callback fails at once
    batchDeadlineMs: readInteger(env, 'CALLBACK_BATCH_DEADLINE_MS', longestCallbackMs, { min: 1 }),
    breakerFailures: readInteger(env, 'CALLBACK_BREAKER_FAILURES', 5), // consecutive failed attempts; 0 disables the breaker
    breakerOpenMs: readInteger(env, 'CALLBACK_BREAKER_OPEN_MS', 10_000), // how long an open circuit fails calls at once
    inFlightBytesMax: readInteger(env, 'NOTIFICATION_IN_FLIGHT_BYTES_MAX', 32 * 1024 * 1024, { min: 1 }), // callback bytes held at once
    // Ranges a callback may connect to although they are not public addresses (callback-destinations.js).
    allowedCidrs: parseCidrs('CALLBACK_ALLOWED_CIDRS', readString(env, 'CALLBACK_ALLOWED_CIDRS', '')),
    originPoolsMax: readInteger(env, 'CALLBACK_ORIGIN_POOLS_MAX', 1_000, { min: 1 }), // connection pools kept, least recently used closed first
    tls: readCallbackTlsPaths(env),
    versionDefault: readVersionDefault(env),
  });
}
