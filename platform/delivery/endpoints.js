// A DFSP's callback endpoints, read from the admin API as ml-api-adapter reads them from
// central-ledger (`GET /participants/{fsp}/endpoints` → `[{type, value}]`), and the API it
// receives messages in (`apiType` of `GET /participants/{fsp}`: FSPIOP or ISO 20022), cached
// per DFSP. Concurrent misses for one DFSP share one request; a failed lookup is remembered
// only briefly, and an expired entry is served again while the admin API cannot be reached,
// since endpoints rarely change and a stale URL is better than no callback at all. The admin
// API needs an operator token; the DFSP directory token, which admits both reads, is enough.
import { LRUCache } from 'lru-cache';
import { operatorHeaders } from '../http/operator-auth.js';
import { API_TYPE } from '../iso20022/media-types.js';

/** The admin API could not say what the endpoints are; the lookup may succeed later. */
export class EndpointLookupError extends Error {
  constructor(fsp, message, options) {
    super(`endpoints of ${fsp}: ${message}`, options);
    this.name = 'EndpointLookupError';
    this.code = 'ENDPOINT_LOOKUP_FAILED';
    // The admin API is away or misbehaving, not the message: retried without limit, never
    // dead-lettered (platform/transient-failures.js).
    this.transient = true;
  }
}

/** The admin API's endpoint list as a `Map(type → template)`. */
function endpointMapFromList(list) {
  if (!Array.isArray(list)) throw new TypeError('the endpoint list is not an array');
  return new Map(list.map(({ type, value }) => [type, value]));
}

/**
 * The API type in the admin API's participant: FSPIOP when it names none (an admin API from
 * before API types), an error when it names one this switch does not speak.
 */
function apiTypeFromParticipant(participant) {
  const apiType = participant?.apiType ?? API_TYPE.fspiop;
  if (!Object.values(API_TYPE).includes(apiType)) throw new TypeError(`the API type ${JSON.stringify(apiType)} is not one the switch speaks`);
  return apiType;
}

const NOT_FOUND_CODES = new Set(['3200', '3201']);
// Answers about the caller rather than the DFSP (a bad token, a refused scope) or that say
// "ask again later": they are transient, like an unreachable admin API.
const TRANSIENT_CLIENT_STATUSES = new Set([401, 403, 408, 429]);
// The admin API's participant names are at most 30 characters; a far longer `to` is junk that
// must not become an oversized request the admin API might answer by closing the connection.
const FSP_NAME_LENGTH_MAX = 128;
const UNKNOWN_DFSP = Object.freeze({ known: false, endpoints: new Map(), apiType: API_TYPE.fspiop });
// What fetchFromAdminApi answers when the admin API's verdict is that the name is no DFSP.
const NOT_A_DFSP = Symbol('not a DFSP');

/**
 * Names no DFSP can have and that must not reach the admin API: URL parsing would resolve
 * `.` and `..` as path segments and call another route.
 */
function isImpossibleName(fsp) {
  return fsp.length > FSP_NAME_LENGTH_MAX || fsp === '.' || fsp === '..';
}

/**
 * Whether a 4xx is the admin API's verdict on the name. A 404 without its "participant not
 * found" code is a route that does not exist (a wrong ADMIN_API_URL): that must not turn
 * every callback into a silent "unknown DFSP", so it stays a failure.
 */
function isVerdictOnName(status, code) {
  if (status < 400 || status >= 500 || TRANSIENT_CLIENT_STATUSES.has(status)) return false;
  return status !== 404 || NOT_FOUND_CODES.has(code);
}

/**
 * Asks the admin API once for `path` (under /participants/{fsp}) and reads the answer with
 * `read`. A 4xx about the name is its verdict that `fsp` is no DFSP it knows (3200 for an
 * unknown name, a validation 400, FSPIOP or not, for one it refuses, such as thousands of
 * commas): NOT_A_DFSP, as final as an empty list, since retrying it would block the partition
 * forever. Only an unreachable admin API, a 5xx, a transient 4xx or an unreadable answer is a
 * failure.
 */
