// Position arithmetic. Sign convention (central-ledger's): a POSITION value above zero is
// what the DFSP owes the scheme; a SETTLEMENT value below zero is money the DFSP deposited,
// which is its liquidity cover. Values are scaled BigInt units (see money.js).
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { formatAmount } from './money.js';

/**
 * Whether a payer may reserve `amount` more. Returns null when it may, or the failure:
 * liquidity cover is checked first (4001), then the net debit cap (4200), as central-ledger
 * orders them.
 */
export function checkReservation({ positionValue, reservedValue = 0n, settlementValue, netDebitCap, amount }) {
  // An account can be activated before the operator has set its limit: that is the
  // operator's unfinished onboarding, refused as a payer limit, not arithmetic on nothing.
  if (typeof netDebitCap !== 'bigint') return failure(FAILURE.limitMissing, 'the payer has no net debit cap set');
  if (typeof settlementValue !== 'bigint') return failure(FAILURE.limitMissing, 'the payer has no settlement account in this currency');
  const effectivePosition = positionValue + reservedValue;
  const liquidityCover = -settlementValue;
  if (liquidityCover - effectivePosition < amount) {
    return failure(FAILURE.insufficientLiquidity,
      `position ${formatAmount(effectivePosition)} + ${formatAmount(amount)} exceeds liquidity cover ${formatAmount(liquidityCover)}`);
  }
  if (netDebitCap - effectivePosition < amount) {
    return failure(FAILURE.netDebitCapExceeded,
      `position ${formatAmount(effectivePosition)} + ${formatAmount(amount)} exceeds net debit cap ${formatAmount(netDebitCap)}`);
  }
  return null;
}

/**
 * Turns a list of position changes into journal rows with running values and the final
 * value per account. `currentValues` maps accountId → the locked current value; the result
 * lets the caller write one UPDATE per account and one bulk journal INSERT.
 */
export function planPositionChanges(currentValues, changes) {
  const finalValues = new Map(currentValues);
  const journal = changes.map(({ accountId, change, transferId, reason }) => {
    if (!finalValues.has(accountId)) throw new Error(`position of account ${accountId} was not prefetched`);
    const value = finalValues.get(accountId) + change;
    finalValues.set(accountId, value);
    return { accountId, transferId, reason, change, value };
  });
  const changedAccountIds = [...new Set(changes.map((change) => change.accountId))];
  return { journal, finalValues, changedAccountIds };
}
