// Expiry at each step of a conversion payment: the fx prepare, the conversion reserved (before
// and after its FXP's fulfilment), the dependent transfer prepared and reserved. Whatever
// expires, every reservation linked to it is released and each currency is conserved.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { releaseStaleTimeouts } from '../../ledger/domain/expiry.js';
import { OUTCOME, RESOURCE } from '../../ledger/domain/outcomes.js';
import { TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { ACCOUNT, createConversionLedger, fxPrepareMessage, secretPair, transferPrepareMessage } from '../support/conversion-ledger.js';

const now = new Date('2026-11-27T08:00:00.000Z');
const fxExpiresAt = new Date(now.getTime() + 30_000);
const transferExpiresAt = new Date(now.getTime() + 20_000);
const afterFx = new Date(fxExpiresAt.getTime() + 1);
const afterTransfer = new Date(transferExpiresAt.getTime() + 1);
const fx = secretPair();
const payment = secretPair();
const ZERO = [0n, 0n, 0n, 0n];
const describe = (outcome) => [outcome.type, outcome.resource ?? RESOURCE.transfers, outcome.to];

function conversionUpTo(step) {
  const ledger = createConversionLedger({ now });
  const prepared = ledger.fxPrepare([fxPrepareMessage('cr1', { transferId: 't1', condition: fx.condition, expiration: fxExpiresAt.toISOString() })]);
  if (step === 'fx-prepared') return { ledger, pending: prepared.positionEvents };
  ledger.position(prepared.positionEvents);
  if (step === 'fx-reserved') return { ledger };
  ledger.fxFulfil([{ id: 'cr1', type: 'fxTransfer', action: 'fx-reserve', from: 'fxp', to: 'payerfsp', headers: {}, body: { conversionState: 'RESERVED', fulfilment: fx.fulfilment } }]);
  if (step === 'fx-fulfilled') return { ledger };
  const transferPrepared = ledger.prepare([transferPrepareMessage('t1', { condition: payment.condition, expiration: transferExpiresAt.toISOString() })]);
  if (step === 'transfer-prepared') return { ledger, pending: transferPrepared.positionEvents };
  ledger.position(transferPrepared.positionEvents);
  return { ledger };
}

test('expiry at fx prepare: the timeout handler ends it EXPIRED_PREPARED and tells the payer 3303; so does a reservation that comes too late', () => {
  const { ledger, pending } = conversionUpTo('fx-prepared');
  const expired = ledger.expire(['cr1'], afterFx);
  assert.deepEqual(expired.stateUpdates.map((update) => update.statePath), [[S.expiredPrepared]]);
  assert.deepEqual(expired.outcomes.map((outcome) => [...describe(outcome), outcome.failure.code]), [[OUTCOME.error, RESOURCE.fxTransfers, 'payerfsp', FAILURE.transferExpired]]);
  assert.deepEqual(ledger.position(pending, afterFx).positionChanges, [], 'the reservation that was on its way is not taken');
  const late = conversionUpTo('fx-prepared');
  const refused = late.ledger.position(late.pending, afterFx);
  assert.deepEqual(refused.stateUpdates.map((update) => update.statePath), [[S.expiredPrepared]]);
  assert.deepEqual([...late.ledger.positions.values()], ZERO);
});

test('expiry of a reserved conversion its FXP never answered: the payer\'s USD released, 3303 to payer and FXP', () => {
  const { ledger } = conversionUpTo('fx-reserved');
  const expired = ledger.expire(['cr1'], afterFx);
  assert.deepEqual(expired.stateUpdates.map((update) => update.statePath), [[S.reservedTimeout]]);
  assert.deepEqual(expired.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId]), [['fx-timeout-reserved', ACCOUNT.payerUsd, 'cr1']]);
  const released = ledger.position(expired.positionEvents, afterFx);
  assert.deepEqual(released.outcomes.map((outcome) => [...describe(outcome), outcome.failure.code]), [
    [OUTCOME.error, RESOURCE.fxTransfers, 'payerfsp', FAILURE.transferExpired], [OUTCOME.error, RESOURCE.fxTransfers, 'fxp', FAILURE.transferExpired],
  ]);
  assert.equal(ledger.records.get('cr1').state, S.expiredReserved);
  assert.deepEqual([...ledger.positions.values()], ZERO);
  // Its FXP's fulfilment, even received in time, is too late once the timeout handler has it.
  const late = ledger.fxFulfil([{ id: 'cr1', type: 'fxTransfer', action: 'fx-reserve', from: 'fxp', to: 'payerfsp', headers: {}, body: { conversionState: 'RESERVED', fulfilment: fx.fulfilment }, at: now.getTime() }], afterFx);
  assert.deepEqual(late.outcomes.map((outcome) => outcome.failure.code), [FAILURE.transferExpired]);
  assert.deepEqual(ledger.position(expired.positionEvents, afterFx).positionChanges, [], 'released once');
});

