import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_TRANSFER_STATES, TRANSFER_KIND, TRANSFER_STATE, canTransition, fspiopTransferState, isFinal } from '../../ledger/domain/transfer-states.js';
import { decideHubAccount, decideInitialPositionAndLimits, decideParticipantCurrency } from '../../ledger/domain/participants.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { requestHash } from '../../platform/domain/request-hash.js';

const S = TRANSFER_STATE;

test('final states have no way out and every state has an FSPIOP name', () => {
  for (const state of ALL_TRANSFER_STATES) {
    assert.match(fspiopTransferState(state), /^(RECEIVED|RESERVED|COMMITTED|ABORTED)$/);
    for (const kind of Object.values(TRANSFER_KIND)) {
      if (isFinal(state)) for (const to of ALL_TRANSFER_STATES) assert.equal(canTransition(kind, state, to), false);
    }
  }
  assert.equal(canTransition(TRANSFER_KIND.payment, null, S.receivedPrepare), true);
  assert.equal(canTransition(TRANSFER_KIND.payment, S.committed, S.abortedError), false);
  assert.equal(canTransition(TRANSFER_KIND.payment, S.receivedPrepare, S.committed), false, 'a transfer is reserved before it commits');
  assert.equal(canTransition(TRANSFER_KIND.payment, S.reserved, S.committed), false, 'a payment commits only a fulfil the switch checked');
  assert.equal(canTransition(TRANSFER_KIND.fundsOut, S.reserved, S.committed), true, 'the operator commits a funds out');
  assert.throws(() => canTransition(TRANSFER_KIND.payment, 'NOPE', S.committed));
  assert.throws(() => canTransition('NOPE', null, S.receivedPrepare));
});

test('hub accounts: only the hub, only hub types, only once', () => {
  const hub = { name: 'Hub' };
  assert.equal(decideHubAccount({ participant: hub, hubName: 'Hub', type: 'HUB_RECONCILIATION', existingAccount: null }).ok, true);
  assert.equal(decideHubAccount({ participant: { name: 'dfsp1' }, hubName: 'Hub', type: 'HUB_RECONCILIATION' }).code, FAILURE.hubAccountInvalid);
  assert.equal(decideHubAccount({ participant: hub, hubName: 'Hub', type: 'POSITION' }).code, FAILURE.hubAccountInvalid);
  assert.equal(decideHubAccount({ participant: hub, hubName: 'Hub', type: 'HUB_RECONCILIATION', existingAccount: {} }).code, FAILURE.hubAccountInvalid);
  assert.equal(decideHubAccount({ participant: null, hubName: 'Hub', type: 'HUB_RECONCILIATION' }).code, FAILURE.hubAccountInvalid);
});

test('a DFSP currency needs both hub accounts and a settlement model, once', () => {
  const model = (currency) => ({ currency, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT' });
  const both = ['HUB_RECONCILIATION', 'HUB_MULTILATERAL_SETTLEMENT'];
  const ok = decideParticipantCurrency({ hubAccountTypes: both, participantCurrencies: [], currency: 'USD', settlementModels: [model(null)] });
  assert.deepEqual(ok.accountTypes, ['POSITION', 'SETTLEMENT']);
  assert.equal(decideParticipantCurrency({ hubAccountTypes: both.slice(0, 1), participantCurrencies: [], currency: 'USD', settlementModels: [model(null)] }).code, FAILURE.hubAccountsMissing);
  assert.equal(decideParticipantCurrency({ hubAccountTypes: both, participantCurrencies: ['USD'], currency: 'USD', settlementModels: [model(null)] }).code, FAILURE.alreadyExists);
  assert.equal(decideParticipantCurrency({ hubAccountTypes: both, participantCurrencies: [], currency: 'USD', settlementModels: [model('EUR')] }).code, FAILURE.settlementModelMissing);
});

test('initial position and limits are set once, for NET_DEBIT_CAP', () => {
  const accounts = { positionAccount: { id: 1 }, settlementAccount: { id: 2 } };
  assert.equal(decideInitialPositionAndLimits({ ...accounts, existingLimit: null, limitType: 'NET_DEBIT_CAP' }).ok, true);
  assert.equal(decideInitialPositionAndLimits({ ...accounts, existingLimit: {}, limitType: 'NET_DEBIT_CAP' }).code, FAILURE.alreadyExists);
  assert.equal(decideInitialPositionAndLimits({ positionAccount: null, settlementAccount: null, limitType: 'NET_DEBIT_CAP' }).code, FAILURE.accountNotFound);
});

test('the request hash ignores key order and sees any change of content', () => {
  assert.equal(requestHash({ a: 1, b: { c: '2' } }), requestHash({ b: { c: '2' }, a: 1 }));
  assert.notEqual(requestHash({ a: '1' }), requestHash({ a: '2' }));
  assert.notEqual(requestHash({ a: ['1', '2'] }), requestHash({ a: ['2', '1'] }));
});
