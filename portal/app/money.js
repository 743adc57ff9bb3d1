// Amounts in the portal stay decimal text, as the APIs send them (parsed without Number, see
// api.js). Sums and differences are done on BigInt at a scale wide enough for every currency
// the switch carries (four decimals), and a ratio is a Number only where it becomes a bar's width.
const SCALE_DIGITS = 4;
const SCALE = 10n ** BigInt(SCALE_DIGITS);
const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,4}))?$/;

/** True when `text` is a decimal amount the portal can compute with. */
export function isAmount(text) {
  return DECIMAL.test(String(text).trim());
}

function toScaled(text) {
  const match = DECIMAL.exec(String(text).trim());
  if (!match) throw new Error(`not an amount: ${text}`);
  const [, sign, whole, fraction = ''] = match;
  const scaled = BigInt(whole) * SCALE + BigInt(fraction.padEnd(SCALE_DIGITS, '0'));
  return sign ? -scaled : scaled;
}

function fromScaled(scaled) {
  const negative = scaled < 0n;
  const magnitude = negative ? -scaled : scaled;
  const whole = magnitude / SCALE;
  const fraction = (magnitude % SCALE).toString().padStart(SCALE_DIGITS, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

export const add = (a, b) => fromScaled(toScaled(a) + toScaled(b));
export const subtract = (a, b) => fromScaled(toScaled(a) - toScaled(b));
export const negate = (a) => fromScaled(-toScaled(a));
export const compare = (a, b) => {
  const difference = toScaled(a) - toScaled(b);
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
};

/** `part` as a share of `whole` in percent (0 when whole is zero), for display only. */
export function percentOf(part, whole) {
  const denominator = toScaled(whole);
  if (denominator === 0n) return 0;
  return Number((toScaled(part) * 10000n) / denominator) / 100;
}

/** An amount for reading: thousands separated, decimals as the API gave them. */
export function formatAmount(text) {
  if (text === null || text === undefined || !isAmount(text)) return text ?? '—';
  const normal = fromScaled(toScaled(text));
  const [whole, fraction] = normal.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction ? `${grouped}.${fraction}` : grouped;
}
