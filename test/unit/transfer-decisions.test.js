import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { decidePrepareBatch } from '../../ledger/domain/prepare.js';
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { decideExpiries } from '../../ledger/domain/expiry.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { OUTCOME } from '../../ledger/domain/outcomes.js';
import { TRANSFER_KIND, TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';
import { fulfilmentMatchesCondition, isCondition } from '../../ledger/domain/ilp.js';

const now = new Date('2026-11-21T12:00:00.000Z');
const later = new Date(now.getTime() + 60_000).toISOString();
const fulfilment = randomBytes(32).toString('base64url');
const condition = createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url');

const participants = new Map([
  ['payer', { isActive: true, positionAccounts: new Map([['USD', { id: 1, isActive: true }]]) }],
  ['payee', { isActive: true, positionAccounts: new Map([['USD', { id: 3, isActive: true }]]) }],
  ['sleepy', { isActive: false, positionAccounts: new Map([['USD', { id: 5, isActive: true }]]) }],
]);

function prepare(id, overrides = {}) {
  const body = { transferId: id, payerFsp: 'payer', payeeFsp: 'payee', amount: { amount: '100', currency: 'USD' }, ilpPacket: 'AYIB', condition, expiration: later, ...overrides };
  return { id, type: 'transfer', action: 'prepare', from: overrides.from ?? body.payerFsp, to: body.payeeFsp, headers: {}, body, rawBody: JSON.stringify(body) };
}

test('ILP: a fulfilment matches only its own condition', () => {
  assert.ok(isCondition(condition));
  assert.ok(fulfilmentMatchesCondition(fulfilment, condition));
  assert.equal(fulfilmentMatchesCondition(randomBytes(32).toString('base64url'), condition), false);
  assert.equal(fulfilmentMatchesCondition('short', condition), false);
});

test('prepare: a valid transfer is stored RECEIVED_PREPARE and sent to the payer position account', () => {
  const result = decidePrepareBatch({ messages: [prepare('t1')], existing: new Map(), participants, now });
  assert.equal(result.inserts[0].state, S.receivedPrepare);
  assert.equal(result.inserts[0].amount, 1000000n);
  assert.deepEqual(result.positionEvents.map((event) => [event.accountId, event.action]), [[1, 'prepare']]);
  assert.deepEqual(result.outcomes, []);
});

test('prepare: every validation failure is reported together as 3100 to the sender', () => {
  const bad = prepare('t2', { from: 'mallory', payeeFsp: 'sleepy', condition: 'abc', expiration: '2020-01-01T00:00:00.000Z', amount: { amount: '0', currency: 'USD' } });
  const result = decidePrepareBatch({ messages: [bad], existing: new Map(), participants, now });
  assert.equal(result.inserts[0].state, S.invalid);
  assert.deepEqual(result.positionEvents, []);
  const [outcome] = result.outcomes;
  assert.equal(outcome.type, OUTCOME.error);
  assert.equal(outcome.to, 'mallory');
  assert.equal(outcome.failure.code, FAILURE.validation);
  for (const reason of ['does not match payerFsp', 'sleepy is not active', 'condition', 'in the past', 'greater than zero']) {
    assert.match(outcome.failure.detail, new RegExp(reason));
  }
  const samePayee = decidePrepareBatch({ messages: [prepare('t3', { payeeFsp: 'payer' })], existing: new Map(), participants, now });
  assert.match(samePayee.outcomes[0].failure.detail, /same/);
});

test('prepare duplicates: same body in flight is ignored, final is resent, changed body is 3106, also within a batch', () => {
  const first = decidePrepareBatch({ messages: [prepare('t4')], existing: new Map(), participants, now });
  const stored = first.inserts[0];
  const inFlight = decidePrepareBatch({ messages: [prepare('t4')], existing: new Map([['t4', stored]]), participants, now });
  assert.deepEqual([inFlight.inserts, inFlight.outcomes], [[], []], 'nothing stored again, the payer is not told');
  assert.deepEqual(inFlight.positionEvents.map((event) => event.accountId), [1], 'a redelivery reaches the position handler again');
  const reserved = decidePrepareBatch({ messages: [prepare('t4')], existing: new Map([['t4', { ...stored, state: S.reserved }]]), participants, now });
  assert.deepEqual([reserved.positionEvents, reserved.outcomes], [[], []]);
  const final = decidePrepareBatch({ messages: [prepare('t4')], existing: new Map([['t4', { ...stored, state: S.committed }]]), participants, now });
  assert.equal(final.outcomes[0].type, OUTCOME.state);
  const changed = decidePrepareBatch({ messages: [prepare('t4', { amount: { amount: '101', currency: 'USD' } })], existing: new Map([['t4', stored]]), participants, now });
  assert.equal(changed.outcomes[0].failure.code, FAILURE.modifiedRequest);
  const twice = decidePrepareBatch({ messages: [prepare('t5'), prepare('t5'), prepare('t5', { ilpPacket: 'AYIC' })], existing: new Map(), participants, now });
  assert.equal(twice.inserts.length, 1);
  assert.equal(twice.positionEvents.length, 2, 'the position handler reserves at most once');
  assert.deepEqual(twice.outcomes.map((outcome) => outcome.failure.code), [FAILURE.modifiedRequest]);
});

test('position: a duplicate later in the same batch is replayed with the failure its first copy just decided', () => {
  const release = { action: 'timeout-reserved', accountId: 1, message: { id: 'r' } };
  const expired = transfer('r', S.reservedTimeout, { expiresAt: new Date(now.getTime() - 1) });
  const twice = decidePositionBatch({ events: [release, release], transfers: new Map([['r', expired]]), positions: new Map([[1, 400n]]), settlements: new Map(), limits: new Map(), now });
  assert.equal(twice.positionChanges.length, 1, 'released once');
  assert.deepEqual(twice.outcomes.map((outcome) => [outcome.to, outcome.failure?.code]),
    [['payer', FAILURE.transferExpired], ['payee', FAILURE.transferExpired], ['payer', FAILURE.transferExpired], ['payee', FAILURE.transferExpired]]);
  const refusedPrepare = { action: 'prepare', accountId: 1, message: { id: 'p' } };
  const queued = transfer('p', S.receivedPrepare);
  const refusedTwice = decidePositionBatch({ events: [refusedPrepare, refusedPrepare], transfers: new Map([['p', queued]]), positions: new Map([[1, 4900n]]), settlements: new Map([[1, -10000n]]), limits: new Map([[1, 5000n]]), now });
  assert.deepEqual(refusedTwice.outcomes.map((outcome) => [outcome.to, outcome.failure?.code]), [['payer', FAILURE.netDebitCapExceeded], ['payer', FAILURE.netDebitCapExceeded]]);
});

function transfer(id, state, extra = {}) {
  return { transferId: id, kind: TRANSFER_KIND.payment, state, payerFsp: 'payer', payeeFsp: 'payee', payerAccountId: 1, payeeAccountId: 3, amount: 400n, currency: 'USD', expiresAt: new Date(later), ilpCondition: condition, ...extra };
}

test('position: reservations in one batch share the headroom and never exceed the net debit cap', () => {
  const ids = ['a', 'b', 'c', 'd'];
  const result = decidePositionBatch({
    events: ids.map((id) => ({ action: 'prepare', accountId: 1, message: { id } })),
    transfers: new Map(ids.map((id) => [id, transfer(id, S.receivedPrepare)])),
    positions: new Map([[1, 0n]]), settlements: new Map([[1, -5000n]]), limits: new Map([[1, 1000n]]), now,
  });
  assert.deepEqual(result.stateUpdates.map((update) => update.statePath[0]), [S.reserved, S.reserved, S.abortedRejected, S.abortedRejected]);
  assert.equal(result.positionChanges.reduce((sum, change) => sum + change.change, 0n), 800n);
  assert.deepEqual(result.outcomes.map((outcome) => outcome.type), [OUTCOME.forwardPrepare, OUTCOME.forwardPrepare, OUTCOME.error, OUTCOME.error]);
  assert.equal(result.outcomes[2].failure.code, FAILURE.netDebitCapExceeded);
});

test('position: liquidity cover refuses with 4001; commits and aborts free funds before new reservations', () => {
  const result = decidePositionBatch({
    events: [
      { action: 'prepare', accountId: 1, message: { id: 'new' } },
      { action: 'abort', accountId: 1, message: { id: 'old' } },
    ],
    transfers: new Map([['new', transfer('new', S.receivedPrepare)], ['old', transfer('old', S.receivedError)]]),
    positions: new Map([[1, 400n]]), settlements: new Map([[1, -500n]]), limits: new Map([[1, 10000n]]), now,
  });
  assert.deepEqual(result.stateUpdates.map((update) => [update.transferId, update.statePath[0]]), [['old', S.abortedError], ['new', S.reserved]]);
  const refused = decidePositionBatch({
    events: [{ action: 'prepare', accountId: 1, message: { id: 'new' } }],
    transfers: new Map([['new', transfer('new', S.receivedPrepare)]]),
    positions: new Map([[1, 400n]]), settlements: new Map([[1, -500n]]), limits: new Map([[1, 10000n]]), now,
  });
  assert.equal(refused.outcomes[0].failure.code, FAILURE.insufficientLiquidity);
});

test('position: commit lowers the payee position; reserve also PATCHes the payee; redelivery changes nothing', () => {
  const fulfilled = transfer('f', S.receivedFulfil, { fulfilment });
  const events = [{ action: 'commit', accountId: 3, fulfilAction: 'reserve', message: { id: 'f' } }, { action: 'commit', accountId: 3, message: { id: 'f' } }];
  const result = decidePositionBatch({ events, transfers: new Map([['f', fulfilled]]), positions: new Map([[3, 0n]]), settlements: new Map(), limits: new Map(), now });
  assert.deepEqual(result.positionChanges.map((change) => [change.accountId, change.change, change.reason]), [[3, -400n, 'COMMIT']]);
  assert.deepEqual(result.outcomes.map((outcome) => [outcome.type, outcome.to]),
    [[OUTCOME.state, 'payer'], [OUTCOME.patchFinalState, 'payee'], [OUTCOME.forwardFulfil, 'payer']], 'the redelivered commit is replayed, not applied');
  assert.equal(result.outcomes[0].view.state, S.committed, 'after a RESERVED fulfil the payer hears COMMITTED from the hub');
  const later = decidePositionBatch({ events: [{ action: 'prepare', accountId: 1, message: { id: 'f' } }], transfers: new Map([['f', { ...fulfilled, state: S.committed }]]), positions: new Map([[1, 0n]]), settlements: new Map([[1, 0n]]), limits: new Map([[1, 0n]]), now });
  assert.deepEqual([later.positionChanges, later.stateUpdates, later.outcomes], [[], [], []], 'a stale prepare is ignored');
  assert.throws(() => decidePositionBatch({ events: [{ action: 'commit', accountId: 1, message: { id: 'f' } }], transfers: new Map([['f', fulfilled]]), positions: new Map([[1, 0n]]), settlements: new Map(), limits: new Map(), now }), /keyed by account/);
});

test('position: a prepare that expired while queued is not reserved; an expired reservation is released and both told', () => {
  const past = new Date(now.getTime() - 1);
  const queued = decidePositionBatch({ events: [{ action: 'prepare', accountId: 1, message: { id: 'q' } }], transfers: new Map([['q', transfer('q', S.receivedPrepare, { expiresAt: past })]]), positions: new Map([[1, 0n]]), settlements: new Map([[1, -5000n]]), limits: new Map([[1, 5000n]]), now });
  assert.deepEqual([queued.positionChanges, queued.stateUpdates[0].statePath], [[], [S.expiredPrepared]]);
  const timedOut = decidePositionBatch({ events: [{ action: 'timeout-reserved', accountId: 1, message: { id: 'r' } }], transfers: new Map([['r', transfer('r', S.reservedTimeout, { expiresAt: past })]]), positions: new Map([[1, 400n]]), settlements: new Map(), limits: new Map(), now });
  assert.equal(timedOut.positionChanges[0].change, -400n);
  assert.deepEqual(timedOut.outcomes.map((outcome) => [outcome.to, outcome.failure.code]), [['payer', FAILURE.transferExpired], ['payee', FAILURE.transferExpired]]);
});

function fulfilEvent(id, action, body, from = 'payee', to = 'payer') {
  return { id, type: 'transfer', action, from, to, headers: {}, body };
}

test('fulfil: the right fulfilment from the payee goes to the payee position; a wrong one aborts', () => {
  const reserved = new Map([['t', transfer('t', S.reserved)]]);
  const good = decideFulfilBatch({ events: [fulfilEvent('t', 'commit', { transferState: 'COMMITTED', fulfilment, completedTimestamp: now.toISOString() })], transfers: reserved, now });
  assert.deepEqual(good.stateUpdates.map((update) => update.statePath[0]), [S.receivedFulfil]);
  assert.deepEqual(good.positionEvents.map((event) => [event.accountId, event.action]), [[3, 'commit']]);
  const wrong = decideFulfilBatch({ events: [fulfilEvent('t', 'commit', { transferState: 'COMMITTED', fulfilment: randomBytes(32).toString('base64url') })], transfers: reserved, now });
  assert.deepEqual(wrong.positionEvents.map((event) => [event.accountId, event.action, event.failure.code]), [[1, 'abort', FAILURE.validation]]);
});

test('fulfil: refused from the wrong party, after expiry, twice with other content, or in the wrong state', () => {
  const reserved = new Map([['t', transfer('t', S.reserved)]]);
  const body = { transferState: 'COMMITTED', fulfilment };
  const codeOf = (events, transfers = reserved, at = now) => decideFulfilBatch({ events, transfers, now: at }).outcomes.map((outcome) => outcome.failure?.code ?? outcome.type);
  assert.deepEqual(codeOf([fulfilEvent('t', 'commit', body, 'payer', 'payee')]), [FAILURE.validation]);
  assert.deepEqual(codeOf([fulfilEvent('nope', 'commit', body)]), [FAILURE.transferNotFound]);
  assert.deepEqual(codeOf([fulfilEvent('t', 'commit', body)], reserved, new Date(Date.parse(later) + 1)), [FAILURE.transferExpired]);
  const repeated = decideFulfilBatch({ events: [fulfilEvent('t', 'commit', body), fulfilEvent('t', 'commit', body), fulfilEvent('t', 'commit', { ...body, extra: 1 })], transfers: reserved, now });
  assert.deepEqual(repeated.outcomes.map((outcome) => outcome.failure.code), [FAILURE.modifiedRequest]);
  assert.equal(repeated.stateUpdates.length, 1);
  assert.equal(repeated.positionEvents.length, 2, 'the in-flight repeat reaches the position handler again, which commits once');
  assert.deepEqual(codeOf([fulfilEvent('t', 'commit', body)], new Map([['t', transfer('t', S.receivedPrepare)]])), [FAILURE.validation]);
  assert.deepEqual(codeOf([fulfilEvent('t', 'reject', { transferState: 'ABORTED' })]), [FAILURE.validation]);
});

test('fulfil: judged at the edge receipt: received before the expiry commits however late it is handled; at or after it, or once timed out, 3303', () => {
  const expiresAt = Date.parse(later);
  const handledAt = new Date(expiresAt + 5_000);
  const body = { transferState: 'COMMITTED', fulfilment };
  const receivedAt = (at, transfers = new Map([['t', transfer('t', S.reserved)]]), handlerNow = handledAt) => decideFulfilBatch({ events: [{ ...fulfilEvent('t', 'commit', body), at }], transfers, now: handlerNow });
  const inTime = receivedAt(expiresAt - 1);
  assert.deepEqual([inTime.outcomes, inTime.stateUpdates.map((update) => update.statePath[0]), inTime.positionEvents.map((event) => event.action)], [[], [S.receivedFulfil], ['commit']]);
  const codes = (decision) => [decision.stateUpdates.length, decision.outcomes.map((outcome) => [outcome.to, outcome.failure.code])];
  assert.deepEqual(codes(receivedAt(expiresAt)), [0, [['payee', FAILURE.transferExpired]]], 'received at the expiry is too late');
  assert.deepEqual(codes(receivedAt(undefined)), [0, [['payee', FAILURE.transferExpired]]], 'no receipt time: judged at the handler clock');
  // An edge clock ahead of the handler's is not believed: the handler's earlier clock judges.
  assert.deepEqual(codes(receivedAt(expiresAt + 1, undefined, now)), [1, []]);
  for (const state of [S.reservedTimeout, S.expiredReserved]) {
    const timedOut = receivedAt(expiresAt - 1, new Map([['t', transfer('t', state)]]));
    assert.deepEqual([...codes(timedOut), timedOut.positionEvents], [0, [['payee', FAILURE.transferExpired]], []], `${state}: the timeout handler came first`);
  }
});

test('fulfil: the payee error aborts toward the payer position; GET answers parties only', () => {
  const reserved = new Map([['t', transfer('t', S.reserved)]]);
  const abort = decideFulfilBatch({ events: [fulfilEvent('t', 'abort', { errorInformation: { errorCode: '5104', errorDescription: 'Payee rejected' } })], transfers: reserved, now });
  assert.deepEqual(abort.positionEvents.map((event) => [event.accountId, event.action, event.failure]), [[1, 'abort', undefined]]);
  assert.equal(abort.stateUpdates[0].payeeError.errorCode, '5104');
  const get = decideFulfilBatch({ events: [fulfilEvent('t', 'get', {}, 'payer', 'payee'), fulfilEvent('t', 'get', {}, 'mallory', 'payee')], transfers: reserved, now });
  assert.deepEqual(get.outcomes.map((outcome) => [outcome.type, outcome.to]), [[OUTCOME.state, 'payer'], [OUTCOME.error, 'mallory']]);
});

test('expiry: unreserved transfers end at once, reserved ones go to the payer position', () => {
  const past = new Date(now.getTime() - 1);
  const result = decideExpiries({ transfers: [transfer('p', S.receivedPrepare, { expiresAt: past }), transfer('r', S.reserved, { expiresAt: past })], now });
  assert.deepEqual(result.stateUpdates.map((update) => update.statePath[0]), [S.expiredPrepared, S.reservedTimeout]);
  assert.deepEqual(result.positionEvents.map((event) => [event.accountId, event.action]), [[1, 'timeout-reserved']]);
  assert.deepEqual(result.outcomes.map((outcome) => [outcome.to, outcome.failure.code]), [['payer', FAILURE.transferExpired]]);
  assert.throws(() => decideExpiries({ transfers: [transfer('x', S.reserved)], now }), /before its expiry/);
});
