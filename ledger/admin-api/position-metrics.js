// Position gauges, read from the database at scrape time: the admin API is the process that
// owns participants and limits, and a scrape-time read is exact whichever position handler
// replica moved the position last.
import { formatAmount } from '../domain/money.js';
import { listPositionsWithNetDebitCaps } from '../repositories/positions.js';

// The three gauges are collected concurrently by one scrape; they share one query.
const SHARED_READ_MS = 1_000;

/**
 * Gauges are floating point by nature; amounts become Numbers here, for display and
 * alerting only, never for arithmetic on money.
 */
const asGaugeValue = (units) => Number(formatAmount(units));

/** position ÷ cap, scaled like an amount (four decimals) so that it formats exactly. */
const utilisationOf = ({ position, netDebitCap }) => (netDebitCap > 0n ? asGaugeValue((position * 10_000n) / netDebitCap) : null);

/** `fsp` is bounded by the onboarded DFSPs. A failed read leaves the gauges empty. */
export function registerPositionMetrics(metrics, { db, hubName, logger }) {
  let lastRead = { atMs: 0, rows: Promise.resolve([]) };
  const readRows = () => {
    if (Date.now() - lastRead.atMs > SHARED_READ_MS) {
      const rows = listPositionsWithNetDebitCaps(db, { hubName }).catch((error) => {
        logger.warn({ err: error }, 'position metrics unavailable');
        return [];
      });
      lastRead = { atMs: Date.now(), rows };
    }
    return lastRead.rows;
  };
  const gauge = (name, help, valueOf) => new metrics.client.Gauge({
    name, help, labelNames: ['fsp', 'currency'], registers: [metrics.registry],
    async collect() {
      const rows = await readRows();
      this.reset();
      for (const row of rows) {
        const value = valueOf(row);
        if (value !== null) this.set({ fsp: row.name, currency: row.currency }, value);
      }
    },
  });
  gauge('dfsp_position', 'Position per DFSP and currency (positive: what the DFSP owes), reservations included.', (row) => asGaugeValue(row.position));
  gauge('dfsp_net_debit_cap', 'Net debit cap per DFSP and currency.', (row) => (row.netDebitCap === null ? null : asGaugeValue(row.netDebitCap)));
  gauge('dfsp_net_debit_cap_utilisation_ratio', 'Position divided by net debit cap (at 1, new payments fail with 4200).', utilisationOf);
}
