// What the switch does with a transfer whose message became a dead letter, and which
// failures are retried without limit instead: pure decisions, no I/O.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Kafka from 'node-rdkafka';
import { decideDeadLetteredTransfer } from '../../ledger/domain/dead-letters.js';
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { OUTCOME } from '../../ledger/domain/outcomes.js';
import { TRANSFER_KIND, TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';
import { isTransientFailure } from '../../platform/transient-failures.js';
import { decodeDeadLetter, encodeDeadLetter } from '../../platform/kafka/dead-letters.js';

const now = new Date('2026-11-22T12:00:00.000Z');
const failed = failure(FAILURE.processingFailed, 'set aside');

function stored(state, extra = {}) {
  return { transferId: 't', kind: TRANSFER_KIND.payment, state, payerFsp: 'payer', payeeFsp: 'payee', payerAccountId: 1, payeeAccountId: 3, amount: 400n, ...extra };
}
const prepare = { id: 't', type: 'transfer', action: 'prepare', from: 'payer', to: 'payee' };
const fulfil = { id: 't', type: 'transfer', action: 'commit', from: 'payee', to: 'payer' };
const commit = { id: 't', type: 'position', action: 'commit', accountId: 3, from: 'payee' };
const told = (decision) => decision.outcomes.map((outcome) => [outcome.type, outcome.to, outcome.failure.code]);

test('a transfer never stored: only its sender hears, with 2001', () => {
  const decision = decideDeadLetteredTransfer({ event: prepare, transfer: undefined, failure: failed, now });
  assert.deepEqual(told(decision), [[OUTCOME.error, 'payer', FAILURE.processingFailed]]);
  assert.deepEqual([decision.stateUpdates, decision.positionEvents], [[], []]);
});

test('a transfer waiting for its reservation is refused and its payer told; the payee never heard of it', () => {
  const decision = decideDeadLetteredTransfer({ event: prepare, transfer: stored(S.receivedPrepare), failure: failed, now });
  assert.deepEqual(decision.stateUpdates.map((update) => update.statePath), [[S.abortedRejected]]);
  assert.deepEqual(told(decision), [[OUTCOME.error, 'payer', FAILURE.processingFailed]]);
  assert.deepEqual(decision.positionEvents, []);
});

test('a reserved transfer is marked in error and released through the payer\'s position account', () => {
  const decision = decideDeadLetteredTransfer({ event: fulfil, transfer: stored(S.reserved), failure: failed, now });
  assert.deepEqual(decision.stateUpdates.map((update) => update.statePath), [[S.receivedError]]);
  assert.deepEqual(decision.positionEvents.map((event) => [event.accountId, event.action, event.failure.code]), [[1, 'abort', FAILURE.processingFailed]]);
});

test('a commit that cannot be applied is released instead, and the position handler tells payer and payee 2001', () => {
  const decision = decideDeadLetteredTransfer({ event: commit, transfer: stored(S.receivedFulfil), failure: failed, now });
  assert.deepEqual(decision.stateUpdates, []);
  const [release] = decision.positionEvents;
  const position = decidePositionBatch({
    events: [{ action: release.action, accountId: release.accountId, failure: release.failure, message: { id: 't' } }],
    transfers: new Map([['t', stored(S.receivedFulfil)]]), positions: new Map([[1, 400n]]), settlements: new Map(), limits: new Map(), now,
  });
  assert.deepEqual(position.positionChanges.map((change) => [change.accountId, change.change]), [[1, -400n]]);
  assert.equal(position.stateUpdates[0].failure.code, FAILURE.processingFailed, 'the failure is stored, so a redelivery tells the same');
  assert.deepEqual(told(position).map(([, to, code]) => [to, code]), [['payer', FAILURE.processingFailed], ['payee', FAILURE.processingFailed]]);
});

test('nobody ends someone else\'s transfer with a bad message, nor with a GET', () => {
  const intruder = decideDeadLetteredTransfer({ event: { ...fulfil, from: 'intruder' }, transfer: stored(S.reserved), failure: failed, now });
  assert.deepEqual([intruder.stateUpdates, intruder.positionEvents], [[], []]);
  assert.deepEqual(told(intruder), [[OUTCOME.error, 'intruder', FAILURE.processingFailed]]);
  const get = decideDeadLetteredTransfer({ event: { ...fulfil, action: 'get' }, transfer: stored(S.reserved), failure: failed, now });
  assert.deepEqual([get.stateUpdates, get.positionEvents], [[], []]);
  const payeePrepare = decideDeadLetteredTransfer({ event: { ...prepare, from: 'payee' }, transfer: stored(S.receivedPrepare), failure: failed, now });
  assert.deepEqual(payeePrepare.stateUpdates, []);
});

test('a final transfer, or one already being aborted or expired, is left to its own events', () => {
  for (const state of [S.committed, S.abortedError, S.receivedError, S.reservedTimeout, S.expiredReserved]) {
    const decision = decideDeadLetteredTransfer({ event: commit, transfer: stored(state), failure: failed, now });
    assert.deepEqual(decision, { stateUpdates: [], positionEvents: [], outcomes: [] }, state);
  }
});

// The shape of node-rdkafka's LibrdKafkaError, which the library does not export.
const kafkaError = (code) => Object.assign(new Error(`librdkafka ${code}`), { code, errno: code, origin: 'local' });

test('outages are transient; what belongs to the message is not', () => {
  for (const code of ['ECONNREFUSED', 'PROTOCOL_CONNECTION_LOST', 'ER_LOCK_DEADLOCK', 'ER_LOCK_WAIT_TIMEOUT']) {
    assert.equal(isTransientFailure(Object.assign(new Error(code), { code })), true, code);
  }
  assert.equal(isTransientFailure(Object.assign(new Error('pool'), { name: 'KnexTimeoutError' })), true);
  assert.equal(isTransientFailure(kafkaError(Kafka.CODES.ERRORS.ERR__MSG_TIMED_OUT)), true);
  assert.equal(isTransientFailure(kafkaError(Kafka.CODES.ERRORS.ERR_MSG_SIZE_TOO_LARGE)), false);
  assert.equal(isTransientFailure(Object.assign(new Error('Incorrect datetime value'), { code: 'ER_TRUNCATED_WRONG_VALUE' })), false);
  assert.equal(isTransientFailure(new TypeError('Cannot mix BigInt and other types')), false);
  assert.equal(isTransientFailure(new AggregateError([Object.assign(new Error('x'), { transient: true })])), true);
  assert.equal(isTransientFailure(new AggregateError([Object.assign(new Error('x'), { transient: true }), new TypeError('bug')])), false);
});

test('a dead letter keeps the original bytes, key and origin', () => {
  const value = Buffer.from([0xff, 0x00, 0x7b]);
  const record = decodeDeadLetter(encodeDeadLetter({
    handler: 'prepare', message: { topic: 'p', partition: 2, offset: 41, key: 'k', value, timestamp: 5 }, error: new RangeError('bad'), failures: 3, at: now,
  }));
  assert.deepEqual(record.value, value);
  assert.deepEqual([record.handler, record.topic, record.partition, record.offset, record.key, record.failures], ['prepare', 'p', 2, 41, 'k', 3]);
  assert.deepEqual(record.error, { name: 'RangeError', code: null, message: 'bad' });
});

test('a dead letter written without its value says how large the value was', () => {
  const record = decodeDeadLetter(encodeDeadLetter({
    handler: 'prepare', message: { topic: 'p', partition: 0, offset: 1, key: 'k', value: Buffer.alloc(900) }, error: new Error('x'), failures: 3, withValue: false,
  }));
  assert.equal(record.value, null);
  assert.deepEqual([record.valueOmitted, record.valueBytes], [true, 900]);
});
