// Per-DFSP rate limits at the FSPIOP edges, so that one DFSP sending too fast cannot take the
// switch's capacity from the others. Each DFSP has a token bucket per edge process: `burst`
// requests at once, refilled at `perSecond`. A request over the limit is answered at once with
// HTTP 429 and FSPIOP 2005 ("Server busy") and a Retry-After, before anything is produced.
//
// The check runs after the edge's identity checks (client certificate, JWS signature), so a
// request whose sender is proven spends its own DFSP's tokens, and junk that merely claims to
// be a DFSP can never spend them: requests without proof (no client certificate and no verified
// signature, e.g. a GET without mTLS) are counted in buckets of their own, apart from the
// proven ones. Bucket keys come from request headers, so both sets of buckets are bounded.
import { fspiopFailure } from './edge.js';
import { createThrottledWarn } from '../throttled-log.js';
import { metricOnce } from '../metrics.js';

export const RATE_LIMITED_METRIC = 'fspiop_edge_rate_limited_total';
// Only these characters are a DFSP name (as the key store accepts them); anything else shares
// one bucket, so a client cannot make a bucket per invented name out of arbitrary bytes.
const FSP_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;
const INVALID_NAME_KEY = ' invalid';
const OTHER_LABEL = 'other';
const UNCHECKED_PATHS = new Set(['/health', '/metrics']);
const WARN_INTERVAL_MS = 60_000;

/** A full bucket for `limit` (`{ perSecond, burst }`) at `nowMs`. */
export function fullBucket(limit, nowMs) {
  return { tokens: limit.burst, updatedAtMs: nowMs };
}

/**
 * Takes one token from `bucket` (changed in place) at `nowMs`: 0 when the request may pass,
 * otherwise the milliseconds until a token is there again. A clock that steps back refills
 * nothing rather than taking tokens away.
 */
export function takeToken(bucket, limit, nowMs) {
  const elapsedMs = Math.max(0, nowMs - bucket.updatedAtMs);
  const tokens = Math.min(limit.burst, bucket.tokens + (elapsedMs * limit.perSecond) / 1000);
  bucket.updatedAtMs = Math.max(nowMs, bucket.updatedAtMs);
  if (tokens >= 1) {
    bucket.tokens = tokens - 1;
    return 0;
  }
  bucket.tokens = tokens;
  return Math.ceil(((1 - tokens) * 1000) / limit.perSecond);
}

/**
 * Token buckets by key, each with the limit of its DFSP: `overrides` (an object of DFSP name
 * → limit or null) before `defaultLimit`; a null limit is no limit and keeps no state. At most
 * `bucketsMax` buckets are kept: past it the one idle longest is dropped (a DFSP it belonged
 * to starts again with a full bucket, which is what it would have after idling anyway).
 * `take(key, fsp)` answers `{ retryAfterMs, limit }`; `retryAfterMs` is 0 when allowed.
 */
export function createRateLimiter({ defaultLimit, overrides = {}, bucketsMax, now = Date.now }) {
  const limits = new Map(Object.entries(overrides));
  const buckets = new Map(); // insertion order is recency: a used bucket is moved to the end

  function limitOf(fsp) {
    return limits.has(fsp) ? limits.get(fsp) : defaultLimit;
  }

  function take(key, fsp) {
    const limit = limitOf(fsp);
    if (!limit) return { retryAfterMs: 0, limit };
    const nowMs = now();
    let bucket = buckets.get(key);
    if (bucket) {
      buckets.delete(key);
    } else {
      if (buckets.size >= bucketsMax) buckets.delete(buckets.keys().next().value);
      bucket = fullBucket(limit, nowMs);
    }
    buckets.set(key, bucket);
    return { retryAfterMs: takeToken(bucket, limit, nowMs), limit };
  }

  return { take, has: (key) => buckets.has(key), overridden: (fsp) => limits.has(fsp), size: () => buckets.size };
}

/**
 * Whether the edge's checks, which ran before this one, proved the caller is its
 * FSPIOP-Source: a verified client certificate covers every request; a required signature
 * covers a request with a body, an optional one a body that came with a signature.
 */
export function senderProven(request, { clientIdentityMode, jwsVerification }) {
  if (clientIdentityMode !== 'off') return true;
  const body = request.payload;
  if (!Buffer.isBuffer(body) || body.length === 0) return false;
  if (jwsVerification === 'required') return true;
  return jwsVerification === 'optional' && Boolean(request.headers['fspiop-signature']);
}

function rateLimitedCounter(metrics) {
  return metricOnce(metrics, metrics.client.Counter, {
    name: RATE_LIMITED_METRIC,
    help: 'FSPIOP requests an edge refused because their DFSP was over its rate limit, by DFSP (a proven or configured name, else other).',
    labelNames: ['fsp'],
  });
}

function refuse(h, { fsp, limit, retryAfterMs }) {
  const who = fsp === INVALID_NAME_KEY ? 'FSPIOP-Source' : fsp;
  const problem = fspiopFailure(2005, `${who} is over its rate limit of ${limit.perSecond}/s (burst ${limit.burst}) at this edge`);
  return h.response(problem.body).code(problem.httpStatus)
    .header('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))))
    .takeover();
}

/**
 * Registers the rate limit on a DFSP-facing hapi server. Registered after the identity and
 * signature checks on the same extension point, it runs after them: a refused request costs
 * the DFSP no tokens. `settings` is config.rateLimit; `proof` says which checks are on.
 */
export function registerRateLimit(server, { settings, proof, metrics, logger, now = Date.now }) {
  const { defaultLimit, overrides, bucketsMax } = settings;
  if (!defaultLimit && Object.values(overrides).every((limit) => !limit)) return;
  const proven = createRateLimiter({ defaultLimit, overrides, bucketsMax, now });
  const claimed = createRateLimiter({ defaultLimit, overrides, bucketsMax, now });
  const limited = rateLimitedCounter(metrics);
  const warn = createThrottledWarn(logger, { intervalMs: WARN_INTERVAL_MS, now });
  server.ext('onPreHandler', (request, h) => {
    if (UNCHECKED_PATHS.has(request.route.path)) return h.continue;
    const source = request.headers['fspiop-source'];
    const fsp = typeof source === 'string' && FSP_NAME_PATTERN.test(source) ? source : INVALID_NAME_KEY;
    const isProven = fsp !== INVALID_NAME_KEY && senderProven(request, proof);
    const { retryAfterMs, limit } = (isProven ? proven : claimed).take(fsp, fsp);
    if (retryAfterMs === 0) return h.continue;
    // The label set stays bounded: DFSPs that proved who they are, and configured names.
    const known = isProven || proven.has(fsp) || proven.overridden(fsp);
    const label = known ? fsp : OTHER_LABEL;
    limited.inc({ fsp: label });
    warn(`${label} ${isProven}`, { fsp: label, proven: isProven, perSecond: limit.perSecond, burst: limit.burst }, 'a DFSP is over its rate limit');
    return refuse(h, { fsp, limit, retryAfterMs });
  });
}
