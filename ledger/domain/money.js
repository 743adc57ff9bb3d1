// Money is a scaled BigInt inside the switch: an amount of 12.5 at the ledger's scale of 4
// is 125000n. Amounts arrive and leave as decimal strings; no arithmetic ever uses Number.
import { FAILURE, failure } from '../../platform/domain/failures.js';

export const LEDGER_SCALE = 4;
const LEDGER_FACTOR = 10n ** BigInt(LEDGER_SCALE);
const LEDGER_DIGITS_MAX = 18;
const DECIMAL_PATTERN = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Parses a decimal string into scaled units. `scale` limits the fraction digits the caller
 * accepts (a currency may allow fewer than the ledger stores). Returns a failure value for
 * text that is not a plain decimal, has too many digits, or is negative when not allowed.
 */
export function parseAmount(text, { scale = LEDGER_SCALE, allowNegative = false, allowZero = true } = {}) {
  if (typeof text !== 'string') return failure(FAILURE.validation, 'amount must be a decimal string');
  const match = DECIMAL_PATTERN.exec(text.trim());
  if (!match) return failure(FAILURE.validation, `"${text}" is not a decimal amount`);
  const [, sign, whole, fraction = ''] = match;
  const significantFraction = fraction.replace(/0+$/, '');
  if (significantFraction.length > Math.min(scale, LEDGER_SCALE)) {
    return failure(FAILURE.validation, `amount ${text} has more than ${scale} decimal places`);
  }
  const wholeDigits = whole.replace(/^0+(?=\d)/, '');
  if (wholeDigits.length > LEDGER_DIGITS_MAX - LEDGER_SCALE) {
    return failure(FAILURE.validation, `amount ${text} has more than ${LEDGER_DIGITS_MAX - LEDGER_SCALE} integer digits`);
  }
  const units = BigInt(wholeDigits) * LEDGER_FACTOR + BigInt(significantFraction.padEnd(LEDGER_SCALE, '0') || '0');
  const value = sign ? -units : units;
  if (value < 0n && !allowNegative) return failure(FAILURE.validation, `amount ${text} must not be negative`);
  if (value === 0n && !allowZero) return failure(FAILURE.validation, 'amount must be greater than zero');
  return value;
}

/** Parses a DECIMAL(18,4) column value; the database is trusted, so bad text is a bug. */
export function amountFromColumn(text) {
  const value = parseAmount(String(text), { allowNegative: true });
  if (typeof value !== 'bigint') throw new Error(`database amount "${text}" is not a decimal`);
  return value;
}

/** Formats scaled units as the shortest exact decimal string ("-5000", "12.5"). */
export function formatAmount(units) {
  if (typeof units !== 'bigint') throw new TypeError('formatAmount takes a bigint');
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const whole = magnitude / LEDGER_FACTOR;
  const fraction = (magnitude % LEDGER_FACTOR).toString().padStart(LEDGER_SCALE, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** The column form of scaled units: a DECIMAL(18,4) literal with all four places. */
export function amountToColumn(units) {
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const fraction = (magnitude % LEDGER_FACTOR).toString().padStart(LEDGER_SCALE, '0');
  return `${negative ? '-' : ''}${magnitude / LEDGER_FACTOR}.${fraction}`;
}
