// The client side of Mojaloop's oracle API (as als-msisdn-oracle serves it), the only way
// account lookup reaches any oracle, the built-in one included, so that an operator can point
// an id type at an external oracle without the switch noticing a difference:
//   GET    {base}/participants/{Type}/{ID}?currency=&partySubIdOrType=  → { partyList: [{ fspId, currency? }] }
//   POST   {base}/participants/{Type}/{ID}  { fspId, currency?, partySubIdOrType? }
//   DELETE {base}/participants/{Type}/{ID}?partySubIdOrType=
//   POST   {base}/participants  { requestId, partyList, currency? }  → { partyList: [PartyResult] }
// (the sub-id travels as Mojaloop's ALS sends it: in the query or the body). Connections are
// kept alive in one pool per oracle origin. One exception: a lookup at the built-in oracle,
// when the client is given its repository read, is made in process with the same read its
// HTTP server answers with (oracle/routes.js), which saves an HTTP hop on every discovery;
// its answers, errors and metrics are those of the HTTP call.
import { Pool } from 'undici';
import { operatorHeaders } from '../platform/http/operator-auth.js';
import { metricOnce } from '../platform/metrics.js';

const ORACLE_METRIC = 'account_lookup_oracle_request_duration_seconds';
const MEDIA_TYPE = 'application/vnd.interoperability.participants+json';

/** The oracle could not be asked: refused connection, timeout, 5xx or an unreadable answer. */
export class OracleUnavailableError extends Error {
  constructor(detail, options) {
    super(`oracle unavailable: ${detail}`, options);
    this.name = 'OracleUnavailableError';
    this.code = 'ORACLE_UNAVAILABLE';
  }
}

/** The oracle answered and refused (4xx); `errorInformation` is its reason when it gave one. */
export class OracleRefusalError extends Error {
  constructor(status, errorInformation) {
    super(`oracle refused with HTTP ${status}${errorInformation ? `: ${errorInformation.errorDescription}` : ''}`);
    this.name = 'OracleRefusalError';
    this.status = status;
    this.errorInformation = errorInformation;
  }

  /** Why the oracle refused, in its own words when it gave any. */
  get detail() {
    return this.errorInformation?.errorDescription ?? this.message;
  }
}

