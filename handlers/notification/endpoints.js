// A DFSP's callback endpoints, read from the admin API as ml-api-adapter reads them from
// central-ledger (`GET /participants/{fsp}/endpoints` → `[{type, value}]`) and cached per
// DFSP. Concurrent misses for one DFSP share one request; a failed lookup is remembered only
// briefly, and an expired entry is served again while the admin API cannot be reached, since
// endpoints rarely change and a stale URL is better than no callback at all. The admin API
// needs an operator token; the read-only one is enough, and all this handler is given.
import { operatorHeaders } from '../../platform/http/operator-auth.js';

const NOT_FOUND_CODES = new Set(['3200', '3201']);

/** The admin API could not say what the endpoints are; the lookup may succeed later. */
export class EndpointLookupError extends Error {
  constructor(fsp, message, options) {
    super(`endpoints of ${fsp}: ${message}`, options);
    this.name = 'EndpointLookupError';
    this.code = 'ENDPOINT_LOOKUP_FAILED';
  }
}

/** The admin API's answer, as `{ known, endpoints: Map(type → template) }`. */
function endpointsFromList(list) {
  if (!Array.isArray(list)) throw new TypeError('the endpoint list is not an array');
  return { known: true, endpoints: new Map(list.map(({ type, value }) => [type, value])) };
}

/**
 * Asks the admin API once. A DFSP the admin API does not know (3200) or whose name it
 * refuses (400 with a validation error) has no endpoints: that answer is as final as an
 * empty list, and retrying it would block the partition forever.
 */
async function fetchEndpoints(adminApiUrl, adminApiToken, fsp, timeoutMs) {
  let response;
  try {
    response = await fetch(`${adminApiUrl}/participants/${encodeURIComponent(fsp)}/endpoints`, {
      headers: operatorHeaders(adminApiToken),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new EndpointLookupError(fsp, `admin API unreachable (${error.name})`, { cause: error });
  }
  const text = await response.text().catch(() => '');
  if (response.status === 200) {
    try {
      return endpointsFromList(JSON.parse(text));
    } catch (error) {
      throw new EndpointLookupError(fsp, 'admin API answered an unreadable endpoint list', { cause: error });
    }
  }
  // Only the admin API's own verdict counts: a bare 404 from a wrong ADMIN_API_URL must not
  // turn every callback into a silent "no endpoint".
  const code = response.status === 400 || response.status === 404 ? safeErrorCode(text) : null;
  if (code && (NOT_FOUND_CODES.has(code) || /^31\d\d$/.test(code))) return { known: false, endpoints: new Map() };
  throw new EndpointLookupError(fsp, `admin API answered HTTP ${response.status}`);
}

function safeErrorCode(text) {
  try {
    return JSON.parse(text)?.errorInformation?.errorCode ?? null;
  } catch {
    return null;
  }
}

/**
 * Creates the cache. `lookup(fsp)` resolves to `{ known, endpoints }` or rejects with
 * EndpointLookupError. `ttlMs` is how long an answer is reused; `failureTtlMs` how long a
 * failure is repeated to callers before the admin API is asked again. `adminApiToken` is
 * the read-only operator token (none when operator authentication is off).
 */
export function createEndpointCache({ adminApiUrl, adminApiToken, ttlMs, failureTtlMs, requestTimeoutMs = 5_000, now = Date.now }) {
  const entries = new Map();
  const baseUrl = adminApiUrl.replace(/\/+$/, '');

  function refresh(fsp, entry) {
    entry.pending = fetchEndpoints(baseUrl, adminApiToken, fsp, requestTimeoutMs).then((value) => {
      Object.assign(entry, { value, expiresAt: now() + ttlMs, failedUntil: 0, error: null });
      return value;
    }, (error) => {
      Object.assign(entry, { failedUntil: now() + failureTtlMs, error });
      if (entry.value) return entry.value;
      throw error;
    }).finally(() => { entry.pending = null; });
    return entry.pending;
  }

  function lookup(fsp) {
    let entry = entries.get(fsp);
    if (!entry) {
      entry = { value: null, expiresAt: 0, failedUntil: 0, error: null, pending: null };
      entries.set(fsp, entry);
    }
    if (entry.value && entry.expiresAt > now()) return Promise.resolve(entry.value);
    if (entry.pending) return entry.pending;
    if (entry.failedUntil > now()) return entry.value ? Promise.resolve(entry.value) : Promise.reject(entry.error);
    return refresh(fsp, entry);
  }

  return {
    lookup,
    /** Forgets one DFSP's endpoints, or all of them (ml-api-adapter's DELETE /endpointcache). */
    invalidate(fsp) {
      if (fsp === undefined) entries.clear();
      else entries.delete(fsp);
    },
  };
}
