// A position batch redelivered after its database commit (its produce failed: a Kafka broker
// restart, a killed handler) must produce the same callbacks again, on every path: the
// ledger applies nothing twice, and nobody who was to be told is left untold. Each case
// decides an event once, stores what was decided as the repository would, decides the same
// event again, and compares the outcomes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { TRANSFER_KIND, TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';

const now = new Date('2026-11-22T12:00:00.000Z');
const future = new Date(now.getTime() + 60_000);
const past = new Date(now.getTime() - 1);

function transfer(state, extra = {}) {
  return {
    transferId: 't', kind: TRANSFER_KIND.payment, state, payerFsp: 'payer', payeeFsp: 'payee', payerAccountId: 1, payeeAccountId: 3,
    amount: 400n, currency: 'USD', expiresAt: future, fulfilment: 'f', ...extra,
  };
}

/** The transfer as the database holds it after `update` (ledger/repositories/statements/transfers.js). */
function stored(before, update) {
  return { ...before, state: update.statePath.at(-1), failure: update.failure ?? before.failure, completedAt: update.completedAt ?? before.completedAt };
}

function decide(event, current, { position = 0n, settlement = -10_000n, cap = 10_000n } = {}) {
  return decidePositionBatch({
    events: [event], transfers: new Map([['t', current]]), positions: new Map([[1, position], [3, 0n]]),
    settlements: new Map([[1, settlement]]), limits: new Map([[1, cap]]), now,
  });
}

const told = (outcomes) => outcomes.map((outcome) => [outcome.type, outcome.to, outcome.failure?.code ?? null, outcome.view?.state ?? null]);

const CASES = [
  ['a reservation', { action: 'prepare', accountId: 1, message: { id: 't' } }, transfer(S.receivedPrepare)],
  ['a reservation refused by the net debit cap', { action: 'prepare', accountId: 1, message: { id: 't' } }, transfer(S.receivedPrepare), { cap: 100n }],
  ['a prepare that expired while queued', { action: 'prepare', accountId: 1, message: { id: 't' } }, transfer(S.receivedPrepare, { expiresAt: past })],
  ['a commit', { action: 'commit', accountId: 3, message: { id: 't' } }, transfer(S.receivedFulfil)],
  ['a commit after a RESERVED fulfil', { action: 'commit', accountId: 3, fulfilAction: 'reserve', message: { id: 't' } }, transfer(S.receivedFulfil, { completedAt: now })],
  ['an abort the payee asked for', { action: 'abort', accountId: 1, message: { id: 't', body: { errorInformation: { errorCode: '5100' } } } }, transfer(S.receivedError)],
  ['an abort for a wrong fulfilment', { action: 'abort', accountId: 1, failure: failure(FAILURE.validation, 'invalid fulfilment'), message: { id: 't' } }, transfer(S.receivedError)],
  ['an expired reservation released', { action: 'timeout-reserved', accountId: 1, message: { id: 't' } }, transfer(S.reservedTimeout, { expiresAt: past })],
];

for (const [name, event, before, limits] of CASES) {
  test(`position redelivery: ${name} is told again and applied once`, () => {
    const first = decide(event, before, limits);
    assert.equal(first.stateUpdates.length, 1, 'the first delivery decides a change');
    assert.ok(first.outcomes.length > 0, 'the first delivery tells someone');
    const again = decide(event, stored(before, first.stateUpdates[0]), limits);
    assert.deepEqual([again.positionChanges, again.stateUpdates], [[], []], 'nothing is applied twice');
    assert.deepEqual(told(again.outcomes), told(first.outcomes), 'the same parties are told the same again');
  });
}
