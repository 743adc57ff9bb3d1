// Bounded correlation of the payer bridge: a request waits here, under a key, for the
// switch's callback. Every waiter has a timer, the map has a size cap, and a late callback
// (after its waiter timed out) finds nothing and is dropped, so memory stays flat over any
// number of transfers.
import { randomBytes } from 'node:crypto';
import { encodeTime } from 'ulidx';

export class CorrelatorFull extends Error {}

/** `{ wait(key, timeoutMs) → Promise<outcome>, settle(key, outcome) → boolean, size }`. */
export function createCorrelator({ maxWaiting = 200_000 } = {}) {
  const waiting = new Map();
  let count = 0;
  return {
    get size() { return count; },
    wait(key, timeoutMs) {
      if (count >= maxWaiting) return Promise.reject(new CorrelatorFull(`more than ${maxWaiting} requests waiting`));
      return new Promise((resolve) => {
        const entry = { resolve, timer: undefined };
        entry.timer = setTimeout(() => {
          remove(waiting, key, entry);
          count -= 1;
          resolve({ timeout: true });
        }, timeoutMs);
        const list = waiting.get(key);
        if (list) list.push(entry); else waiting.set(key, [entry]);
        count += 1;
      });
    },
    settle(key, outcome) {
      const list = waiting.get(key);
      if (!list) return false;
      waiting.delete(key);
      count -= list.length;
      for (const entry of list) {
        clearTimeout(entry.timer);
        entry.resolve(outcome);
      }
      return true;
    },
  };
}

function remove(waiting, key, entry) {
  const list = waiting.get(key);
  if (!list) return;
  const index = list.indexOf(entry);
  if (index >= 0) list.splice(index, 1);
  if (list.length === 0) waiting.delete(key);
}

/**
 * A UUID v4-shaped id whose first two hex digits name the simulator process that made it and
 * the next six the run (the validity gate finds a run's transfers by them, perf/gate.js).
 */
export function ownedId(worker, runTag, random) {
  const hex = `${worker.toString(16).padStart(2, '0')}${runTag}${random.toString('hex')}`.slice(0, 32);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

// Crockford's base 32, the alphabet of ULIDs.
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `value` (a non-negative integer below 32^length) in `length` digits of Crockford's base 32. */
function base32(value, length) {
  let text = '';
  for (let rest = value, index = 0; index < length; index += 1, rest = Math.floor(rest / 32)) text = CROCKFORD[rest % 32] + text;
  return text;
}

/** The characters 11–15 of every ULID of run `runTag` (6 hex digits): the run tag in base 32. */
export function runTagInUlid(runTag) {
  return base32(Number.parseInt(runTag, 16), 5);
}

/**
 * A ULID (ISO 20022's identifiers are ULIDs, docs/iso20022.md) that the validity gate finds
 * by its run, as correlator.js ownedId makes UUIDs: the time (10 characters, as ulidx encodes
 * it), the run tag (5), the simulator process (2), then 9 random characters (45 bits).
 */
export function ownedUlid(worker, runTag, nowMs = Date.now()) {
  const random = randomBytes(6).readUIntBE(0, 6) % 32 ** 9;
  return `${encodeTime(nowMs, 10)}${runTagInUlid(runTag)}${base32(worker, 2)}${base32(random, 9)}`;
}
