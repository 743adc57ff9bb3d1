// Per-DFSP rate limits at the FSPIOP edges, so that one DFSP sending too fast cannot take the
// switch's capacity from the others. Each DFSP has a token bucket per edge process: `burst`
// requests at once, refilled at `perSecond`. A request over the limit is answered at once with
// HTTP 429 and FSPIOP 2005 ("Server busy") and a Retry-After, before anything is produced.
//
// The check runs after the edge's identity checks (sender.js), so only a request whose sender is
// proven (client certificate, verified signature) spends its DFSP's tokens. A request without
// proof spends the tokens of the address it came from, whatever DFSP it names: a forger naming a
// victim empties its own address's bucket, never the victim's. So does every request the
// identity checks refused (a bad signature, a certificate of another DFSP), so that refusals are
// not free to repeat. Bucket keys come from requests, so both sets of buckets are bounded.
import { fspiopFailure } from './edge.js';
import { createThrottledWarn } from '../throttled-log.js';
import { metricOnce } from '../metrics.js';
import { PROOF, isProven, senderOf } from './sender.js';

export const RATE_LIMITED_METRIC = 'fspiop_edge_rate_limited_total';
// Only these characters are a DFSP name (as the key store accepts them); anything else shares
// one bucket, so a client cannot make a bucket per invented name out of arbitrary bytes.
const FSP_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;
const INVALID_NAME_KEY = ' invalid';
const OTHER_LABEL = 'other';
const UNPROVEN_LABEL = 'unproven';
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

function rateLimitedCounter(metrics) {
  return metricOnce(metrics, metrics.client.Counter, {
    name: RATE_LIMITED_METRIC,
    help: 'FSPIOP requests an edge refused because their DFSP was over its rate limit, by DFSP (a proven or configured name, else other; unproven: the address a request without proof came from).',
    labelNames: ['fsp'],
  });
}

function refuse(h, { who, limit, retryAfterMs }) {
  const problem = fspiopFailure(2005, `${who} is over its rate limit of ${limit.perSecond}/s (burst ${limit.burst}) at this edge`);
  return h.response(problem.body).code(problem.httpStatus)
    .header('retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000))))
    .takeover();
}

/** Whether a check proved the name (a lab that trusts headers proves none, and names are unbounded). */
const checkedProof = (sender) => sender.proof === PROOF.certificate || sender.proof === PROOF.signature;

/** The address a request came from: the bucket of every request without proof. */
const addressKeyOf = (request) => `address ${request.info.remoteAddress}`;

/**
 * Registers the rate limit on a DFSP-facing hapi server. Registered after the identity and
 * signature checks on the same extension point, it runs after them. `settings` is
 * config.rateLimit.
 */
export function registerRateLimit(server, { settings, metrics, logger, now = Date.now }) {
  const { defaultLimit, overrides, bucketsMax } = settings;
  if (!defaultLimit && Object.values(overrides).every((limit) => !limit)) return;
  const proven = createRateLimiter({ defaultLimit, overrides, bucketsMax, now });
  const unproven = createRateLimiter({ defaultLimit, overrides: {}, bucketsMax, now });
  const limited = rateLimitedCounter(metrics);
  const warn = createThrottledWarn(logger, { intervalMs: WARN_INTERVAL_MS, now });

  server.ext('onPreHandler', (request, h) => {
    if (UNCHECKED_PATHS.has(request.route.path)) return h.continue;
    const sender = senderOf(request);
    const fsp = typeof sender.fsp === 'string' && FSP_NAME_PATTERN.test(sender.fsp) ? sender.fsp : INVALID_NAME_KEY;
    const byDfsp = fsp !== INVALID_NAME_KEY && isProven(sender);
    const { retryAfterMs, limit } = byDfsp ? proven.take(fsp, fsp) : unproven.take(addressKeyOf(request), null);
    if (retryAfterMs === 0) return h.continue;
    // The label set stays bounded: DFSPs that proved who they are, configured names, and two for the rest.
    const label = byDfsp ? (checkedProof(sender) || proven.overridden(fsp) ? fsp : OTHER_LABEL) : UNPROVEN_LABEL;
    limited.inc({ fsp: label });
    warn(label, { fsp: label, perSecond: limit.perSecond, burst: limit.burst }, 'a DFSP is over its rate limit');
    const who = byDfsp ? fsp : `an unproven sender at ${request.info.remoteAddress}`;
    return refuse(h, { who, limit, retryAfterMs });
  });

  // A request refused before its sender was established (by the identity checks, or by hapi
  // itself) spends a token of its address, so repeating refused requests is limited too.
  server.ext('onPreResponse', (request, h) => {
    if (request.app.proof === undefined && !UNCHECKED_PATHS.has(request.route.path)) unproven.take(addressKeyOf(request), null);
    return h.continue;
  });
}
