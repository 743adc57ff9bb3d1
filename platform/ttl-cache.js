// A cache of answers by key, each kept `ttlMs`, for the edges' per-request questions about a
// DFSP (is it active, what are its keys). Concurrent questions about one key share one read;
// a failed read is not an answer and is forgotten, so the next request asks again. Keys come
// from request headers, so the cache is bounded: past `entriesMax` the least recently used
// answer is evicted, so a client inventing names costs the real DFSPs at most a re-read.
import { LRUCache } from 'lru-cache';

/** `get(key, read)` resolves to the cached answer for `key`, or to `read(key)` and keeps it. */
export function createTtlCache({ ttlMs, entriesMax = 10_000, now = Date.now }) {
  // Expiry is checked against the injected clock, so lru-cache only bounds the size.
  const entries = new LRUCache({ max: entriesMax });
  function get(key, read) {
    if (ttlMs === 0) return read(key);
    const cached = entries.get(key);
    if (cached && cached.expiresAt > now()) return cached.answer;
    const answer = read(key);
    const entry = { answer, expiresAt: now() + ttlMs };
    entries.set(key, entry);
    // Only this read's own entry is forgotten: a newer answer for the key may replace it meanwhile.
    answer.catch(() => { if (entries.get(key) === entry) entries.delete(key); });
    return answer;
  }
  /** Whether `key` has an answer (or a read under way) that has not expired. */
  function has(key) {
    if (ttlMs === 0) return false;
    const cached = entries.get(key);
    return Boolean(cached && cached.expiresAt > now());
  }
  return { get, has, size: () => entries.size };
}
