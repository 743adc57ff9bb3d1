// What a DFSP is told about an aborted transfer, in Mojaloop's words (issue #29, items 2, 3
// and 6): the cause in the extension list of the transfer's state, a fulfil without its
// fulfilment aborting like a wrong one, and the descriptions DFSPs' tooling compares whole.
// Pure: the domain's decisions and the one failure → FSPIOP table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { errorInformation, failureToFspiop } from '../../platform/fspiop/errors.js';
import { notificationEvent, transferStateBody } from '../../handlers/transfer-records.js';
import { OUTCOME, tell } from '../../ledger/domain/outcomes.js';
import { TRANSFER_KIND, TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';

const now = new Date('2026-11-26T12:00:00.000Z');
const fulfilment = randomBytes(32).toString('base64url');
const condition = createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url');
const transfer = (state, extra = {}) => ({
  transferId: 't-1', kind: TRANSFER_KIND.payment, state, payerFsp: 'payer', payeeFsp: 'payee', payerAccountId: 1, payeeAccountId: 3,
  amount: 400n, currency: 'USD', expiresAt: new Date(now.getTime() + 60_000), ilpCondition: condition, ...extra,
});
const fulfil = (body, from = 'payee') => ({
  id: 't-1', type: 'transfer', action: body.transferState === 'RESERVED' ? 'reserve' : 'commit', from, to: 'payer',
  headers: { 'content-type': 'application/vnd.interoperability.transfers+json;version=1.1' }, body,
});

test('3106, 3208 and 3303 keep Mojaloop\'s description; the switch\'s detail goes to the extension list', () => {
  assert.deepEqual(errorInformation(3106, 'transfer t-1 was already prepared with different content').errorInformation, {
    errorCode: '3106', errorDescription: 'Modified request',
    extensionList: { extension: [{ key: 'detail', value: 'transfer t-1 was already prepared with different content' }] },
  });
  assert.equal(errorInformation(3208, 'transfer t-1 is not known to payer').errorInformation.errorDescription,
    'Transfer ID not found - Provided Transfer ID was not found on the server.');
  assert.deepEqual(failureToFspiop(failure(FAILURE.transferExpired, 'transfer expired at 2026-11-26T12:00:00.000Z')).body.errorInformation, {
    errorCode: '3303', errorDescription: 'Transfer expired',
    extensionList: { extension: [{ key: 'detail', value: 'transfer expired at 2026-11-26T12:00:00.000Z' }] },
  });
  assert.equal(errorInformation(3303).errorInformation.extensionList, undefined, 'no detail, no list');
  assert.equal(errorInformation(3100, 'invalid fulfilment').errorInformation.errorDescription, 'Generic validation error - invalid fulfilment');
  assert.equal(errorInformation(3106, 'x'.repeat(500)).errorInformation.extensionList.extension[0].value.length, 128);
});

test('an aborted transfer\'s state carries its cause: the switch\'s failure or the payee\'s error; other states carry none', () => {
  const invalid = failure(FAILURE.validation, 'invalid fulfilment');
  assert.deepEqual(transferStateBody({ state: S.abortedError, completedAt: now, failure: invalid }), {
    transferState: 'ABORTED', completedTimestamp: now.toISOString(),
    extensionList: { extension: [{ key: 'cause', value: '3100: Generic validation error - invalid fulfilment' }] },
  });
  const expired = transferStateBody({ state: S.expiredReserved, completedAt: now, failure: failure(FAILURE.transferExpired, 'at noon') });
  assert.deepEqual(expired.extensionList.extension, [{ key: 'cause', value: '3303: Transfer expired' }]);
  const rejected = transferStateBody({ state: S.abortedError, completedAt: now, payeeError: { errorCode: '5104', errorDescription: 'Payee rejected the transaction' } });
  assert.deepEqual(rejected.extensionList.extension, [{ key: 'cause', value: '5104: Payee rejected the transaction' }]);
  assert.equal(transferStateBody({ state: S.reserved, failure: invalid }).extensionList, undefined);
  assert.equal(transferStateBody({ state: S.committed, completedAt: now, fulfilment }).extensionList, undefined);
  const patch = notificationEvent(tell.patchFinalState('t-1', 'payee', { state: S.abortedError, completedAt: now, failure: invalid }), 'Hub');
  assert.equal(patch.callback.method, 'PATCH');
  assert.deepEqual(patch.body.extensionList.extension, [{ key: 'cause', value: '3100: Generic validation error - invalid fulfilment' }]);
});

test('a fulfil without its fulfilment aborts like a wrong one, with its own cause; from anyone but the payee it changes nothing', () => {
  for (const transferState of ['COMMITTED', 'RESERVED']) {
    const decided = decideFulfilBatch({ events: [fulfil({ transferState, completedTimestamp: now.toISOString() })], transfers: new Map([['t-1', transfer(S.reserved)]]), now });
    assert.deepEqual(decided.stateUpdates.map((update) => [update.statePath, update.failure.detail]), [[[S.receivedError], 'missing fulfilment']]);
    assert.equal(decided.positionEvents[0].action, 'abort');
    assert.equal(failureToFspiop(decided.positionEvents[0].failure).body.errorInformation.errorDescription, 'Generic validation error - missing fulfilment');
  }
  const wrong = decideFulfilBatch({ events: [fulfil({ transferState: 'COMMITTED', fulfilment: 'z'.repeat(43) })], transfers: new Map([['t-1', transfer(S.reserved)]]), now });
  assert.equal(wrong.stateUpdates[0].failure.detail, 'invalid fulfilment');
  const stranger = decideFulfilBatch({ events: [fulfil({ transferState: 'COMMITTED' }, 'payer')], transfers: new Map([['t-1', transfer(S.reserved)]]), now });
  assert.deepEqual([stranger.stateUpdates, stranger.positionEvents], [[], []]);
  assert.deepEqual(stranger.outcomes.map((outcome) => [outcome.type, outcome.to, outcome.failure.code]), [[OUTCOME.error, 'payer', FAILURE.validation]]);
});