test('expiry of a conversion its FXP reserved, with no payment for it: released, and the FXP gets the PATCH ABORTED', () => {
  const { ledger } = conversionUpTo('fx-fulfilled');
  const expired = ledger.expire(['cr1'], afterFx);
  assert.deepEqual(expired.stateUpdates.map((update) => update.statePath), [[S.reservedTimeout]]);
  const released = ledger.position(expired.positionEvents, afterFx);
  assert.deepEqual(released.outcomes.map(describe), [[OUTCOME.error, RESOURCE.fxTransfers, 'payerfsp'], [OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'fxp']]);
  assert.equal(released.outcomes[1].view.failure.code, FAILURE.transferExpired);
  assert.deepEqual([...ledger.positions.values()], ZERO);
  // The payment then comes: it is invalid, and there is nothing left to release.
  const prepared = ledger.prepare([transferPrepareMessage('t1', { condition: payment.condition, expiration: new Date(afterFx.getTime() + 60_000).toISOString() })], afterFx);
  assert.match(prepared.outcomes[0].failure.detail, /conversion cr1 is EXPIRED_RESERVED/);
  assert.deepEqual(prepared.positionEvents, []);
});

test('a fulfilled conversion whose payment holds a reservation does not expire on its own; the payment\'s expiry releases both', () => {
  const { ledger } = conversionUpTo('transfer-reserved');
  const waits = ledger.expire(['cr1'], afterFx);
  assert.deepEqual([waits.stateUpdates, waits.positionEvents, waits.outcomes], [[], [], []]);
  assert.equal(ledger.records.get('cr1').state, S.receivedFulfilDependent);
  const expired = ledger.expire(['t1'], afterTransfer);
  assert.deepEqual(expired.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId, event.linkedAccountIds]),
    [['timeout-reserved', ACCOUNT.fxpEur, 'cr1', [ACCOUNT.payerUsd]]]);
  const released = ledger.position(expired.positionEvents, afterTransfer);
  assert.deepEqual(released.positionChanges.map(({ accountId, change }) => [accountId, change]), [[ACCOUNT.fxpEur, -900_000n], [ACCOUNT.payerUsd, -1_000_000n]]);
  assert.deepEqual(released.outcomes.map(describe), [
    [OUTCOME.error, RESOURCE.transfers, 'payerfsp'], [OUTCOME.error, RESOURCE.transfers, 'payeefsp'], [OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'fxp'],
  ]);
  assert.deepEqual([ledger.records.get('t1').state, ledger.records.get('cr1').state], [S.expiredReserved, S.abortedError]);
  assert.deepEqual([...ledger.positions.values()], ZERO);
  // The payee's fulfil now comes too late, and commits nothing.
  const fulfil = ledger.fulfil([{ id: 't1', type: 'transfer', action: 'commit', from: 'payeefsp', to: 'payerfsp', headers: {}, body: { transferState: 'COMMITTED', fulfilment: payment.fulfilment } }], afterTransfer);
  assert.deepEqual([fulfil.positionEvents, fulfil.outcomes.map((outcome) => outcome.failure.code)], [[], [FAILURE.transferExpired]]);
});

