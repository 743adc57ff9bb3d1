// Warnings that would repeat for every callback (a DFSP with no endpoint, a DFSP that is
// down) are logged once per key per interval, with how many were held back since, so a
// dead DFSP cannot flood the log while the first occurrence is still seen at once.
import { LRUCache } from 'lru-cache';

/**
 * `warn(key, fields, message)` logs at most once per `intervalMs` per key; the next line for
 * that key carries `suppressed`, the number of warnings it stood in for. Keys should come from
 * a bounded set (DFSP × endpoint type); since some include names a client chooses, at most
 * `keysMax` are remembered and the least recently used is forgotten first (its next warning
 * is then logged at once, which costs a line, never memory).
 */
export function createThrottledWarn(logger, { intervalMs = 60_000, keysMax = 1_000, now = Date.now } = {}) {
  const lastLogged = new LRUCache({ max: keysMax });
  function warn(key, fields, message) {
    const entry = lastLogged.get(key);
    const time = now();
    if (entry && time - entry.at < intervalMs) {
      entry.suppressed += 1;
      return;
    }
    logger.warn({ ...fields, suppressed: entry?.suppressed ?? 0 }, message);
    lastLogged.set(key, { at: time, suppressed: 0 });
  }
  warn.size = () => lastLogged.size;
  return warn;
}
