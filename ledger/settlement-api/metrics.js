// Settlement gauges, read from the database at scrape time (exact whichever replica closed
// or settled last), and the counters of what this process did.
import { formatAmount } from '../domain/money.js';
import { SETTLEMENT_END_STATES } from '../domain/settlements.js';
import { countSettlementsByState, findWindow, openWindowId, windowTotals } from '../repositories/settlements.js';

// The gauges are collected concurrently by one scrape; they share one read, at most one every
// ten seconds (the open window's totals are an index range scan as long as the window), so a
// scrape may show the state of up to that long ago.
export const SETTLEMENT_GAUGES_MAX_AGE_MS = 10_000;

/** Gauges are floating point by nature: amounts become Numbers here, for display only. */
const asGaugeValue = (units) => Number(formatAmount(units));

async function readSettlementState(db) {
  const windowId = await openWindowId(db);
  const [window, totals, pending] = await Promise.all([
    findWindow(db, windowId),
    windowTotals(db, windowId),
    countSettlementsByState(db, { excludedStates: SETTLEMENT_END_STATES }),
  ]);
  return { window, totals, pending };
}

export function registerSettlementMetrics(metrics, { db, logger, clock = () => new Date() }) {
  let lastRead = { atMs: 0, state: Promise.resolve(null) };
  const read = () => {
    if (Date.now() - lastRead.atMs > SETTLEMENT_GAUGES_MAX_AGE_MS) {
      const state = readSettlementState(db).catch((error) => {
        logger.warn({ err: error }, 'settlement metrics unavailable');
        return null;
      });
      lastRead = { atMs: Date.now(), state };
    }
    return lastRead.state;
  };
  const gauge = (name, help, labelNames, fill) => new metrics.client.Gauge({
    name, help, labelNames, registers: [metrics.registry],
    async collect() {
      const state = await read();
      this.reset();
      if (state) fill(this, state);
    },
  });
  gauge('settlement_window_open_age_seconds', 'Age of the open settlement window.', [], (g, { window }) => g.set((clock().getTime() - new Date(window.createdAt).getTime()) / 1000));
  gauge('settlement_window_open_transfers', 'Transfers recorded in the open settlement window, per currency.', ['currency'], (g, { totals }) => {
    for (const total of totals) g.set({ currency: total.currency }, total.transferCount);
  });
  gauge('settlement_window_open_amount', 'Amount committed in the open settlement window, per currency.', ['currency'], (g, { totals }) => {
    for (const total of totals) g.set({ currency: total.currency }, asGaugeValue(total.amount));
  });
  gauge('settlements_pending', 'Settlements neither SETTLED nor ABORTED, per state.', ['state'], (g, { pending }) => {
    for (const row of pending) g.set({ state: row.state }, row.count);
  });
  const windowsClosed = new metrics.client.Counter({ name: 'settlement_windows_closed_total', help: 'Settlement windows closed.', registers: [metrics.registry] });
  const grossSettled = new metrics.client.Counter({
    name: 'settlement_gross_settled_transfers_total', help: 'Transfers settled one by one under a continuous gross settlement model.',
    labelNames: ['currency'], registers: [metrics.registry],
  });
  return {
    windowClosed: () => windowsClosed.inc(),
    grossSettled: (currency, count) => grossSettled.inc({ currency }, count),
  };
}
