// POST /fxTransfers and the dependent POST /transfers at the prepare handler: validation per
// currency, duplicates (resend → the current state, changed body → 3106), and the link
// between a conversion and its payment.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OUTCOME, RESOURCE } from '../../ledger/domain/outcomes.js';
import { TRANSFER_KIND, TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { ACCOUNT, createConversionLedger, fxPrepareMessage, secretPair, transferPrepareMessage } from '../support/conversion-ledger.js';

const now = new Date('2026-11-27T08:00:00.000Z');
const expiration = new Date(now.getTime() + 60_000).toISOString();
const { fulfilment, condition } = secretPair();

const fxMessage = (id, overrides = {}) => fxPrepareMessage(id, { transferId: `t-${id}`, condition, expiration, ...overrides });

test('fx prepare: a valid conversion is stored with both currencies and goes to the payer\'s source-currency account', () => {
  const ledger = createConversionLedger({ now });
  const decided = ledger.fxPrepare([fxMessage('cr1')]);
  const [row] = decided.inserts;
  assert.deepEqual(
    [row.kind, row.state, row.payerFsp, row.payeeFsp, row.payerAccountId, row.payeeAccountId, row.amount, row.currency, row.targetAmount, row.targetCurrency, row.determiningTransferId],
    [TRANSFER_KIND.fxTransfer, S.receivedPrepare, 'payerfsp', 'fxp', ACCOUNT.payerUsd, ACCOUNT.fxpUsd, 1_000_000n, 'USD', 900_000n, 'EUR', 't-cr1'],
  );
  assert.deepEqual(decided.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId]), [['fx-prepare', ACCOUNT.payerUsd, 'cr1']]);
  assert.deepEqual(decided.outcomes, []);
});

test('fx prepare: every validation failure is one 3100 to the sender, about the fx transfer', () => {
  const ledger = createConversionLedger({ now });
  const bad = fxMessage('cr2', {
    from: 'mallory', counterPartyFsp: 'payeefsp', targetAmount: { currency: 'USD', amount: '0' }, condition: 'abc', expiration: '2020-01-01T00:00:00.000Z', determiningTransferId: 'cr2',
  });
  const decided = ledger.fxPrepare([bad]);
  assert.equal(decided.inserts[0].state, S.invalid);
  assert.deepEqual(decided.positionEvents, []);
  const [outcome] = decided.outcomes;
  assert.deepEqual([outcome.type, outcome.resource, outcome.to, outcome.failure.code], [OUTCOME.error, RESOURCE.fxTransfers, 'mallory', FAILURE.validation]);
  for (const reason of ['does not match initiatingFsp', 'payeefsp has no active position account in USD', 'both USD',
    'targetAmount: amount must be greater than zero', 'condition', 'in the past', 'determiningTransferId is the commitRequestId']) {
    assert.ok(outcome.failure.detail.includes(reason), `${reason} in ${outcome.failure.detail}`);
  }
  const noTarget = ledger.fxPrepare([fxMessage('cr3', { targetAmount: { currency: 'GBP', amount: '1' } })]);
  assert.match(noTarget.outcomes[0].failure.detail, /fxp has no active position account in GBP, counterparty FSP fxp does not convert USD to GBP/);
  assert.equal(outcome.failure.detail.match(/no active position account in USD/g).length, 1, 'one reason per missing account');
});

test('fx prepare duplicates: a resend in flight goes to the position handler again, a final one gets its state, a changed body 3106', () => {
  const ledger = createConversionLedger({ now });
  const message = fxMessage('cr4');
  ledger.fxPrepare([message]);
  const inFlight = ledger.fxPrepare([message]);
  assert.deepEqual(inFlight.inserts, []);
  assert.deepEqual(inFlight.positionEvents.map((event) => [event.action, event.accountId]), [['fx-prepare', ACCOUNT.payerUsd]]);
  const changed = ledger.fxPrepare([fxMessage('cr4', { sourceAmount: { currency: 'USD', amount: '101' } })]);
  assert.deepEqual(changed.outcomes.map((outcome) => [outcome.type, outcome.resource, outcome.failure.code]), [[OUTCOME.error, RESOURCE.fxTransfers, FAILURE.modifiedRequest]]);
  ledger.position(inFlight.positionEvents);
  assert.deepEqual(ledger.fxPrepare([message]), { inserts: [], positionEvents: [], outcomes: [] }, 'reserved and in flight: ignored');
  ledger.records.set('cr4', { ...ledger.records.get('cr4'), state: S.committed });
  const final = ledger.fxPrepare([message]);
  assert.deepEqual(final.outcomes.map((outcome) => [outcome.type, outcome.resource, outcome.to, outcome.view.state]), [[OUTCOME.state, RESOURCE.fxTransfers, 'payerfsp', S.committed]]);
  const withinBatch = ledger.fxPrepare([fxMessage('cr5'), fxMessage('cr5', { expiration: new Date(now.getTime() + 1000).toISOString() })]);
  assert.equal(withinBatch.inserts.length, 1);
  assert.equal(withinBatch.outcomes[0].failure.code, FAILURE.modifiedRequest);
});

