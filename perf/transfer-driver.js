// What the two ledger benchmarks share (perf/bench-transfers.js and perf/bench-central-ledger.js),
// so that they differ only in the ledger they drive: the transfers (payer and payee in turn
// among the DFSPs, a fixed amount, a condition from a random preimage), the in-flight limit,
// and the report's counts and latency percentiles.
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const TRANSFER_AMOUNT = '1.25';
export const CURRENCY = 'USD';

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Tracks each transfer from acceptance to the payer's COMMITTED, and keeps at most `inFlightMax` open. */
export function createTracker(inFlightMax) {
  const started = new Map();
  const latenciesMs = [];
  const failures = new Map();
  let release = () => {};
  return {
    started, latenciesMs, failures,
    begin(id) { started.set(id, performance.now()); },
    finish(id, failureCode) {
      const at = started.get(id);
      if (at === undefined) return;
      started.delete(id);
      if (failureCode) failures.set(failureCode, (failures.get(failureCode) ?? 0) + 1);
      else latenciesMs.push(performance.now() - at);
      release();
    },
    /** Waits for a free slot; gives up (false) once `shouldStop()` says so, asked every second. */
    async room(shouldStop = () => false) {
      while (started.size >= inFlightMax) {
        if (shouldStop()) return false;
        let timer;
        await new Promise((resolve) => { release = resolve; timer = setTimeout(resolve, 1000); });
        clearTimeout(timer);
      }
      return true;
    },
    done: () => latenciesMs.length + [...failures.values()].reduce((sum, n) => sum + n, 0),
  };
}

/** Transfer `index` of a run between `names`: every DFSP pays every other in turn. */
export function newTransfer(index, names) {
  const payer = names[index % names.length];
  const payee = names[(index + 1 + (index % (names.length - 1))) % names.length];
  const fulfilment = randomBytes(32);
  const body = {
    transferId: randomUUID(), payerFsp: payer, payeeFsp: payee, amount: { amount: TRANSFER_AMOUNT, currency: CURRENCY },
    ilpPacket: 'AYIBgQAAAAAAAAPoFGcuc2ltcGxlLnBheWVlLm1zaXNkbg', condition: createHash('sha256').update(fulfilment).digest('base64url'),
    expiration: new Date(Date.now() + 120000).toISOString(),
  };
  return { body, fulfilment: fulfilment.toString('base64url') };
}

/** The report's counts, rate and latency percentiles for `transfers` sent in `elapsedMs`. */
export function runFigures(tracker, transfers, elapsedMs) {
  const sorted = [...tracker.latenciesMs].sort((a, b) => a - b);
  const committed = sorted.length;
  const ms = (value) => Math.round(value ?? 0);
  return {
    committed, failed: Object.fromEntries(tracker.failures), unfinished: transfers - tracker.done(),
    seconds: Number((elapsedMs / 1000).toFixed(2)), transfersPerSecond: Math.round(committed / (elapsedMs / 1000)),
    latencyMs: { p50: ms(percentile(sorted, 50)), p95: ms(percentile(sorted, 95)), p99: ms(percentile(sorted, 99)), max: ms(sorted.at(-1)) },
  };
}
