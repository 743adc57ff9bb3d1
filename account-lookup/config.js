// The account-lookup context's own settings, read from the same environment as loadConfig's and
// validated the same way: a bad value stops the process at start-up, and the result is frozen.
import { readInteger, readString } from '../platform/config.js';

/**
 * Account lookup (account-lookup/): where the built-in oracle is, how long the edge trusts
 * what it read about oracles and participants, and the HTTP limits towards oracles.
 * `ORACLE_PORT` is where the admin process serves the built-in oracle; `off` serves none
 * there (run account-lookup/oracle-main.js instead).
 */
export function readAccountLookupConfig(env) {
  const oraclePortOff = env.ORACLE_PORT === 'off';
  return Object.freeze({
    oracleBuiltInUrl: readString(env, 'ORACLE_BUILTIN_URL', 'http://127.0.0.1:4003'),
    oraclePort: oraclePortOff ? null : readInteger(env, 'ORACLE_PORT', 4003, { max: 65535 }),
    oracleRequestTimeoutMs: readInteger(env, 'ORACLE_REQUEST_TIMEOUT_MS', 5_000, { min: 1 }),
    oracleConnectionsMax: readInteger(env, 'ORACLE_CONNECTIONS_MAX', 32, { min: 1, max: 1024 }), // per oracle origin
    oracleRegistryTtlMs: readInteger(env, 'ORACLE_REGISTRY_TTL_MS', 5_000), // 0: read the registry on every request
    participantCacheTtlMs: readInteger(env, 'PARTICIPANT_CACHE_TTL_MS', 5_000), // 0: read the participant on every request
    partyLookupTtlMs: readInteger(env, 'PARTY_LOOKUP_TTL_MS', 60_000, { min: 1 }), // how long a payee may answer a GET /parties
  });
}