test('fx prepare: one conversion per payment at a time, and only before the payment', () => {
  const ledger = createConversionLedger({ now });
  ledger.fxPrepare([fxMessage('cr6', { transferId: 't6' })]);
  const second = ledger.fxPrepare([fxMessage('cr7', { transferId: 't6' })]);
  assert.match(second.outcomes[0].failure.detail, /already has conversion cr6/);
  ledger.records.set('cr6', { ...ledger.records.get('cr6'), state: S.abortedRejected });
  assert.deepEqual(ledger.fxPrepare([fxMessage('cr8', { transferId: 't6' })]).outcomes, [], 'a refused conversion makes way for a new one');
  ledger.prepare([transferPrepareMessage('t9', { condition, expiration, amount: { currency: 'USD', amount: '1' }, payeeFsp: 'fxp' })]);
  assert.match(ledger.fxPrepare([fxMessage('cr9', { transferId: 't9' })]).outcomes[0].failure.detail, /t9 was already prepared/);
});

test('the payer over its liquidity in the source currency: 4001, stored ABORTED_REJECTED, nothing reserved', () => {
  const ledger = createConversionLedger({ now });
  ledger.settlements.set(ACCOUNT.payerUsd, -999_999n);
  const refused = ledger.position(ledger.fxPrepare([fxMessage('cr10')]).positionEvents);
  assert.deepEqual(refused.outcomes.map((outcome) => [outcome.resource, outcome.to, outcome.failure.code]), [[RESOURCE.fxTransfers, 'payerfsp', FAILURE.insufficientLiquidity]]);
  assert.equal(ledger.records.get('cr10').state, S.abortedRejected);
  assert.equal(ledger.positions.get(ACCOUNT.payerUsd), 0n);
});

/** A conversion its FXP has fulfilled, waiting for its payment t11. */
function fulfilledConversion() {
  const ledger = createConversionLedger({ now });
  ledger.position(ledger.fxPrepare([fxMessage('cr11', { transferId: 't11' })]).positionEvents);
  ledger.fxFulfil([{ id: 'cr11', type: 'fxTransfer', action: 'fx-reserve', from: 'fxp', to: 'payerfsp', headers: {}, body: { conversionState: 'RESERVED', fulfilment } }]);
  return ledger;
}

test('a dependent transfer from anyone but the conversion\'s payer is refused and not stored; the conversion is untouched', () => {
  const ledger = fulfilledConversion();
  for (const impostor of [transferPrepareMessage('t11', { condition, expiration, from: 'fxp', payerFsp: 'fxp' }), transferPrepareMessage('t11', { condition, expiration, from: 'fxp' })]) {
    const decided = ledger.prepare([impostor]);
    assert.deepEqual(decided.inserts, []);
    assert.deepEqual(decided.positionEvents, []);
    assert.deepEqual(decided.outcomes.map((outcome) => [outcome.to, outcome.failure.code]), [['fxp', FAILURE.validation]]);
  }
  assert.equal(ledger.records.has('t11'), false);
  assert.equal(ledger.records.get('cr11').state, S.receivedFulfilDependent);
});

test('a dependent transfer in another currency or amount is invalid (3100), and releases the payer\'s source currency', () => {
  const ledger = fulfilledConversion();
  const decided = ledger.prepare([transferPrepareMessage('t11', { condition, expiration, amount: { currency: 'EUR', amount: '91' } })]);
  assert.equal(decided.inserts[0].state, S.invalid);
  assert.match(decided.outcomes[0].failure.detail, /not the target amount of conversion cr11/);
  assert.deepEqual(decided.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId]), [['fx-abort', ACCOUNT.payerUsd, 'cr11']]);
  const released = ledger.position(decided.positionEvents);
  assert.deepEqual(released.positionChanges.map(({ accountId, change }) => [accountId, change]), [[ACCOUNT.payerUsd, -1_000_000n]]);
  assert.deepEqual(released.outcomes.map((outcome) => [outcome.type, outcome.resource, outcome.to, outcome.view.state]), [[OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'fxp', S.abortedError]]);
  assert.deepEqual(ledger.position(decided.positionEvents).positionChanges, [], 'released once');
  const currency = fulfilledConversion().prepare([transferPrepareMessage('t11', { condition, expiration, amount: { currency: 'USD', amount: '90' } })]);
  assert.match(currency.outcomes[0].failure.detail, /not the target currency EUR/);
});

test('a dependent transfer before its FXP has fulfilled the conversion is invalid and leaves the conversion to its FXP', () => {
  const ledger = createConversionLedger({ now });
  ledger.position(ledger.fxPrepare([fxMessage('cr12', { transferId: 't12' })]).positionEvents);
  const early = ledger.prepare([transferPrepareMessage('t12', { condition, expiration })]);
  assert.match(early.outcomes[0].failure.detail, /conversion cr12 is RESERVED, not reserved by its FXP/);
  assert.deepEqual(early.positionEvents, []);
  assert.equal(ledger.records.get('cr12').state, S.reserved);
});

test('a dependent transfer resent while its reservation is pending goes to the FXP\'s account again, naming its conversion', () => {
  const ledger = fulfilledConversion();
  const message = transferPrepareMessage('t11', { condition, expiration });
  ledger.prepare([message]);
  const again = ledger.prepare([message]);
  assert.deepEqual(again.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId, event.linkedAccountIds]),
    [['prepare', ACCOUNT.fxpEur, 'cr11', [ACCOUNT.payerUsd]]]);
  const changed = ledger.prepare([transferPrepareMessage('t11', { condition, expiration, ilpPacket: 'AYIC' })]);
  assert.equal(changed.outcomes[0].failure.code, FAILURE.modifiedRequest);
});
