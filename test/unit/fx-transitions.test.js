// The fx transfer's lifecycle in the one transition table: every decision about a conversion,
// in every state, either takes a step the table lists or changes nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_TRANSFER_STATES, TRANSFER_KIND, TRANSFER_STATE as S, canTransition, fspiopTransferState, isFinal, transition } from '../../ledger/domain/transfer-states.js';
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { decideFxFulfilBatch } from '../../ledger/domain/fx-fulfil.js';
import { decideExpiries } from '../../ledger/domain/expiry.js';
import { secretPair } from '../support/conversion-ledger.js';

const FX = TRANSFER_KIND.fxTransfer;
const now = new Date('2026-11-27T08:00:00.000Z');
const future = new Date(now.getTime() + 60_000);
const past = new Date(now.getTime() - 1);
const { fulfilment, condition } = secretPair();

function conversion(state, extra = {}) {
  return {
    transferId: 'cr', kind: FX, state, payerFsp: 'payerfsp', payeeFsp: 'fxp', payerAccountId: 1, payeeAccountId: 11, amount: 400n, currency: 'USD',
    targetAmount: 300n, targetCurrency: 'EUR', determiningTransferId: 't', expiresAt: future, ilpCondition: condition, ...extra,
  };
}

function assertDecided(fromState, statePath, context) {
  assert.ok(Object.isFrozen(statePath), `${context}: built by transition()`);
  assert.doesNotThrow(() => transition(FX, fromState, ...statePath), `${context}: ${fromState} → ${statePath}`);
}

test('the fx lifecycle: a fulfilled conversion commits only with its payment, and expires only through RESERVED_TIMEOUT', () => {
  assert.deepEqual(transition(FX, null, S.receivedPrepare, S.reserved, S.receivedFulfilDependent, S.committed), [S.receivedPrepare, S.reserved, S.receivedFulfilDependent, S.committed]);
  assert.throws(() => transition(FX, S.reserved, S.committed), /illegal/, 'the FXP\'s fulfilment commits nothing');
  assert.throws(() => transition(FX, S.reserved, S.receivedFulfil), /illegal/, 'a conversion is never fulfilled as a payment');
  assert.throws(() => transition(TRANSFER_KIND.payment, S.reserved, S.receivedFulfilDependent), /illegal/);
  assert.ok(canTransition(FX, S.receivedFulfilDependent, S.reservedTimeout));
  assert.ok(canTransition(FX, S.receivedFulfilDependent, S.abortedError));
  assert.equal(fspiopTransferState(S.receivedFulfilDependent), 'RESERVED');
  assert.equal(isFinal(S.receivedFulfilDependent), false);
});

const FX_POSITION_EVENTS = ['fx-prepare', 'fx-abort', 'fx-timeout-reserved'];

test('fx position events in every state: applied only along the table, otherwise replayed or skipped, never asserted', () => {
  for (const state of ALL_TRANSFER_STATES) {
    for (const action of FX_POSITION_EVENTS) {
      for (const [expiresAt, limit] of [[future, 5000n], [future, 1n], [past, 5000n]]) {
        const current = conversion(state, { expiresAt, fulfilment });
        const decided = decidePositionBatch({
          events: [{ action, accountId: 1, commitRequestId: 'cr', message: { id: 'cr' } }], transfers: new Map([['cr', current]]),
          positions: new Map([[1, 400n]]), settlements: new Map([[1, -5000n]]), limits: new Map([[1, limit]]), now,
        });
        for (const update of decided.stateUpdates) assertDecided(state, update.statePath, `${action} in ${state}`);
        if (decided.stateUpdates.length === 0) assert.deepEqual(decided.positionChanges, [], `${action} in ${state} moves no position`);
      }
    }
  }
});

test('FXP answers in every state: applied only along the table, otherwise refused as expected failures', () => {
  const bodies = {
    'fx-reserve': { conversionState: 'RESERVED', fulfilment },
    'fx-commit': { conversionState: 'COMMITTED', fulfilment },
    'fx-abort': { errorInformation: { errorCode: '5100', errorDescription: 'no' } },
    'fx-reject': { conversionState: 'ABORTED' },
  };
  for (const state of ALL_TRANSFER_STATES) {
    for (const [action, body] of Object.entries(bodies)) {
      const event = { id: 'cr', type: 'fxTransfer', action, from: 'fxp', to: 'payerfsp', headers: {}, body };
      const decided = decideFxFulfilBatch({ events: [event], transfers: new Map([['cr', conversion(state)]]), now });
      for (const update of decided.stateUpdates) assertDecided(state, update.statePath, `${action} in ${state}`);
      if (state !== S.reserved) assert.deepEqual(decided.stateUpdates, [], `${action} in ${state} changes nothing`);
    }
  }
});

test('the timeout handler asserts rather than writes an expiry the table refuses for a conversion it claimed', () => {
  for (const state of ALL_TRANSFER_STATES.filter((state) => ![S.receivedPrepare, S.reserved, S.receivedFulfilDependent].includes(state))) {
    assert.throws(() => decideExpiries({ transfers: [conversion(state, { expiresAt: past })], now }), /illegal transfer transition/, state);
  }
  assert.throws(() => decideExpiries({ transfers: [conversion(S.reserved)], now }), /before its expiry/);
});
