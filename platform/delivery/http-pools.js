// Keep-alive connection pools, one per DFSP origin, and one HTTP call with a hard timeout.
// undici's Pool keeps the connections open across callbacks instead of paying a TCP (and TLS)
// handshake per call; on this project's two-core test machine it sent about 2.5 times as many
// callbacks per second as node:http's keep-alive Agent. Every connection a pool opens goes
// through the callback destination policy (callback-destinations.js), and one to
// an https: origin presents the hub's client certificate and trusts the configured CAs
// (callback-tls.js).
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import { buildConnector, Pool } from 'undici';

/** The call did not complete (connect, send, answer and body) within its time. */
export class CallbackTimeoutError extends Error {
  constructor(timeoutMs) {
    super(`no complete answer within ${timeoutMs} ms`);
    this.name = 'CallbackTimeoutError';
    this.code = 'CALLBACK_TIMEOUT';
  }
}

/**
 * undici's dispatch handler for a call of which only the status matters: the answer's body
 * is read and dropped as it arrives. undici's request() would build an AbortController, a
 * readable stream for the body and their listeners for every callback; this is the same
 * call without them. The timer aborts the request through the abort function undici hands
 * over when the request is written, as request() does with its signal.
 */
class StatusOnlyCall {
  constructor(timeoutMs, resolve, reject) {
    this.timeoutMs = timeoutMs;
    this.resolve = resolve;
    this.reject = reject;
    this.abortRequest = null;
    this.timedOut = false;
    this.status = 0;
    this.timer = setTimeout(() => this.onTimeout(), timeoutMs);
  }

  onTimeout() {
    this.timedOut = true;
    this.abortRequest?.(new CallbackTimeoutError(this.timeoutMs));
  }

  onConnect(abort) {
    if (this.timedOut) abort(new CallbackTimeoutError(this.timeoutMs));
    else this.abortRequest = abort;
  }

  onHeaders(statusCode) {
    this.status = statusCode;
    return true;
  }

  onData() {
    return true;
  }

  onComplete() {
    clearTimeout(this.timer);
    this.resolve({ status: this.status });
  }

  onError(error) {
    clearTimeout(this.timer);
    this.reject(this.timedOut ? new CallbackTimeoutError(this.timeoutMs) : error);
  }
}

/**
 * undici's connector with the destination policy in front: a host name is resolved by the
 * policy's lookup, which net.connect then connects with, and an IP literal, which net.connect
 * would connect to without any lookup, is checked here. A refusal fails the connection with
 * DestinationRefusedError, which undici hands to every request waiting for it. `tls`
 * (`{ cert, key, ca }`) goes to tls.connect for an https: origin; an http: one ignores it.
 */
function checkedConnector(destinationPolicy, tls) {
  const connect = buildConnector({ ...tls, lookup: destinationPolicy.lookup });
  return function connectChecked(options, callback) {
    const refusal = isIP(options.hostname) ? destinationPolicy.refusalOf(options.hostname) : null;
    if (!refusal) return connect(options, callback);
    process.nextTick(callback, refusal); // asynchronously, as a socket's own errors arrive
    return null;
  };
}

const closePool = (pool) => pool.close().catch(() => pool.destroy());

/**
 * Creates the pools. `maxSocketsPerOrigin` caps the connections to one origin; the per-DFSP
 * limiter keeps the calls in flight within it, so a pool never queues more than that.
 * `originPoolsMax` caps the pools: origins come from registered endpoints, a few per DFSP,
 * but endpoints change over a process's life, so past it the least recently used pool is
 * closed (its calls in flight still finish) and no sequence of URLs grows the map for ever.
 * `destinationPolicy` decides where a connection may go; `tls` is what an https: connection
 * presents and trusts (callback-tls.js; none: no client certificate, public roots).
 */
export function createHttpPools({ maxSocketsPerOrigin, keepAliveTimeoutMs = 30_000, originPoolsMax = 1_000, destinationPolicy, tls = {} }) {
  const connect = checkedConnector(destinationPolicy, tls);
  const pools = new LRUCache({
    max: originPoolsMax,
    dispose: (pool, origin, reason) => { if (reason === 'evict') closePool(pool); },
  });

  function poolFor(url) {
    let pool = pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, { connections: maxSocketsPerOrigin, keepAliveTimeout: keepAliveTimeoutMs, pipelining: 1, connect });
      pools.set(url.origin, pool);
    }
    return pool;
  }

  /**
   * Sends one request and resolves to `{ status }` once the whole answer was read (so the
   * connection goes back to the pool), or rejects with the connection error or with
   * CallbackTimeoutError when connect, answer and body together took longer than `timeoutMs`.
   */
  function send({ url, method, headers, body, timeoutMs }) {
    return new Promise((resolve, reject) => {
      poolFor(url).dispatch({ path: `${url.pathname}${url.search}`, method, headers, body }, new StatusOnlyCall(timeoutMs, resolve, reject));
    });
  }

  return {
    send,
    /** The number of origins with a pool. */
    size: () => pools.size,
    /** Closes every pool, letting calls in flight finish. */
    async close() {
      const closing = [...pools.values()].map(closePool);
      pools.clear();
      await Promise.all(closing);
    },
  };
}
