// Delivery of one callback to one DFSP: a slot in that DFSP's limiter, a timeout on every
// attempt, a few retries with backoff for connection errors, timeouts and 5xx, none for 4xx,
// and a circuit breaker per DFSP endpoint. Every call ends in a final outcome; nothing here throws.
import { originPlaceholderProblem } from '../domain/callback-url-templates.js';
import { parsedCallbackUrlProblem } from '../domain/callback-urls.js';
import { DestinationRefusedError } from './callback-destinations.js';
import { createThrottledWarn } from '../throttled-log.js';
import { createHttpPools } from './http-pools.js';
import { createKeyedLimiter, QueueFullError } from './limiter.js';

/**
 * How a callback ended. `refused`: the switch would not send it where its endpoint points (a
 * placeholder in the template's host, a URL the callback URL rules refuse, or an address the
 * destination policy refuses); a failure of its own, so that callbacks_total shows it apart
 * from a DFSP that did not answer; its `reason` is the kind of destination (`loopback`,
 * `private`, …, `placeholder_host`, `not_http`).
 */
export const OUTCOME = Object.freeze({ delivered: 'delivered', failed: 'failed', noEndpoint: 'no_endpoint', refused: 'refused' });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * An endpoint that fails `threshold` attempts in a row (timeouts, refused or reset
 * connections) is skipped for `openMs`: its callbacks fail at once instead of each holding
 * the batch for a full timeout. This is what keeps one dead DFSP from stalling the consumer,
 * and with it every other DFSP, batch after batch. After `openMs` calls go through again, and
 * one more failure reopens the circuit at once while one success closes it. `threshold` 0
 * disables it. Keys are endpoints (see breakerKey), so one broken endpoint of a DFSP does not
 * cut off its others.
 */
export function createCircuitBreaker({ threshold, openMs, now = Date.now, onOpen = () => {} }) {
  const states = new Map();
  return {
    isOpen(key) {
      return threshold > 0 && (states.get(key)?.openUntil ?? 0) > now();
    },
    succeeded(key) {
      states.delete(key);
    },
    failed(key) {
      if (threshold <= 0) return;
      const state = states.get(key) ?? { failures: 0, openUntil: 0 };
      state.failures += 1;
      if (state.failures >= threshold) {
        if (state.openUntil <= now()) onOpen(key, state.failures);
        state.openUntil = now() + openMs;
      }
      states.set(key, state);
    },
  };
}

/**
 * A 5xx may pass (a DFSP restarting behind its load balancer); 501 is the DFSP saying it does
 * not implement this callback at all (Mojaloop's SDK answers it to PUT /participants), a final
 * word like a 4xx that no retry changes.
 */
export function isRetryableStatus(status) {
  return status >= 500 && status !== 501;
}

/**
 * The breaker's key of a call: the receiving DFSP and the endpoint template the URL was
 * rendered from (origin and path template), so that its keys stay as few as the DFSP's
 * registered endpoints whatever ids the URLs carry. A call without a template falls back to
 * the URL's origin.
 */
export function breakerKey({ fsp, endpoint, url }) {
  return `${fsp}\u0000${endpoint ?? url.origin}`;
}

/**
 * Whether an attempt's result says anything about the endpoint being dead. Any HTTP answer,
 * even a 404, 500 or 501, proves a server is there and listening: a DFSP that does not
 * implement one kind of callback is alive for every other. Only an attempt that got no
 * answer at all (refused, reset, timed out) counts against the breaker.
 */
export function provesEndpointAlive(attempt) {
  return Number.isInteger(attempt.status);
}

/** Backoff before attempt `attempt + 1`: base, 2 × base, 4 × base, … */
export function retryDelayMs(baseMs, attempt) {
  return baseMs * 2 ** (attempt - 1);
}

/**
 * Creates the deliverer. `deliver({ fsp, endpoint?, url, method, headers, body, deadline })` resolves
 * to `{ outcome, status?, attempts, reason? }`; `deadline` (epoch ms) caps every wait, so a
 * batch ends by its deadline whatever the DFSPs do. `destinationPolicy` (callback-destinations.js)
 * decides which addresses a callback may connect to; `tls` (callback-tls.js) is the hub's client
 * certificate and the CAs it trusts over https; `allowLinkLocal` is CALLBACK_URL_ALLOW_LINK_LOCAL,
 * the lab setting the callback URL rules take (platform/domain/callback-urls.js).
 */
