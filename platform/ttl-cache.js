// A cache of answers by key, each kept `ttlMs`, for the edges' per-request questions about a
// DFSP (is it active, what are its keys). Concurrent questions about one key share one read;
// a failed read is not an answer and is forgotten, so the next request asks again. Keys come
// from request headers, so the cache is bounded: past `entriesMax` it starts again empty
// rather than grow with every name a client invents.

/** `get(key, read)` resolves to the cached answer for `key`, or to `read(key)` and keeps it. */
export function createTtlCache({ ttlMs, entriesMax = 10_000, now = Date.now }) {
  const entries = new Map();
  function get(key, read) {
    if (ttlMs === 0) return read(key);
    const cached = entries.get(key);
    if (cached && cached.expiresAt > now()) return cached.answer;
    if (entries.size >= entriesMax) entries.clear();
    const answer = read(key);
    entries.set(key, { answer, expiresAt: now() + ttlMs });
    answer.catch(() => entries.delete(key));
    return answer;
  }
  return { get };
}
