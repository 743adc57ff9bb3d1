// The portal's configuration, read once at start. The portal holds no operator token: every
// call it forwards carries the signed-in operator's own, so it needs only where the operator
// APIs are and where to listen.
import { loadConfig, readInteger, readString } from '../platform/config.js';

/** The operator APIs the portal forwards to, by the path segment the browser names them with. */
export const UPSTREAM_NAMES = Object.freeze(['admin', 'settlement', 'oracle-admin']);

export function loadPortalConfig(env) {
  const base = loadConfig({ SERVICE_NAME: 'portal', ...env }, { defaultPort: 3010, usesDatabase: false });
  return Object.freeze({
    ...base,
    // The portal is an operator surface: it binds where the operator APIs do, loopback by default.
    httpHost: readString(env, 'OPERATOR_HOST', '127.0.0.1'),
    upstreams: Object.freeze({
      // The admin API is where every process finds it; the other two only the portal calls.
      admin: readString(env, 'PORTAL_ADMIN_API_URL', base.adminApiUrl),
      settlement: readString(env, 'PORTAL_SETTLEMENT_API_URL', 'http://127.0.0.1:3007'),
      'oracle-admin': readString(env, 'PORTAL_ALS_ADMIN_API_URL', 'http://127.0.0.1:4001'),
    }),
    upstreamTimeoutMs: readInteger(env, 'PORTAL_UPSTREAM_TIMEOUT_MS', 15000, { min: 100, max: 120000 }),
    assetsDir: readString(env, 'PORTAL_ASSETS_DIR', new URL('./dist/', import.meta.url).pathname),
  });
}