export function createDeliverer({
  timeoutMs, maxInFlightPerFsp, queueMaxPerFsp, retries, retryBackoffMs,
  breakerFailures, breakerOpenMs, logger, destinationPolicy, originPoolsMax, tls, allowLinkLocal = false, now = Date.now,
}) {
  const pools = createHttpPools({ maxSocketsPerOrigin: maxInFlightPerFsp, originPoolsMax, destinationPolicy, tls });
  const throttledWarn = createThrottledWarn(logger, { now });
  const limiter = createKeyedLimiter({ maxInFlight: maxInFlightPerFsp, queueMax: queueMaxPerFsp });
  const breaker = createCircuitBreaker({
    threshold: breakerFailures,
    openMs: breakerOpenMs,
    now,
    onOpen: (key, failures) => {
      const [fsp, endpoint] = key.split('\u0000');
      logger.warn({ fsp, endpoint, failures, openMs: breakerOpenMs },
        'DFSP endpoint does not answer; its callbacks fail at once until the circuit closes');
    },
  });

  async function attemptAll(call) {
    const { deadline } = call;
    const key = breakerKey(call);
    const failed = (attempts, reason, status) => ({ outcome: OUTCOME.failed, attempts, reason, status });
    let last = {};
    for (let attempt = 1; attempt <= retries + 1; attempt += 1) {
      if (breaker.isOpen(key)) return failed(attempt - 1, 'circuit_open', last.status);
      const remainingMs = deadline - now();
      if (remainingMs <= 0) return failed(attempt - 1, 'deadline', last.status);
      last = await attemptOnce(call, Math.min(timeoutMs, remainingMs));
      // A refused destination was never connected to: it says nothing about the endpoint's health.
      if (last.outcome === OUTCOME.refused) return refused(call, last.error, attempt);
      if (provesEndpointAlive(last)) breaker.succeeded(key);
      else breaker.failed(key);
      if (last.final) return { outcome: last.outcome, status: last.status, attempts: attempt, reason: last.reason };
      if (attempt <= retries) await sleep(Math.max(0, Math.min(retryDelayMs(retryBackoffMs, attempt), deadline - now())));
    }
    return failed(retries + 1, last.reason, last.status);
  }

  async function attemptOnce({ url, method, headers, body }, attemptTimeoutMs) {
    try {
      const { status } = await pools.send({ url, method, headers, body, timeoutMs: attemptTimeoutMs });
      // A retried 5xx still proves the DFSP answered: the breaker is for endpoints that do not answer at all.
      if (isRetryableStatus(status)) return { final: false, status, reason: `http_${status}` };
      const delivered = status >= 200 && status < 300;
      return { final: true, outcome: delivered ? OUTCOME.delivered : OUTCOME.failed, status, reason: delivered ? undefined : `http_${status}` };
    } catch (error) {
      if (error instanceof DestinationRefusedError) return { outcome: OUTCOME.refused, error };
      return { final: false, reason: error.code ?? error.name };
    }
  }

  /**
   * A refused callback is final, like a 4xx: where an endpoint points changes only when its
   * DFSP registers another URL or changes its DNS, or the operator changes the allow-list,
   * none of which a retry waits for, and retrying a forbidden address for a day is what the
   * policy is there to prevent. A forward's requester hears 3201 at once (requester-errors.js).
   */
  function refused({ fsp, url }, error, attempts) {
    throttledWarn(`refused\u0000${fsp}\u0000${error.kind}`, { fsp, url: url.href, refused: error.kind, why: error.message },
      'callback refused: its destination is not allowed; it is not sent, nor retried');
    return { outcome: OUTCOME.refused, attempts, reason: error.kind };
  }

  /**
   * The callback URL rules the admin API applies at registration, applied again to what is about
   * to be called: an endpoint registered before a rule, or written to the database some other
   * way, must not send a callback to whatever host the request being answered names, to another
   * scheme, or to a metadata service. The placeholder rule reads the template (once rendered, the
   * host shows no placeholder); the others read the rendered URL.
   */
  function urlRefusal({ endpoint, url }) {
    const placeholder = endpoint && originPlaceholderProblem(endpoint);
    if (placeholder) return new DestinationRefusedError('placeholder_host', `the endpoint template ${endpoint}: ${placeholder}`);
    const problem = parsedCallbackUrlProblem(url, { allowLinkLocal });
    return problem ? new DestinationRefusedError(problem.kind, `the callback URL ${url.href} ${problem.reason}`) : null;
  }

  async function deliver(call) {
    const refusal = urlRefusal(call);
    if (refusal) return refused(call, refusal, 0);
    try {
      return await limiter.run(call.fsp, () => attemptAll(call));
    } catch (error) {
      if (error instanceof QueueFullError) return { outcome: OUTCOME.failed, attempts: 0, reason: 'queue_full' };
      throw error;
    }
  }

  return { deliver, close: () => pools.close(), load: (fsp) => limiter.load(fsp) };
}
