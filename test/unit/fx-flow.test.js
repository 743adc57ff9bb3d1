// A conversion payment through the pure decisions, step by step, with exact positions in
// both currencies: the payer's in the source currency is reserved by the fx prepare, the
// FXP's in the target currency by the dependent transfer, and the payee's fulfil commits both
// in one position decision. Every path ends with each currency's positions conserved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OUTCOME, RESOURCE } from '../../ledger/domain/outcomes.js';
import { TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { ACCOUNT, createConversionLedger, fxPrepareMessage, secretPair, transferPrepareMessage } from '../support/conversion-ledger.js';

const now = new Date('2026-11-27T08:00:00.000Z');
const expiration = new Date(now.getTime() + 60_000).toISOString();
const USD_100 = 1_000_000n;
const EUR_90 = 900_000n;

const describe = (outcome) => [outcome.type, outcome.resource ?? RESOURCE.transfers, outcome.transferId, outcome.to];

/** A conversion and its payment, prepared and reserved up to the payee's fulfil. */
function reservedConversionPayment(ledger = createConversionLedger({ now })) {
  const fx = secretPair();
  const payment = secretPair();
  const fxPrepared = ledger.fxPrepare([fxPrepareMessage('cr1', { transferId: 't1', condition: fx.condition, expiration })]);
  const fxReserved = ledger.position(fxPrepared.positionEvents);
  const fxFulfilled = ledger.fxFulfil([{ id: 'cr1', type: 'fxTransfer', action: 'fx-reserve', from: 'fxp', to: 'payerfsp', headers: {}, body: { conversionState: 'RESERVED', fulfilment: fx.fulfilment } }]);
  const prepared = ledger.prepare([transferPrepareMessage('t1', { condition: payment.condition, expiration })]);
  const reserved = ledger.position(prepared.positionEvents);
  return { ledger, fx, payment, steps: { fxPrepared, fxReserved, fxFulfilled, prepared, reserved } };
}

const payeeFulfil = (payment, extra = {}) => ({
  id: 't1', type: 'transfer', action: 'commit', from: 'payeefsp', to: 'payerfsp', headers: {}, body: { transferState: 'COMMITTED', fulfilment: payment.fulfilment }, ...extra,
});

test('conversion happy path: payer reserved in USD, FXP in EUR, both committed together, each currency conserved', () => {
  const { ledger, payment, steps } = reservedConversionPayment();
  const { fxPrepared, fxReserved, fxFulfilled, prepared, reserved } = steps;
  assert.deepEqual(fxPrepared.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId]), [['fx-prepare', ACCOUNT.payerUsd, 'cr1']]);
  assert.deepEqual(fxReserved.outcomes.map(describe), [[OUTCOME.forwardPrepare, RESOURCE.fxTransfers, 'cr1', 'fxp']]);
  assert.deepEqual(fxFulfilled.positionEvents, [], 'the FXP\'s fulfilment moves no position');
  assert.deepEqual(fxFulfilled.outcomes.map(describe), [[OUTCOME.forwardFulfil, RESOURCE.fxTransfers, 'cr1', 'payerfsp']]);
  assert.equal(ledger.records.get('cr1').state, S.receivedFulfilDependent);
  // The dependent transfer debits the FXP in EUR, and names the payer's USD account, which a refusal would release.
  assert.deepEqual(prepared.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId, event.linkedAccountIds]),
    [['prepare', ACCOUNT.fxpEur, 'cr1', [ACCOUNT.payerUsd]]]);
  assert.equal(ledger.records.get('t1').payerAccountId, ACCOUNT.fxpEur);
  assert.deepEqual(reserved.outcomes.map(describe), [[OUTCOME.forwardPrepare, RESOURCE.transfers, 't1', 'payeefsp']]);
  assert.deepEqual(Object.fromEntries(ledger.positions), { [ACCOUNT.payerUsd]: USD_100, [ACCOUNT.fxpUsd]: 0n, [ACCOUNT.fxpEur]: EUR_90, [ACCOUNT.payeeEur]: 0n });

  const fulfilled = ledger.fulfil([payeeFulfil(payment)]);
  assert.deepEqual(fulfilled.positionEvents.map((event) => [event.action, event.accountId, event.linkedAccountIds]), [['commit', ACCOUNT.payeeEur, [ACCOUNT.fxpUsd]]]);
  const committed = ledger.position(fulfilled.positionEvents);
  assert.deepEqual(committed.positionChanges.map(({ accountId, change, transferId, reason }) => [accountId, change, transferId, reason]), [
    [ACCOUNT.payeeEur, -EUR_90, 't1', 'COMMIT'],
    [ACCOUNT.fxpUsd, -USD_100, 'cr1', 'FX_COMMIT'],
  ]);
  assert.deepEqual(committed.stateUpdates.map((update) => [update.transferId, update.statePath.at(-1)]), [['t1', S.committed], ['cr1', S.committed]]);
  assert.deepEqual(committed.outcomes.map(describe), [[OUTCOME.forwardFulfil, RESOURCE.transfers, 't1', 'payerfsp'], [OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'cr1', 'fxp']]);
  assert.equal(committed.outcomes[1].view.state, S.committed);
  assert.deepEqual(committed.committedTransfers.map(({ transferId, payerAccountId, payeeAccountId, currency, amount }) => [transferId, payerAccountId, payeeAccountId, currency, amount]), [
    ['t1', ACCOUNT.fxpEur, ACCOUNT.payeeEur, 'EUR', EUR_90],
    ['cr1', ACCOUNT.payerUsd, ACCOUNT.fxpUsd, 'USD', USD_100],
  ], 'the settlement window records payer → FXP in USD and FXP → payee in EUR');
  assert.deepEqual(Object.fromEntries(ledger.positions), { [ACCOUNT.payerUsd]: USD_100, [ACCOUNT.fxpUsd]: -USD_100, [ACCOUNT.fxpEur]: EUR_90, [ACCOUNT.payeeEur]: -EUR_90 });
  assert.deepEqual(ledger.sumByCurrency(), { USD: 0n, EUR: 0n });
  assert.deepEqual(ledger.records.get('cr1').journal, [S.receivedPrepare, S.reserved, S.receivedFulfilDependent, S.committed]);
  assert.deepEqual(ledger.records.get('t1').journal, [S.receivedPrepare, S.reserved, S.receivedFulfil, S.committed]);
});

