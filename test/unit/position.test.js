import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkReservation, planPositionChanges } from '../../ledger/domain/position.js';
import { FAILURE } from '../../platform/domain/failures.js';

const base = { positionValue: 0n, settlementValue: -1000n, netDebitCap: 800n };

test('a reservation within cover and cap is allowed, up to the exact boundary', () => {
  assert.equal(checkReservation({ ...base, amount: 800n }), null);
  assert.equal(checkReservation({ ...base, positionValue: 700n, amount: 100n }), null);
});

test('liquidity cover is checked before the net debit cap', () => {
  assert.equal(checkReservation({ ...base, netDebitCap: 5000n, amount: 1001n }).code, FAILURE.insufficientLiquidity);
  assert.equal(checkReservation({ ...base, amount: 801n }).code, FAILURE.netDebitCapExceeded);
  assert.equal(checkReservation({ ...base, amount: 2000n }).code, FAILURE.insufficientLiquidity);
});

test('reserved value counts against the headroom', () => {
  assert.equal(checkReservation({ ...base, reservedValue: 100n, amount: 750n }).code, FAILURE.netDebitCapExceeded);
});

test('a plan keeps running values per account and one final value each', () => {
  const plan = planPositionChanges(new Map([[1, 0n], [2, -500n]]), [
    { accountId: 1, change: 10n, transferId: 'a', reason: 'PREPARE' },
    { accountId: 1, change: 5n, transferId: 'b', reason: 'PREPARE' },
    { accountId: 2, change: -10n, transferId: 'a', reason: 'COMMIT' },
  ]);
  assert.deepEqual(plan.journal.map((entry) => entry.value), [10n, 15n, -510n]);
  assert.equal(plan.finalValues.get(1), 15n);
  assert.equal(plan.finalValues.get(2), -510n);
  assert.deepEqual(plan.changedAccountIds, [1, 2]);
  assert.throws(() => planPositionChanges(new Map(), [{ accountId: 9, change: 1n }]), /not prefetched/);
});

test('an account without a net debit cap or settlement account is refused as a value, never a TypeError', () => {
  // Today's onboarding lets an account be activated before its limit is set: the reservation
  // must be refused with the payer limit failure rather than throw on `undefined - bigint`.
  assert.equal(checkReservation({ ...base, netDebitCap: undefined, amount: 1n }).code, FAILURE.limitMissing);
  assert.equal(checkReservation({ ...base, settlementValue: undefined, amount: 1n }).code, FAILURE.limitMissing);
});
