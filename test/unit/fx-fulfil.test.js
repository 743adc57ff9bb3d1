// The FXP's answer to a conversion at the fulfil handler, and what the position handler
// makes of it: a matching fulfilment waits for the payment, an error or a wrong fulfilment
// releases the payer's source currency; only the FXP may answer, once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OUTCOME, RESOURCE } from '../../ledger/domain/outcomes.js';
import { TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { ACCOUNT, createConversionLedger, fxPrepareMessage, secretPair } from '../support/conversion-ledger.js';

const now = new Date('2026-11-27T08:00:00.000Z');
const expiresAt = new Date(now.getTime() + 60_000);
const { fulfilment, condition } = secretPair();

function reservedConversion() {
  const ledger = createConversionLedger({ now });
  ledger.position(ledger.fxPrepare([fxPrepareMessage('cr1', { transferId: 't1', condition, expiration: expiresAt.toISOString() })]).positionEvents);
  assert.equal(ledger.positions.get(ACCOUNT.payerUsd), 1_000_000n);
  return ledger;
}

const answer = (action, body, extra = {}) => ({ id: 'cr1', type: 'fxTransfer', action, from: 'fxp', to: 'payerfsp', headers: {}, body, ...extra });
const reserveAnswer = (extra) => answer('fx-reserve', { conversionState: 'RESERVED', fulfilment, completedTimestamp: now.toISOString() }, extra);
const describe = (outcome) => [outcome.type, outcome.resource, outcome.to];

test('the FXP\'s matching fulfilment stores it, moves nothing, and is forwarded to the payer; COMMITTED is taken as RESERVED', () => {
  for (const action of ['fx-reserve', 'fx-commit']) {
    const ledger = reservedConversion();
    const decided = ledger.fxFulfil([reserveAnswer({ action })]);
    assert.deepEqual(decided.stateUpdates.map((update) => update.statePath), [[S.receivedFulfilDependent]]);
    assert.deepEqual(decided.positionEvents, []);
    assert.deepEqual(decided.outcomes.map(describe), [[OUTCOME.forwardFulfil, RESOURCE.fxTransfers, 'payerfsp']]);
    assert.equal(ledger.records.get('cr1').fulfilment, fulfilment);
  }
});

test('the FXP\'s error releases the payer\'s source currency and reaches the payer as the FXP sent it', () => {
  const ledger = reservedConversion();
  const decided = ledger.fxFulfil([answer('fx-abort', { errorInformation: { errorCode: '5100', errorDescription: 'rate gone' } })]);
  assert.deepEqual(decided.stateUpdates.map((update) => update.statePath), [[S.receivedError]]);
  assert.deepEqual(decided.positionEvents.map((event) => [event.action, event.accountId, event.commitRequestId, event.failure]), [['fx-abort', ACCOUNT.payerUsd, 'cr1', undefined]]);
  const released = ledger.position(decided.positionEvents);
  assert.deepEqual(released.positionChanges.map(({ accountId, change, reason }) => [accountId, change, reason]), [[ACCOUNT.payerUsd, -1_000_000n, 'FX_ABORT']]);
  assert.deepEqual(released.outcomes.map(describe), [[OUTCOME.forwardError, RESOURCE.fxTransfers, 'payerfsp']]);
  assert.equal(ledger.records.get('cr1').state, S.abortedError);
  const again = ledger.position(decided.positionEvents);
  assert.deepEqual([again.positionChanges, again.outcomes.map(describe)], [[], [[OUTCOME.forwardError, RESOURCE.fxTransfers, 'payerfsp']]], 'a redelivery releases nothing twice');
});

test('an FXP fulfilment not matching its condition (or missing) aborts: 3100 to payer and FXP, the payer released', () => {
  for (const [body, detail] of [[{ conversionState: 'RESERVED', fulfilment: secretPair().fulfilment }, 'invalid fulfilment'], [{ conversionState: 'RESERVED' }, 'missing fulfilment']]) {
    const ledger = reservedConversion();
    const decided = ledger.fxFulfil([answer('fx-reserve', body)]);
    assert.deepEqual(decided.stateUpdates.map((update) => update.statePath), [[S.receivedError]]);
    assert.equal(decided.positionEvents[0].failure.detail, detail);
    const released = ledger.position(decided.positionEvents);
    assert.deepEqual(released.outcomes.map((outcome) => [...describe(outcome), outcome.failure.code, outcome.failure.detail]), [
      [OUTCOME.error, RESOURCE.fxTransfers, 'payerfsp', FAILURE.validation, detail], [OUTCOME.error, RESOURCE.fxTransfers, 'fxp', FAILURE.validation, detail],
    ]);
    assert.equal(ledger.positions.get(ACCOUNT.payerUsd), 0n);
    // Redelivered to the fulfil handler: the release is produced again, applied at most once.
    const redelivered = ledger.fxFulfil([answer('fx-reserve', body)]);
    assert.deepEqual(redelivered.stateUpdates, []);
    assert.deepEqual(redelivered.outcomes.map((outcome) => [outcome.type, outcome.view.state]), [[OUTCOME.state, S.abortedError]]);
  }
});

test('only the FXP answers, to the conversion\'s payer; an FXP rejects with …/error', () => {
  const ledger = reservedConversion();
  const refusals = ledger.fxFulfil([
    reserveAnswer({ from: 'payeefsp' }), reserveAnswer({ from: 'payerfsp' }), reserveAnswer({ to: 'payeefsp' }),
    answer('fx-reject', { conversionState: 'ABORTED' }), reserveAnswer({ id: 'nope' }), answer('fx-other', {}),
  ]);
  assert.deepEqual(refusals.stateUpdates, []);
  assert.deepEqual(refusals.positionEvents, []);
  assert.deepEqual(refusals.outcomes.map((outcome) => [outcome.resource, outcome.to, outcome.failure.code]), [
    [RESOURCE.fxTransfers, 'payeefsp', FAILURE.validation], [RESOURCE.fxTransfers, 'payerfsp', FAILURE.validation], [RESOURCE.fxTransfers, 'fxp', FAILURE.validation],
    [RESOURCE.fxTransfers, 'fxp', FAILURE.validation], [RESOURCE.fxTransfers, 'fxp', FAILURE.transferNotFound], [RESOURCE.fxTransfers, 'fxp', FAILURE.validation],
  ]);
  assert.equal(ledger.records.get('cr1').state, S.reserved);
});

test('FXP answer duplicates: the same answer again is forwarded again, a changed one is 3106', () => {
  const ledger = reservedConversion();
  ledger.fxFulfil([reserveAnswer()]);
  const same = ledger.fxFulfil([reserveAnswer()]);
  assert.deepEqual(same.stateUpdates, []);
  assert.deepEqual(same.outcomes.map(describe), [[OUTCOME.forwardFulfil, RESOURCE.fxTransfers, 'payerfsp']]);
  const changed = ledger.fxFulfil([answer('fx-abort', { errorInformation: { errorCode: '5100', errorDescription: 'changed my mind' } })]);
  assert.deepEqual(changed.outcomes.map((outcome) => [outcome.to, outcome.failure.code]), [['fxp', FAILURE.modifiedRequest]]);
  assert.equal(ledger.records.get('cr1').state, S.receivedFulfilDependent);
});

test('an FXP fulfilment received at or after the expiry is 3303 and changes nothing; its error is never too late', () => {
  const ledger = reservedConversion();
  const late = ledger.fxFulfil([reserveAnswer({ at: expiresAt.getTime() })], new Date(expiresAt.getTime() + 5));
  assert.deepEqual(late.outcomes.map((outcome) => [outcome.to, outcome.failure.code]), [['fxp', FAILURE.transferExpired]]);
  assert.deepEqual(late.stateUpdates, []);
  const inTime = ledger.fxFulfil([reserveAnswer({ at: expiresAt.getTime() - 1 })], new Date(expiresAt.getTime() + 5));
  assert.deepEqual(inTime.stateUpdates.map((update) => update.statePath), [[S.receivedFulfilDependent]], 'judged at the edge\'s receipt');
  const error = reservedConversion().fxFulfil([answer('fx-abort', { errorInformation: { errorCode: '5100', errorDescription: 'no' } })], new Date(expiresAt.getTime() + 5));
  assert.deepEqual(error.stateUpdates.map((update) => update.statePath), [[S.receivedError]]);
});

test('GET /fxTransfers answers its payer and FXP with the conversion state, nobody else', () => {
  const ledger = reservedConversion();
  const decided = ledger.fxFulfil(['payerfsp', 'fxp', 'payeefsp'].map((from) => ({ id: 'cr1', type: 'fxTransfer', action: 'fx-get', from, headers: {}, body: {} })));
  assert.deepEqual(decided.outcomes.map((outcome) => [outcome.type, outcome.resource, outcome.to]), [
    [OUTCOME.state, RESOURCE.fxTransfers, 'payerfsp'], [OUTCOME.state, RESOURCE.fxTransfers, 'fxp'], [OUTCOME.error, RESOURCE.fxTransfers, 'payeefsp'],
  ]);
});

test('a conversion is no transfer: PUT or GET /transfers/{commitRequestId} finds nothing, and payment position events leave it alone', () => {
  const ledger = reservedConversion();
  const asTransfer = (action, body) => ({ id: 'cr1', type: 'transfer', action, from: 'fxp', to: 'payerfsp', headers: {}, body });
  const decided = decideFulfilBatch({
    events: [asTransfer('commit', { transferState: 'COMMITTED', fulfilment }), asTransfer('abort', { errorInformation: { errorCode: '5100', errorDescription: 'x' } }), asTransfer('get', {})],
    transfers: ledger.records, now,
  });
  assert.deepEqual(decided.stateUpdates, []);
  assert.deepEqual(decided.outcomes.map((outcome) => [outcome.resource, outcome.failure.code]), [[undefined, FAILURE.transferNotFound], [undefined, FAILURE.transferNotFound], [undefined, FAILURE.transferNotFound]]);
  const errored = { ...ledger.records.get('cr1'), state: S.receivedError };
  const position = decidePositionBatch({
    events: [{ action: 'abort', accountId: ACCOUNT.payerUsd, message: { id: 'cr1' } }], transfers: new Map([['cr1', errored]]),
    positions: new Map([[ACCOUNT.payerUsd, 1_000_000n]]), settlements: new Map(), limits: new Map(), now,
  });
  assert.deepEqual([position.positionChanges, position.stateUpdates, position.outcomes], [[], [], []]);
});