test('a commit applied twice applies nothing twice: the second is a replay with the same callbacks', () => {
  const { ledger, payment } = reservedConversionPayment();
  const fulfilled = ledger.fulfil([payeeFulfil(payment)]);
  const [commit] = fulfilled.positionEvents;
  const first = ledger.position([commit]);
  const after = Object.fromEntries(ledger.positions);
  const again = ledger.position([commit]);
  assert.deepEqual(again.positionChanges, []);
  assert.deepEqual(again.stateUpdates, []);
  assert.deepEqual(again.outcomes.map(describe), first.outcomes.map(describe), 'the payer and the FXP are told again, at least once');
  assert.deepEqual(Object.fromEntries(ledger.positions), after);
  // Twice within one batch: decided once, replayed once.
  const fresh = reservedConversionPayment();
  const [sameCommit] = fresh.ledger.fulfil([payeeFulfil(fresh.payment)]).positionEvents;
  const batch = fresh.ledger.position([sameCommit, sameCommit]);
  assert.equal(batch.positionChanges.length, 2, 'payee and FXP, once each');
  assert.equal(batch.stateUpdates.length, 2);
  assert.deepEqual(fresh.ledger.sumByCurrency(), { USD: 0n, EUR: 0n });
  // The payee's fulfil redelivered to the fulfil handler produces the same commit event again.
  const replayed = ledger.fulfil([payeeFulfil(payment)]);
  assert.deepEqual(replayed.stateUpdates, []);
  assert.deepEqual(replayed.outcomes.map((outcome) => [outcome.type, outcome.view.state]), [[OUTCOME.state, S.committed]]);
});

test('a payee fulfilment not matching its condition releases the FXP in EUR and the payer in USD, and PATCHes the FXP ABORTED', () => {
  const { ledger } = reservedConversionPayment();
  const wrong = secretPair();
  const fulfilled = ledger.fulfil([payeeFulfil(wrong)]);
  assert.deepEqual(fulfilled.positionEvents.map((event) => [event.action, event.accountId, event.linkedAccountIds, event.failure.code]),
    [['abort', ACCOUNT.fxpEur, [ACCOUNT.payerUsd], FAILURE.validation]]);
  const released = ledger.position(fulfilled.positionEvents);
  assert.deepEqual(released.positionChanges.map(({ accountId, change }) => [accountId, change]), [[ACCOUNT.fxpEur, -EUR_90], [ACCOUNT.payerUsd, -USD_100]]);
  assert.deepEqual(released.stateUpdates.map((update) => [update.transferId, update.statePath.at(-1)]), [['t1', S.abortedError], ['cr1', S.abortedError]]);
  assert.deepEqual(released.outcomes.map(describe), [
    [OUTCOME.error, RESOURCE.transfers, 't1', 'payerfsp'], [OUTCOME.error, RESOURCE.transfers, 't1', 'payeefsp'], [OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'cr1', 'fxp'],
  ]);
  assert.equal(released.outcomes[2].view.failure.detail, 'invalid fulfilment');
  assert.deepEqual([...ledger.positions.values()], [0n, 0n, 0n, 0n]);
  assert.deepEqual(ledger.position(fulfilled.positionEvents).positionChanges, [], 'a redelivered release releases nothing twice');
});

