import { test } from 'node:test';
import assert from 'node:assert/strict';
import { amountToColumn, formatAmount, parseAmount, amountFromColumn } from '../../ledger/domain/money.js';
import { isFailure } from '../../platform/domain/failures.js';

test('parses decimal strings into scaled units without losing digits', () => {
  assert.equal(parseAmount('5000'), 50000000n);
  assert.equal(parseAmount('0.0001'), 1n);
  assert.equal(parseAmount('12.50'), 125000n);
  assert.equal(parseAmount('99999999999999.9999'), 999999999999999999n);
  assert.equal(parseAmount('-3.5', { allowNegative: true }), -35000n);
});

test('rejects what is not a plain decimal within the ledger scale', () => {
  for (const bad of ['1e3', '12.', '.5', 'abc', '', '1,5', '0x10', '12.34567', '123456789012345']) {
    assert.ok(isFailure(parseAmount(bad)), `${bad} should be rejected`);
  }
  assert.ok(isFailure(parseAmount(12)), 'a Number is refused');
  assert.ok(isFailure(parseAmount('-1')), 'negative needs allowNegative');
  assert.ok(isFailure(parseAmount('0', { allowZero: false })));
  assert.ok(isFailure(parseAmount('1.234', { scale: 2 })), 'a currency scale narrower than the ledger is enforced');
  assert.equal(parseAmount('1.230', { scale: 2 }), 12300n, 'trailing zeros do not count against the scale');
});

test('formats and stores amounts exactly, round-tripping through the column form', () => {
  assert.equal(formatAmount(-50000000n), '-5000');
  assert.equal(formatAmount(125000n), '12.5');
  assert.equal(formatAmount(1n), '0.0001');
  assert.equal(amountToColumn(-1n), '-0.0001');
  assert.equal(amountToColumn(50000000n), '5000.0000');
  for (const units of [0n, 1n, -1n, 123456789012345678n, -999999999999999999n]) {
    assert.equal(amountFromColumn(amountToColumn(units)), units);
  }
  assert.throws(() => formatAmount(5), TypeError);
});
