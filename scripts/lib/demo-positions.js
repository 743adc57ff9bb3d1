// The positions the demo prints before and after a payment: every position of some
// participants as the admin API reports them, and the change of each as an exact decimal.
import { formatAmount, parseAmount } from '../../ledger/domain/money.js';

/** Every position of `names`, as { participant, currency, value } rows (the admin API's). */
export async function positionsOf(request, names) {
  const rows = [];
  for (const participant of names) {
    const answer = await request('GET', `/participants/${participant}/positions`);
    if (answer.status !== 200) throw new Error(`positions of ${participant}: HTTP ${answer.status} ${answer.text}`);
    for (const { currency, value } of answer.body) rows.push({ participant, currency, value: String(value) });
  }
  return rows;
}

/** A decimal text (negative allowed) as scaled units, for exact sums and comparisons. */
export const units = (text) => parseAmount(text, { allowNegative: true });

/** Before and after side by side, with each change as an exact decimal. */
export function positionChanges(before, after) {
  return after.map((row) => {
    const was = before.find((old) => old.participant === row.participant && old.currency === row.currency)?.value ?? '0';
    return { participant: row.participant, currency: row.currency, before: was, after: row.value, change: formatAmount(units(row.value) - units(was)) };
  });
}

/** The change of `participant`'s position in `currency` (rows of positionChanges), '0' when it has none. */
export const changeOf = (positions, participant, currency) => positions.find((row) => row.participant === participant && row.currency === currency)?.change ?? '0';