test('a payment that expires before its reservation releases its conversion at once', () => {
  const { ledger, pending } = conversionUpTo('transfer-prepared');
  const expired = ledger.expire(['t1'], afterTransfer);
  assert.deepEqual(expired.stateUpdates.map((update) => update.statePath), [[S.expiredPrepared]]);
  assert.deepEqual(expired.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId]), [['fx-abort', ACCOUNT.payerUsd, 'cr1']]);
  const released = ledger.position(expired.positionEvents, afterTransfer);
  assert.deepEqual(released.outcomes.map(describe), [[OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'fxp']]);
  assert.deepEqual(ledger.position(pending, afterTransfer).positionChanges, [], 'the reservation on its way is not taken');
  assert.deepEqual([...ledger.positions.values()], ZERO);
});

test('a payment whose reservation comes after its own expiry ends EXPIRED_PREPARED and releases its conversion in the same decision', () => {
  const { ledger, pending } = conversionUpTo('transfer-prepared');
  const late = ledger.position(pending, afterTransfer);
  assert.deepEqual(late.stateUpdates.map((update) => [update.transferId, update.statePath.at(-1)]), [['t1', S.expiredPrepared], ['cr1', S.abortedError]]);
  assert.deepEqual(late.outcomes.map(describe), [[OUTCOME.error, RESOURCE.transfers, 'payerfsp'], [OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'fxp']]);
  assert.deepEqual([...ledger.positions.values()], ZERO);
  const again = ledger.position(pending, afterTransfer);
  assert.deepEqual([again.positionChanges, again.outcomes.map(describe)], [[], late.outcomes.map(describe)], 'replayed, released once');
});

test('a conversion that expires while its payment\'s reservation is on its way: the reservation is refused 3303, nothing stays reserved', () => {
  const { ledger, pending } = conversionUpTo('transfer-prepared');
  const expired = ledger.expire(['cr1'], afterFx);
  assert.deepEqual(expired.stateUpdates.map((update) => update.statePath), [[S.reservedTimeout]], 'a payment not yet reserved does not hold its conversion');
  const both = ledger.position([...pending, ...expired.positionEvents], afterFx);
  const refusal = both.outcomes.find((outcome) => outcome.transferId === 't1');
  assert.deepEqual([refusal.type, refusal.failure.code], [OUTCOME.error, FAILURE.transferExpired]);
  assert.deepEqual([ledger.records.get('t1').state, ledger.records.get('cr1').state], [S.abortedRejected, S.expiredReserved]);
  assert.deepEqual([...ledger.positions.values()], ZERO);
});

test('a release lost after the timeout handler\'s commit is sent again, naming the same accounts, and applied once', () => {
  const { ledger } = conversionUpTo('transfer-reserved');
  ledger.expire(['t1'], afterTransfer);
  const fxOnly = conversionUpTo('fx-reserved').ledger;
  fxOnly.expire(['cr1'], afterFx);
  const resent = releaseStaleTimeouts([ledger.records.get('t1'), fxOnly.records.get('cr1')], ledger.records);
  assert.deepEqual(resent.map((event) => [event.action, event.accountId, event.commitRequestId, event.linkedAccountIds]), [
    ['timeout-reserved', ACCOUNT.fxpEur, 'cr1', [ACCOUNT.payerUsd]], ['fx-timeout-reserved', ACCOUNT.payerUsd, 'cr1', undefined],
  ]);
  ledger.position([resent[0]], afterTransfer);
  assert.deepEqual(ledger.position([resent[0]], afterTransfer).positionChanges, []);
  assert.deepEqual([...ledger.positions.values()], ZERO);
});
