// Keep-alive connection pools, one per DFSP origin, and one HTTP call with a hard timeout.
// undici's Pool keeps the connections open across callbacks instead of paying a TCP (and TLS)
// handshake per call; on this project's two-core test machine it sent about 2.5 times as many
// callbacks per second as node:http's keep-alive Agent.
import { Pool } from 'undici';

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
 * Creates the pools. `maxSocketsPerOrigin` caps the connections to one origin; the per-DFSP
 * limiter keeps the calls in flight within it, so a pool never queues more than that.
 */
export function createHttpPools({ maxSocketsPerOrigin, keepAliveTimeoutMs = 30_000 }) {
  const pools = new Map();

  function poolFor(url) {
    let pool = pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, { connections: maxSocketsPerOrigin, keepAliveTimeout: keepAliveTimeoutMs, pipelining: 1 });
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
    /** Closes every pool, letting calls in flight finish. */
    async close() {
      const closing = [...pools.values()].map((pool) => pool.close().catch(() => pool.destroy()));
      pools.clear();
      await Promise.all(closing);
    },
  };
}
