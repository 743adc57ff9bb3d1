// The load harness's currency conversion, its pure parts: the FXP's conversion of an amount
// (scaled BigInts, cut to cents), its condition and fulfilment from its secret, the pairs a
// conversion run pays between, and the notifications per prepare the gate expects of a mix.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { EUR_MSISDN_BASE, MSISDN_STRIDE, conversionPairs } from '../../perf/provision.js';
import { convertAmount, fxQuoteAnswer, fxSecretPair } from '../../perf/simulators/fxp.js';
import { NOTIFICATION_RATIO, notificationRatio } from '../../perf/run.js';

test('the FXP converts at its rate and cuts the target amount to cents, without Numbers', () => {
  assert.equal(convertAmount('1', '0.9'), '0.9');
  assert.equal(convertAmount('100', '0.9137'), '91.37');
  assert.equal(convertAmount('1.5', '0.9137'), '1.37', '1.37055 is cut, not rounded');
  assert.equal(convertAmount('12345678901234', '0.5'), '6172839450617', 'beyond a double\'s exact integers');
  assert.throws(() => convertAmount('one', '0.9'), /cannot convert/);
});

test('the FXP\'s fulfilment matches the condition it quoted, and differs by conversion and secret', () => {
  const pair = fxSecretPair('secret', 'conversion-1');
  assert.equal(createHash('sha256').update(Buffer.from(pair.fulfilment, 'base64url')).digest('base64url'), pair.condition);
  assert.equal(Buffer.from(pair.condition, 'base64url').length, 32);
  assert.notEqual(fxSecretPair('secret', 'conversion-2').condition, pair.condition);
  assert.notEqual(fxSecretPair('other', 'conversion-1').condition, pair.condition);
  const config = { secretPrefix: 's-', fxRate: '0.9' };
  const terms = { conversionId: 'conversion-1', sourceAmount: { amount: '10', currency: 'USD' }, targetAmount: { currency: 'EUR' }, amountType: 'SEND' };
  const answer = fxQuoteAnswer(config, 'fxp', { conversionRequestId: 'r', conversionTerms: terms });
  assert.deepEqual(answer.conversionTerms, { ...terms, targetAmount: { currency: 'EUR', amount: '9' } });
  assert.equal(answer.condition, fxSecretPair('s-fxp', 'conversion-1').condition);
});

test('a conversion run pays from every USD payer to every EUR payee through the FXP, at the EUR payees\' own ranges', () => {
  assert.deepEqual(conversionPairs(['a', 'b'], ['e1', 'e2'], 'fx', 10).map(({ payer, payee, fxp, msisdnFrom }) => [payer, payee, fxp, msisdnFrom]), [
    ['a', 'e1', 'fx', EUR_MSISDN_BASE], ['a', 'e2', 'fx', EUR_MSISDN_BASE + MSISDN_STRIDE],
    ['b', 'e1', 'fx', EUR_MSISDN_BASE], ['b', 'e2', 'fx', EUR_MSISDN_BASE + MSISDN_STRIDE],
  ]);
  assert.ok(conversionPairs(['a'], ['e1'], 'fx', 10).every((pair) => pair.targetCurrency === 'EUR' && pair.msisdnCount === 10));
});

test('the notifications per prepare the gate expects: a conversion payment is two prepares and its own messages', () => {
  assert.equal(notificationRatio('full', 100, 0), NOTIFICATION_RATIO.full);
  // 80 plain (4 each) and 20 conversions (10 each, two prepares each): 520 over 120.
  assert.equal(notificationRatio('full', 100, 20), 520 / 120);
  assert.equal(notificationRatio('quote-transfer', 10, 10), 9 / 2);
  assert.equal(notificationRatio('transfer', 10, 10), 5 / 2);
  assert.equal(notificationRatio('full', 0, 0), NOTIFICATION_RATIO.full);
});
