// Dead letters in a conversion payment: nothing stays reserved, in either currency.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideDeadLetteredTransfer } from '../../ledger/domain/dead-letters.js';
import { OUTCOME, RESOURCE } from '../../ledger/domain/outcomes.js';
import { TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { ACCOUNT, createConversionLedger, fxPrepareMessage, secretPair, transferPrepareMessage } from '../support/conversion-ledger.js';

const now = new Date('2026-11-27T08:00:00.000Z');
const expiration = new Date(now.getTime() + 60_000).toISOString();
const failed = failure(FAILURE.processingFailed, 'set aside');
const fx = secretPair();
const payment = secretPair();

/** Applies a dead-letter decision to the ledger as the finisher does, then its position events. */
function setAside(ledger, event) {
  const decided = decideDeadLetteredTransfer({ event, transfer: ledger.records.get(event.id), failure: failed, now, linked: ledger.records });
  for (const { transferId, statePath, ...fields } of decided.stateUpdates) ledger.records.set(transferId, { ...ledger.records.get(transferId), ...fields, state: statePath.at(-1) });
  return { decided, position: decided.positionEvents.length ? ledger.position(decided.positionEvents) : undefined };
}

const fxPrepare = fxPrepareMessage('cr1', { transferId: 't1', condition: fx.condition, expiration });
const fxAnswer = { id: 'cr1', type: 'fxTransfer', action: 'fx-reserve', from: 'fxp', to: 'payerfsp', headers: {}, body: { conversionState: 'RESERVED', fulfilment: fx.fulfilment } };

test('an fx prepare set aside before its reservation is refused; the payer hears 2001 about the fx transfer', () => {
  const ledger = createConversionLedger({ now });
  ledger.fxPrepare([fxPrepare]);
  const { decided } = setAside(ledger, fxPrepare);
  assert.deepEqual(decided.stateUpdates.map((update) => update.statePath), [[S.abortedRejected]]);
  assert.deepEqual(decided.outcomes.map((outcome) => [outcome.type, outcome.resource, outcome.to, outcome.failure.code]), [[OUTCOME.error, RESOURCE.fxTransfers, 'payerfsp', FAILURE.processingFailed]]);
});

test('an FXP answer set aside while the conversion is reserved releases the payer\'s USD and tells payer and FXP', () => {
  const ledger = createConversionLedger({ now });
  ledger.position(ledger.fxPrepare([fxPrepare]).positionEvents);
  const { decided, position } = setAside(ledger, fxAnswer);
  assert.deepEqual(decided.stateUpdates.map((update) => update.statePath), [[S.receivedError]]);
  assert.deepEqual(position.outcomes.map((outcome) => [outcome.resource, outcome.to, outcome.failure.code]), [
    [RESOURCE.fxTransfers, 'payerfsp', FAILURE.processingFailed], [RESOURCE.fxTransfers, 'fxp', FAILURE.processingFailed],
  ]);
  assert.deepEqual([...ledger.positions.values()], [0n, 0n, 0n, 0n]);
  const impostor = decideDeadLetteredTransfer({ event: { ...fxAnswer, from: 'payeefsp' }, transfer: ledger.records.get('cr1'), failure: failed, now });
  assert.deepEqual([impostor.stateUpdates, impostor.positionEvents, impostor.outcomes.map((outcome) => outcome.to)], [[], [], ['payeefsp']]);
});

test('a commit set aside releases the payment and its conversion together, in both currencies', () => {
  const ledger = createConversionLedger({ now });
  ledger.position(ledger.fxPrepare([fxPrepare]).positionEvents);
  ledger.fxFulfil([fxAnswer]);
  ledger.position(ledger.prepare([transferPrepareMessage('t1', { condition: payment.condition, expiration })]).positionEvents);
  const [commit] = ledger.fulfil([{ id: 't1', type: 'transfer', action: 'commit', from: 'payeefsp', to: 'payerfsp', headers: {}, body: { transferState: 'COMMITTED', fulfilment: payment.fulfilment } }]).positionEvents;
  const { decided, position } = setAside(ledger, { ...commit, id: 't1', type: 'position' });
  assert.deepEqual(decided.positionEvents.map((event) => [event.action, event.accountId, event.linkedAccountIds]), [['abort', ACCOUNT.fxpEur, [ACCOUNT.payerUsd]]]);
  assert.deepEqual(position.stateUpdates.map((update) => [update.transferId, update.statePath.at(-1)]), [['t1', S.abortedError], ['cr1', S.abortedError]]);
  assert.deepEqual([...ledger.positions.values()], [0n, 0n, 0n, 0n]);
});

test('a dependent prepare set aside before its reservation is refused and releases its conversion', () => {
  const ledger = createConversionLedger({ now });
  ledger.position(ledger.fxPrepare([fxPrepare]).positionEvents);
  ledger.fxFulfil([fxAnswer]);
  const message = transferPrepareMessage('t1', { condition: payment.condition, expiration });
  ledger.prepare([message]);
  const { decided, position } = setAside(ledger, message);
  assert.deepEqual(decided.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId]), [['fx-abort', ACCOUNT.payerUsd, 'cr1']]);
  assert.deepEqual(position.outcomes.map((outcome) => [outcome.type, outcome.resource, outcome.to]), [[OUTCOME.patchFinalState, RESOURCE.fxTransfers, 'fxp']]);
  assert.deepEqual([ledger.records.get('t1').state, ledger.records.get('cr1').state], [S.abortedRejected, S.abortedError]);
  assert.deepEqual([...ledger.positions.values()], [0n, 0n, 0n, 0n]);
});