test('the payee\'s error releases every linked reservation; its own error goes to the payer as sent', () => {
  const { ledger } = reservedConversionPayment();
  const error = { id: 't1', type: 'transfer', action: 'abort', from: 'payeefsp', to: 'payerfsp', headers: {}, body: { errorInformation: { errorCode: '5105', errorDescription: 'no' } } };
  const released = ledger.position(ledger.fulfil([error]).positionEvents);
  assert.deepEqual(released.outcomes.map(describe), [[OUTCOME.forwardError, RESOURCE.transfers, 't1', 'payerfsp'], [OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'cr1', 'fxp']]);
  assert.equal(released.outcomes[1].view.state, S.abortedError);
  assert.deepEqual([...ledger.positions.values()], [0n, 0n, 0n, 0n]);
  assert.equal(ledger.records.get('cr1').state, S.abortedError);
});

test('the FXP over its net debit cap in EUR: the transfer is refused (4200) and the payer\'s USD released in the same decision', () => {
  const ledger = createConversionLedger({ now });
  ledger.limits.set(ACCOUNT.fxpEur, EUR_90 - 1n);
  const { steps } = reservedConversionPayment(ledger);
  assert.deepEqual(steps.reserved.stateUpdates.map((update) => [update.transferId, update.statePath.at(-1)]), [['t1', S.abortedRejected], ['cr1', S.abortedError]]);
  assert.equal(steps.reserved.outcomes[0].failure.code, FAILURE.netDebitCapExceeded);
  assert.deepEqual(steps.reserved.outcomes.map(describe), [[OUTCOME.error, RESOURCE.transfers, 't1', 'payerfsp'], [OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'cr1', 'fxp']]);
  assert.deepEqual([...ledger.positions.values()], [0n, 0n, 0n, 0n]);
});

test('the FXP without liquidity in EUR: 4001, and nothing stays reserved', () => {
  const ledger = createConversionLedger({ now });
  ledger.settlements.set(ACCOUNT.fxpEur, -(EUR_90 - 1n));
  const { steps } = reservedConversionPayment(ledger);
  assert.equal(steps.reserved.outcomes[0].failure.code, FAILURE.insufficientLiquidity);
  assert.deepEqual([...ledger.positions.values()], [0n, 0n, 0n, 0n]);
});

test('two conversion payments through one FXP, reserved and committed in shared batches: every position exact, each currency conserved', () => {
  const ledger = createConversionLedger({ now });
  const pairs = ['1', '2'].map((n) => ({ n, fx: secretPair(), payment: secretPair() }));
  ledger.position(ledger.fxPrepare(pairs.map(({ n, fx }) => fxPrepareMessage(`cr${n}`, { transferId: `t${n}`, condition: fx.condition, expiration }))).positionEvents);
  ledger.fxFulfil(pairs.map(({ n, fx }) => ({ id: `cr${n}`, type: 'fxTransfer', action: 'fx-reserve', from: 'fxp', to: 'payerfsp', headers: {}, body: { conversionState: 'RESERVED', fulfilment: fx.fulfilment } })));
  ledger.position(ledger.prepare(pairs.map(({ n, payment }) => transferPrepareMessage(`t${n}`, { condition: payment.condition, expiration }))).positionEvents);
  assert.deepEqual(Object.fromEntries(ledger.positions), { [ACCOUNT.payerUsd]: 2n * USD_100, [ACCOUNT.fxpUsd]: 0n, [ACCOUNT.fxpEur]: 2n * EUR_90, [ACCOUNT.payeeEur]: 0n });
  const commits = ledger.fulfil(pairs.map(({ n, payment }) => payeeFulfil(payment, { id: `t${n}` }))).positionEvents;
  const committed = ledger.position(commits);
  assert.equal(committed.stateUpdates.length, 4);
  assert.deepEqual(Object.fromEntries(ledger.positions), { [ACCOUNT.payerUsd]: 2n * USD_100, [ACCOUNT.fxpUsd]: -2n * USD_100, [ACCOUNT.fxpEur]: 2n * EUR_90, [ACCOUNT.payeeEur]: -2n * EUR_90 });
  assert.deepEqual(ledger.sumByCurrency(), { USD: 0n, EUR: 0n });
  // The journal's running values per account follow one another, as one UPDATE per account writes them.
  const fxpUsd = ledger.journal.filter((row) => row.accountId === ACCOUNT.fxpUsd).map((row) => row.value);
  assert.deepEqual(fxpUsd, [-USD_100, -2n * USD_100]);
});