function durationHistogram(metrics) {
  return metricOnce(metrics, metrics.client.Histogram, {
    name: ORACLE_METRIC,
    help: 'Time an oracle took to answer account lookup, by operation and outcome.',
    labelNames: ['operation', 'outcome'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  });
}

/** `{base}/participants/{Type}/{ID}` with a query, for a base URL that may carry a path. */
export function participantUrl(baseUrl, party, query = {}) {
  const url = new URL(baseUrl);
  const basePath = url.pathname.replace(/\/+$/, '');
  url.pathname = `${basePath}/participants/${encodeURIComponent(party.type)}/${encodeURIComponent(party.id)}`;
  for (const [name, value] of Object.entries(query)) if (value) url.searchParams.set(name, value);
  return url;
}

function batchUrl(baseUrl) {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/participants`;
  return url;
}

function requestHeaders(source, withBody) {
  const headers = { accept: `${MEDIA_TYPE};version=1`, date: new Date().toUTCString(), 'fspiop-source': source };
  if (withBody) headers['content-type'] = `${MEDIA_TYPE};version=1.1`;
  return headers;
}

function parseJson(text) {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A 4xx answer becomes a refusal; anything else that is not a success is unavailability. */
function refusalOrUnavailable(status, json) {
  if (status >= 400 && status < 500) return new OracleRefusalError(status, json?.errorInformation);
  return new OracleUnavailableError(`HTTP ${status}`);
}

/** A base URL compared as written in the registry or ORACLE_BUILTIN_URL, trailing slashes aside. */
function baseOf(baseUrl) {
  const url = new URL(baseUrl);
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url.href;
}

class InProcessTimeoutError extends Error {
  constructor(timeoutMs) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'TimeoutError';
  }
}

/** `promise`, or a rejection with InProcessTimeoutError once `timeoutMs` have passed. */
async function withinTimeout(promise, timeoutMs) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new InProcessTimeoutError(timeoutMs)), timeoutMs); });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Keeps the entries for exactly this party: Mojaloop's ALS filters an oracle's list the same way. */
export function entriesForParty(partyList, party) {
  if (!Array.isArray(partyList)) return [];
  const subId = party.subId ?? null;
  return partyList.filter((entry) => typeof entry?.fspId === 'string' && entry.fspId !== ''
    && (entry.partySubIdOrType || null) === subId);
}

/** The built-in oracle's answer to a find, read in process: its HTTP answer's partyList, filtered alike. */
async function findInProcess({ findParty, timeoutMs, duration }, party, currency) {
  const started = performance.now();
  let outcome = 'unavailable';
  try {
    const entry = await withinTimeout(findParty({ type: party.type, id: party.id, subId: party.subId, currency }), timeoutMs);
    outcome = 'ok';
    return entriesForParty(entry ? [entry] : [], party);
  } catch (error) {
    throw new OracleUnavailableError(`built-in oracle: ${error.code ?? error.message}`, { cause: error });
  } finally {
    duration.observe({ operation: 'find', outcome }, (performance.now() - started) / 1000);
  }
}

/**
 * Creates the client. Every method takes the oracle's base URL first and the requesting
 * DFSP (`source`, sent as FSPIOP-Source) in its options, and rejects with
 * OracleUnavailableError or OracleRefusalError. `builtIn` is the built-in oracle's URL and
 * operator token: the token is sent to that origin only, never to an external oracle. With
 * `builtIn.findParty(query)` (oracle/repository.js's findParty over the switch's database), a
 * find at exactly that URL is answered in process; registrations and deletions still go over
 * HTTP, where the oracle's server keeps the operator audit trail of every change.
 */
export function createOracleClient({ timeoutMs, connectionsMax, metrics, builtIn = {} }) {
  const pools = new Map();
  const duration = durationHistogram(metrics);
  const builtInOrigin = builtIn.url ? new URL(builtIn.url).origin : undefined;
  const inProcessBase = builtIn.url && builtIn.findParty ? baseOf(builtIn.url) : undefined;

  function headersFor(url, source, withBody) {
    const headers = requestHeaders(source, withBody);
    return url.origin === builtInOrigin ? { ...headers, ...operatorHeaders(builtIn.token) } : headers;
  }

  function poolFor(url) {
    let pool = pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, { connections: connectionsMax, keepAliveTimeout: 30_000, pipelining: 1 });
      pools.set(url.origin, pool);
    }
    return pool;
  }

  /** One HTTP exchange: resolves to `{ status, json }` or rejects with OracleUnavailableError. */
  async function exchange(operation, url, { method, source, body }) {
    const started = performance.now();
    let outcome = 'unavailable';
    try {
      const response = await poolFor(url).request({
        path: `${url.pathname}${url.search}`, method, headers: headersFor(url, source, body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.body.text();
      outcome = response.statusCode < 400 ? 'ok' : response.statusCode < 500 ? 'refused' : 'unavailable';
      return { status: response.statusCode, json: parseJson(text) };
    } catch (error) {
      throw new OracleUnavailableError(`${method} ${url.origin}: ${error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : error.code ?? error.message}`, { cause: error });
    } finally {
      duration.observe({ operation, outcome }, (performance.now() - started) / 1000);
    }
  }

  return {
    /** The DFSPs the oracle lists for `party`: `[{ fspId, currency? }]`, empty when unknown. */
    async find(baseUrl, { party, currency, source }) {
      if (inProcessBase !== undefined && baseOf(baseUrl) === inProcessBase) {
        return findInProcess({ findParty: builtIn.findParty, timeoutMs, duration }, party, currency || undefined);
      }
      const url = participantUrl(baseUrl, party, { currency, partySubIdOrType: party.subId });
      const { status, json } = await exchange('find', url, { method: 'GET', source });
      // Mojaloop's ALS reads a 400 from an oracle as "party not found"; a 404 says the same.
      if (status === 400 || status === 404) return [];
      if (status !== 200) throw new OracleUnavailableError(`GET answered HTTP ${status}`);
      if (!Array.isArray(json?.partyList)) throw new OracleUnavailableError('GET answered without a partyList');
      return entriesForParty(json.partyList, party);
    },

    /** Records that `fspId` serves `party`; an oracle that refuses rejects with OracleRefusalError. */
    async register(baseUrl, { party, fspId, currency, source }) {
      const body = { fspId, ...(currency ? { currency } : {}), ...(party.subId ? { partySubIdOrType: party.subId } : {}) };
      const { status, json } = await exchange('register', participantUrl(baseUrl, party), { method: 'POST', source, body });
      if (status !== 200 && status !== 201 && status !== 204) throw refusalOrUnavailable(status, json);
    },

    /** Forgets `party`; one the oracle does not know is already forgotten. */
    async remove(baseUrl, { party, source }) {
      const url = participantUrl(baseUrl, party, { partySubIdOrType: party.subId });
      const { status, json } = await exchange('remove', url, { method: 'DELETE', source });
      if (status !== 200 && status !== 204 && status !== 404) throw refusalOrUnavailable(status, json);
    },

    /** Registers many parties at once; resolves to the oracle's `[{ partyId, errorInformation? }]`. */
    async registerBatch(baseUrl, { requestId, partyList, currency, source }) {
      const body = { requestId, partyList, ...(currency ? { currency } : {}) };
      const { status, json } = await exchange('register-batch', batchUrl(baseUrl), { method: 'POST', source, body });
      if (status !== 200 && status !== 201) throw refusalOrUnavailable(status, json);
      if (!Array.isArray(json?.partyList)) throw new OracleUnavailableError('POST /participants answered without a partyList');
      return json.partyList;
    },

    async close() {
      const closing = [...pools.values()].map((pool) => pool.close().catch(() => pool.destroy()));
      pools.clear();
      await Promise.all(closing);
    },
  };
}
