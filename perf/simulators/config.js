// The simulators' settings, from the environment (perf/run.js sets them).
export function readConfig(env) {
  const number = (name, fallback) => Number(env[name] ?? fallback);
  return Object.freeze({
    host: env.SIM_HOST ?? '127.0.0.1',
    simPort: number('SIM_PORT', 7000),
    bridgePort: number('BRIDGE_PORT', 7100),
    workers: number('SIM_WORKERS', 2),
    alsUrl: env.ALS_URL ?? 'http://127.0.0.1:4002',
    quotingUrl: env.QUOTING_URL ?? 'http://127.0.0.1:3002',
    transfersUrl: env.TRANSFERS_URL ?? 'http://127.0.0.1:3000',
    runTag: (env.RUN_TAG ?? '000000').padStart(6, '0').slice(0, 6),
    secretPrefix: env.SIM_SECRET_PREFIX ?? 'perf-secret-',
    callbackTimeoutMs: number('CALLBACK_WAIT_MS', 30_000),
    expirationMs: number('TRANSFER_EXPIRATION_MS', 60_000),
    maxWaiting: number('SIM_MAX_WAITING', 200_000),
    // full: discovery, quote and transfer through the switch; quote-transfer: the bridge
    // answers discovery itself; transfer: it answers discovery and the quote (ILP from the
    // payee's secret) itself, so only the transfer goes through the switch.
    mode: env.SIM_MODE ?? 'full',
    // The DFSPs' private keys (`<name>.key`, written by perf/provision.js): every request
    // with a body is signed, with the algorithm of the key: RS256 for RSA keys (as Mojaloop's
    // SDKs sign), ES256 for P-256 keys (the load test's default, a tenth of the signing cost).
    // SIM_JWS_SIGN=false measures a switch with JWS off.
    sign: env.SIM_JWS_SIGN !== 'false',
    keysDirectory: env.DFSP_JWS_KEYS_DIR ?? new URL('../../.run/jws/dfsps', import.meta.url).pathname,
    // The scheme's certificates (scripts/lib/scheme-certs.js): each DFSP presents its own to an
    // HTTPS edge (mutual TLS). Unset, the edges must be plain HTTP.
    tlsDir: env.SCHEME_TLS_DIR,
    // Currency conversion (perf/simulators/fxp.js): the currencies each DFSP holds, which a
    // v2.0 party answer names ({ name: [currency] }, from perf/provision.js), and the rate the
    // FXPs convert at, a decimal string (target units per source unit).
    dfspCurrencies: JSON.parse(env.SIM_DFSP_CURRENCIES_JSON || '{}'),
    fxRate: env.SIM_FX_RATE ?? '0.9',
    // The DFSPs registered as ISO 20022 DFSPs (perf/provision.js --iso20022-share): they send
    // ISO 20022 on the resources it carries (perf/simulators/iso-dfsp.js).
    isoDfsps: new Set(JSON.parse(env.SIM_ISO20022_DFSPS_JSON || '[]')),
  });
}
