// The transfer decisions where Mojaloop's acceptance tests found us different (issue #13):
// the API version of a RESERVED fulfil, the PATCH after an invalid RESERVED fulfil, expiry
// judged at the edge's receipt, and on-us transfers. Pure domain, no mocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { decidePrepareBatch } from '../../ledger/domain/prepare.js';
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { apiVersionOf, decideFulfilBatch, reservedFulfilSupported } from '../../ledger/domain/fulfil.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { OUTCOME } from '../../ledger/domain/outcomes.js';
import { TRANSFER_KIND, TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';

const now = new Date('2026-11-21T12:00:00.000Z');
const later = new Date(now.getTime() + 60_000).toISOString();
const fulfilment = randomBytes(32).toString('base64url');
const condition = createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url');
const media = (version) => `application/vnd.interoperability.transfers+json;version=${version}`;

const participants = new Map([
  ['payer', { isActive: true, positionAccounts: new Map([['USD', { id: 1, isActive: true }]]) }],
  ['payee', { isActive: true, positionAccounts: new Map([['USD', { id: 3, isActive: true }]]) }],
]);

function prepare(id, overrides = {}, at = undefined) {
  const body = { transferId: id, payerFsp: 'payer', payeeFsp: 'payee', amount: { amount: '100', currency: 'USD' }, ilpPacket: 'AYIB', condition, expiration: later, ...overrides };
  return { id, type: 'transfer', action: 'prepare', from: body.payerFsp, to: body.payeeFsp, headers: {}, body, at };
}

function transfer(id, state, extra = {}) {
  return { transferId: id, kind: TRANSFER_KIND.payment, state, payerFsp: 'payer', payeeFsp: 'payee', payerAccountId: 1, payeeAccountId: 3, amount: 400n, currency: 'USD', expiresAt: new Date(later), ilpCondition: condition, ...extra };
}

function fulfilEvent(id, action, body, contentType = media('1.1')) {
  return { id, type: 'transfer', action, from: 'payee', to: 'payer', headers: { 'content-type': contentType }, body };
}

test('the API version is read from the Content-Type; RESERVED fulfils exist from 1.1 on', () => {
  assert.deepEqual(apiVersionOf(media('1.0')), { major: 1, minor: 0 });
  assert.deepEqual(apiVersionOf(`${media('1.1')}; charset=utf-8`), { major: 1, minor: 1 });
  assert.deepEqual(apiVersionOf('application/vnd.interoperability.transfers+json; version=2'), { major: 2, minor: 0 });
  assert.equal(apiVersionOf('application/json'), null);
  assert.equal(apiVersionOf(undefined), null);
  assert.equal(reservedFulfilSupported(media('1.0')), false);
  assert.equal(reservedFulfilSupported(media('1')), false);
  assert.equal(reservedFulfilSupported(media('1.1')), true);
  assert.equal(reservedFulfilSupported(media('2.0')), true);
});

test('fulfil: a RESERVED fulfil sent as 1.0 changes nothing and tells nobody; as 1.1 it commits; a COMMITTED one as 1.0 commits', () => {
  const reserved = new Map([['t', transfer('t', S.reserved)]]);
  const body = { transferState: 'RESERVED', fulfilment, completedTimestamp: now.toISOString() };
  const old = decideFulfilBatch({ events: [fulfilEvent('t', 'reserve', body, media('1.0'))], transfers: reserved, now });
  assert.deepEqual([old.stateUpdates, old.positionEvents, old.outcomes], [[], [], []]);
  // A GET in the same batch still sees the transfer RESERVED.
  const withGet = decideFulfilBatch({ events: [fulfilEvent('t', 'reserve', body, media('1.0')), fulfilEvent('t', 'get', {})], transfers: reserved, now });
  assert.deepEqual(withGet.outcomes.map((outcome) => [outcome.type, outcome.to, outcome.view.state]), [[OUTCOME.state, 'payee', S.reserved]]);
  const current = decideFulfilBatch({ events: [fulfilEvent('t', 'reserve', body)], transfers: reserved, now });
  assert.deepEqual(current.positionEvents.map((event) => [event.action, event.fulfilAction]), [['commit', 'reserve']]);
  const committed = decideFulfilBatch({ events: [fulfilEvent('t', 'commit', { ...body, transferState: 'COMMITTED' }, media('1.0'))], transfers: reserved, now });
  assert.deepEqual(committed.positionEvents.map((event) => event.action), ['commit']);
});

test('an invalid RESERVED fulfil: the payer and payee get the error and the payee a PATCH ABORTED, also when redelivered', () => {
  const reserved = new Map([['t', transfer('t', S.reserved)]]);
  const wrong = { transferState: 'RESERVED', fulfilment: randomBytes(32).toString('base64url') };
  const fulfilled = decideFulfilBatch({ events: [fulfilEvent('t', 'reserve', wrong)], transfers: reserved, now });
  const [event] = fulfilled.positionEvents;
  assert.deepEqual([event.action, event.fulfilAction, event.failure.code], ['abort', 'reserve', FAILURE.validation]);
  const positionEvent = { ...event, message: { id: 't' } };
  const decide = (state, extra) => decidePositionBatch({
    events: [positionEvent], transfers: new Map([['t', transfer('t', state, extra)]]), positions: new Map([[1, 400n]]), settlements: new Map(), limits: new Map(), now,
  });
  const told = (result) => result.outcomes.map((outcome) => [outcome.type, outcome.to, outcome.failure?.code ?? outcome.view.state]);
  const expected = [[OUTCOME.error, 'payer', FAILURE.validation], [OUTCOME.error, 'payee', FAILURE.validation], [OUTCOME.patchFinalState, 'payee', S.abortedError]];
  const first = decide(S.receivedError);
  assert.deepEqual(told(first), expected);
  assert.equal(first.outcomes[2].view.completedAt, now);
  const replayed = decide(S.abortedError, { failure: event.failure, completedAt: now });
  assert.deepEqual([replayed.positionChanges, told(replayed)], [[], expected]);
  // A COMMITTED fulfil with a wrong fulfilment gets no PATCH: that payee asked for none.
  const plain = decidePositionBatch({
    events: [{ ...positionEvent, fulfilAction: 'commit' }], transfers: new Map([['t', transfer('t', S.receivedError)]]), positions: new Map([[1, 400n]]), settlements: new Map(), limits: new Map(), now,
  });
  assert.deepEqual(plain.outcomes.map((outcome) => outcome.type), [OUTCOME.error, OUTCOME.error]);
});

test('prepare: expiry is judged when the edge accepted it, not when the batch is decided', () => {
  const expiration = new Date(now.getTime() - 1000).toISOString();
  const acceptedInTime = decidePrepareBatch({ messages: [prepare('a', { expiration }, now.getTime() - 2000)], existing: new Map(), participants, now });
  assert.equal(acceptedInTime.inserts[0].state, S.receivedPrepare);
  assert.deepEqual(acceptedInTime.positionEvents.map((event) => event.action), ['prepare']);
  const acceptedLate = decidePrepareBatch({ messages: [prepare('b', { expiration }, now.getTime() - 500)], existing: new Map(), participants, now });
  assert.match(acceptedLate.outcomes[0].failure.detail, /in the past/);
  const withoutAt = decidePrepareBatch({ messages: [prepare('c', { expiration })], existing: new Map(), participants, now });
  assert.match(withoutAt.outcomes[0].failure.detail, /in the past/);
  // A receipt time from the future (a broken clock) is not believed.
  const future = decidePrepareBatch({ messages: [prepare('d', { expiration }, now.getTime() + 5000)], existing: new Map(), participants, now });
  assert.match(future.outcomes[0].failure.detail, /in the past/);
});

test('prepare: on-us is refused by default and, when allowed, goes to the one position account', () => {
  const onUs = prepare('u', { payeeFsp: 'payer' });
  const refused = decidePrepareBatch({ messages: [onUs], existing: new Map(), participants, now });
  assert.match(refused.outcomes[0].failure.detail, /payer and payee FSP are the same/);
  const allowed = decidePrepareBatch({ messages: [onUs], existing: new Map(), participants, now, onUsAllowed: true });
  assert.deepEqual(allowed.outcomes, []);
  assert.deepEqual([allowed.inserts[0].payerAccountId, allowed.inserts[0].payeeAccountId], [1, 1]);
  const reserved = transfer('u', S.receivedPrepare, { payeeFsp: 'payer', payeeAccountId: 1, amount: 1000000n });
  const reserve = decidePositionBatch({
    events: [{ action: 'prepare', accountId: 1, message: onUs }], transfers: new Map([['u', reserved]]), positions: new Map([[1, 0n]]), settlements: new Map([[1, -5000000n]]), limits: new Map([[1, 5000000n]]), now,
  });
  const commit = decidePositionBatch({
    events: [{ action: 'commit', accountId: 1, message: { id: 'u' } }], transfers: new Map([['u', { ...reserved, state: S.receivedFulfil }]]), positions: new Map([[1, 1000000n]]), settlements: new Map(), limits: new Map(), now,
  });
  const changes = [...reserve.positionChanges, ...commit.positionChanges];
  assert.deepEqual(changes.map((change) => [change.accountId, change.reason]), [[1, 'PREPARE'], [1, 'COMMIT']]);
  assert.equal(changes.reduce((sum, change) => sum + change.change, 0n), 0n, 'the position nets to zero');
});