async function fetchFromAdminApi({ adminApiUrl, adminApiToken, fsp, timeoutMs }, { path, what, read }) {
  let response;
  try {
    response = await fetch(`${adminApiUrl}/participants/${encodeURIComponent(fsp)}${path}`, {
      headers: operatorHeaders(adminApiToken),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new EndpointLookupError(fsp, `admin API unreachable (${error.name})`, { cause: error });
  }
  const text = await response.text().catch(() => '');
  if (response.status === 200) {
    try {
      return read(JSON.parse(text));
    } catch (error) {
      throw new EndpointLookupError(fsp, `admin API answered an unreadable ${what}`, { cause: error });
    }
  }
  const code = safeErrorCode(text);
  if (isVerdictOnName(response.status, code)) return NOT_A_DFSP;
  throw new EndpointLookupError(fsp, `admin API answered HTTP ${response.status}${code ? ` (${code})` : ''} for the ${what}`);
}

/**
 * The DFSP's endpoints (`GET /participants/{fsp}/endpoints`) and API type (`GET
 * /participants/{fsp}`), asked together. A DFSP is unknown when the admin API says so of its
 * endpoints; either request failing fails the lookup, once both are answered, so that no
 * request of a finished lookup is still on its way.
 */
async function fetchDfsp(request) {
  const answers = await Promise.allSettled([
    fetchFromAdminApi(request, { path: '/endpoints', what: 'endpoint list', read: endpointMapFromList }),
    fetchFromAdminApi(request, { path: '', what: 'participant', read: apiTypeFromParticipant }),
  ]);
  const failed = answers.find((answer) => answer.status === 'rejected');
  if (failed) throw failed.reason;
  const [endpoints, apiType] = answers.map((answer) => answer.value);
  if (endpoints === NOT_A_DFSP) return UNKNOWN_DFSP;
  // The participant was found by its endpoints and not by its name: it cannot be, but if it
  // were, FSPIOP is what every DFSP spoke before API types.
  return { known: true, endpoints, apiType: apiType === NOT_A_DFSP ? API_TYPE.fspiop : apiType };
}

function safeErrorCode(text) {
  try {
    return JSON.parse(text)?.errorInformation?.errorCode ?? null;
  } catch {
    return null;
  }
}

/**
 * Creates the cache. `lookup(fsp)` resolves to `{ known, endpoints, apiType }` (apiType one of
 * API_TYPE, FSPIOP for an unknown DFSP) or rejects with
 * EndpointLookupError. `ttlMs` is how long an answer is reused; `failureTtlMs` how long a
 * failure is repeated to callers before the admin API is asked again. `adminApiToken` is
 * the read-only operator token (none when operator authentication is off). Event `to`
 * names come from DFSP headers, so at most `entriesMax` DFSPs are remembered, the least
 * recently used forgotten first.
 */
export function createEndpointCache({
  adminApiUrl, adminApiToken, ttlMs, failureTtlMs, entriesMax = 10_000, requestTimeoutMs = 5_000, now = Date.now,
}) {
  const entries = new LRUCache({ max: entriesMax });
  const baseUrl = adminApiUrl.replace(/\/+$/, '');

  function refresh(fsp, entry) {
    entry.pending = fetchDfsp({ adminApiUrl: baseUrl, adminApiToken, fsp, timeoutMs: requestTimeoutMs }).then((value) => {
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
    if (isImpossibleName(fsp)) return Promise.resolve(UNKNOWN_DFSP);
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
    size: () => entries.size,
    /** Forgets one DFSP's endpoints, or all of them (ml-api-adapter's DELETE /endpointcache). */
    invalidate(fsp) {
      if (fsp === undefined) entries.clear();
      else entries.delete(fsp);
    },
  };
}
