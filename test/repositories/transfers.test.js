// ledger/repositories/transfers.js (the statements of statements/transfers.js run on knex)
// against a real MariaDB: what insertTransfers and applyStateUpdates write (row and journal),
// what findTransfers maps back, that its locking read really locks, and the timeout
// handler's two set queries. Times are injected `now`
// values far from the wall clock, so nothing here waits for a transfer to expire.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase } from '../support/environment.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { TRANSFER_KIND, transition } from '../../ledger/domain/transfer-states.js';
import {
  applyStateUpdates, claimExpiredTransfers, findStaleTimeouts, findTransfers, insertTransfers,
} from '../../ledger/repositories/transfers.js';
import {
  S, deleteTransfers, isRowLocked, onboardDfsp, onboardHub, openTransaction, paymentRow, transferJournal, units, waitUntilLockWaiting,
} from './fixtures.js';

const T0 = new Date('2030-03-01T10:00:00.000Z');
const after_ = (base, ms) => new Date(base.getTime() + ms);
// Transfers that the claim and stale-timeout tests must never see expire long after their clocks.
const FAR = new Date('2099-01-01T00:00:00.000Z');

let env;
let db;
let payer;
let payee;

before(async () => {
  env = await createTestDatabase();
  db = env.db;
  const hub = await onboardHub(db, { now: T0 });
  payer = await onboardDfsp(db, { name: 'payerfsp', hub, now: T0 });
  payee = await onboardDfsp(db, { name: 'payeefsp', hub, now: T0 });
});
after(async () => { await env?.drop(); });

const rowOf = (transferId) => db('transfer').where({ transfer_id: transferId }).first();

/** Inserts rows in their own transaction, as a handler's batch does, and removes them after the test. */
async function stored(t, rows, now) {
  await db.transaction((trx) => insertTransfers(trx, rows, now));
  t.after(() => deleteTransfers(db, rows.map((row) => row.transferId)));
  return rows;
}

test('insertTransfers writes each row and one journal row per statePath step, in order, all at now', async (t) => {
  const prepared = paymentRow({ payer, payee, expiresAt: FAR });
  const reserved = paymentRow({ payer, payee, expiresAt: FAR, states: [S.receivedPrepare, S.reserved] });
  const fundsIn = { ...paymentRow({ payer, payee, states: [S.receivedPrepare, S.reserved, S.committed], kind: TRANSFER_KIND.fundsIn }), reason: 'deposit' };
  await stored(t, [prepared, reserved, fundsIn], T0);

  for (const row of [prepared, reserved, fundsIn]) {
    const journal = await transferJournal(db, row.transferId);
    assert.deepEqual(journal.map((entry) => entry.state), row.statePath, `${row.transferId}: one journal row per step`);
    for (const entry of journal) assert.equal(entry.createdAt.getTime(), T0.getTime());
    const stored_ = await rowOf(row.transferId);
    assert.equal(stored_.state, row.statePath.at(-1), 'the row is in the last state of its path');
    assert.equal(stored_.created_at.getTime(), T0.getTime());
  }
  assert.equal((await transferJournal(db, fundsIn.transferId))[0].reason, 'deposit', 'the reason is journaled with each step');
  assert.equal((await rowOf(fundsIn.transferId)).kind, TRANSFER_KIND.fundsIn);
});

test('insertTransfers sets completed_at exactly for transfers stored in a final state', async (t) => {
  const now = after_(T0, 1_000);
  const inFlight = paymentRow({ payer, payee, expiresAt: FAR, states: [S.receivedPrepare, S.reserved] });
  const invalidFailure = failure(FAILURE.validation, 'payer FSP ghostfsp is not a participant');
  const invalid = paymentRow({
    payer: { name: 'ghostfsp' }, payee, expiresAt: now, states: [S.invalid], failure: invalidFailure, reason: invalidFailure.detail,
  });
  const committed = paymentRow({ payer, payee, expiresAt: FAR, states: [S.receivedPrepare, S.reserved, S.committed], kind: TRANSFER_KIND.fundsIn });
  await stored(t, [inFlight, invalid, committed], now);

  assert.equal((await rowOf(inFlight.transferId)).completed_at, null, 'a transfer in flight is not complete');
  assert.equal((await rowOf(invalid.transferId)).completed_at.getTime(), now.getTime());
  assert.equal((await rowOf(committed.transferId)).completed_at.getTime(), now.getTime());
  const invalidRow = await rowOf(invalid.transferId);
  assert.deepEqual([invalidRow.failure_code, invalidRow.failure_detail], [invalidFailure.code, invalidFailure.detail]);
  assert.deepEqual(await transferJournal(db, invalid.transferId), [{ state: S.invalid, reason: invalidFailure.detail, createdAt: now }]);
});

test('findTransfers maps rows back: amount as scaled BigInt, account ids as numbers, null ids stay null', async (t) => {
  const valid = paymentRow({ payer, payee, amount: '12.3456', expiresAt: FAR });
  const invalidFailure = failure(FAILURE.validation, 'payee FSP nobody is not a participant');
  const invalid = paymentRow({ payer: { name: 'ghostfsp' }, payee: { name: 'nobody' }, expiresAt: T0, states: [S.invalid], failure: invalidFailure });
  await stored(t, [valid, invalid], T0);

  const missing = randomUUID();
  const found = await findTransfers(db, [invalid.transferId, valid.transferId, missing, valid.transferId]);
  assert.deepEqual([...found.keys()].sort(), [valid.transferId, invalid.transferId].sort(), 'unknown ids are absent, repeats collapse');

  const transfer = found.get(valid.transferId);
  assert.equal(transfer.amount, 123456n);
  assert.equal(transfer.payerAccountId, payer.positionAccountId);
  assert.equal(transfer.payeeAccountId, payee.positionAccountId);
  assert.equal(typeof transfer.payerAccountId, 'number');
  assert.equal(transfer.expiresAt.getTime(), FAR.getTime());
  assert.deepEqual(
    [transfer.state, transfer.payerFsp, transfer.payeeFsp, transfer.currency, transfer.ilpCondition, transfer.requestHash, transfer.kind],
    [S.receivedPrepare, payer.name, payee.name, valid.currency, valid.ilpCondition, valid.requestHash, TRANSFER_KIND.payment],
  );
  assert.equal(transfer.failure, undefined);
  assert.equal(transfer.completedAt, null);

  const rejected = found.get(invalid.transferId);
  assert.equal(rejected.payerAccountId, null);
  assert.equal(rejected.payeeAccountId, null);
  assert.deepEqual(rejected.failure, invalidFailure);
  assert.equal(rejected.completedAt.getTime(), T0.getTime());

  assert.equal((await findTransfers(db, [])).size, 0);
});

test('findTransfers with forUpdate locks the rows until the transaction ends; without it, it does not', async (t) => {
  const [row] = await stored(t, [paymentRow({ payer, payee, expiresAt: FAR })], T0);
  const holder = await openTransaction(db);
  try {
    await findTransfers(holder.trx, [row.transferId], { forUpdate: true });
    assert.equal(await isRowLocked(db, 'transfer', 'transfer_id', row.transferId), true, 'a NOWAIT read by another transaction must be refused');
  } finally {
    await holder.trx.rollback();
  }
  assert.equal(await isRowLocked(db, 'transfer', 'transfer_id', row.transferId), false, 'the lock ends with the transaction');

  const reader = await openTransaction(db);
  try {
    await findTransfers(reader.trx, [row.transferId]);
    assert.equal(await isRowLocked(db, 'transfer', 'transfer_id', row.transferId), false, 'a plain read takes no lock');
  } finally {
    await reader.trx.rollback();
  }
});

test('a second locking findTransfers waits for the first transaction and reads what it committed', async (t) => {
  const [row] = await stored(t, [paymentRow({ payer, payee, expiresAt: FAR })], T0);
  const first = await openTransaction(db);
  const second = await openTransaction(db);
  try {
    await findTransfers(first.trx, [row.transferId], { forUpdate: true });
    const waiting = findTransfers(second.trx, [row.transferId], { forUpdate: true });
    await waitUntilLockWaiting(db, second.threadId, waiting);
    await applyStateUpdates(first.trx, [{ transferId: row.transferId, statePath: transition(TRANSFER_KIND.payment, S.receivedPrepare, S.reserved) }], T0);
    await first.trx.commit();
    const seen = await waiting;
    assert.equal(seen.get(row.transferId).state, S.reserved, 'the waiting read returns the committed change, not the state it started from');
  } finally {
    if (!first.trx.isCompleted()) await first.trx.rollback();
    await second.trx.rollback();
  }
});

test('applyStateUpdates changes state, fulfilment, failure and payee error per transfer and appends their journal', async (t) => {
  const reservedPath = [S.receivedPrepare, S.reserved];
  const [fulfilled, payeeRejected, twoSteps, refused, untouched] = await stored(t, [
    paymentRow({ payer, payee, expiresAt: FAR, states: reservedPath }),
    paymentRow({ payer, payee, expiresAt: FAR, states: reservedPath }),
    paymentRow({ payer, payee, expiresAt: FAR, states: reservedPath }),
    paymentRow({ payer, payee, expiresAt: FAR }),
    paymentRow({ payer, payee, expiresAt: FAR, states: reservedPath }),
  ], T0);
  const now = after_(T0, 5_000);
  const completedAt = after_(T0, 4_000);
  const limitFailure = failure(FAILURE.netDebitCapExceeded, 'position 900 + 100 exceeds net debit cap 950');
  const longDescription = 'x'.repeat(200);
  // Updates that change different columns go through different bulk UPDATE groups.
  await db.transaction((trx) => applyStateUpdates(trx, [
    { transferId: fulfilled.transferId, statePath: transition(TRANSFER_KIND.payment, S.reserved, S.receivedFulfil), completionHash: 'hash-f', fulfilment: 'ful', completedAt },
    { transferId: payeeRejected.transferId, statePath: transition(TRANSFER_KIND.payment, S.reserved, S.receivedError), completionHash: 'hash-e',
      payeeError: { errorCode: '5100', errorDescription: longDescription } },
    { transferId: twoSteps.transferId, statePath: transition(TRANSFER_KIND.payment, S.reserved, S.receivedError, S.abortedError), completedAt: now },
    { transferId: refused.transferId, statePath: transition(TRANSFER_KIND.payment, S.receivedPrepare, S.abortedRejected), failure: limitFailure, completedAt: now },
  ], now));

  const found = await findTransfers(db, [fulfilled, payeeRejected, twoSteps, refused, untouched].map((row) => row.transferId));
  const f = found.get(fulfilled.transferId);
  assert.deepEqual([f.state, f.fulfilment, f.completionHash, f.completedAt.getTime(), f.failure], [S.receivedFulfil, 'ful', 'hash-f', completedAt.getTime(), undefined]);
  const e = await rowOf(payeeRejected.transferId);
  assert.deepEqual([e.state, e.completion_hash, e.payee_error_code, e.payee_error_description, e.completed_at],
    [S.receivedError, 'hash-e', '5100', longDescription.slice(0, 128), null]);
  assert.equal(found.get(twoSteps.transferId).state, S.abortedError);
  const r = found.get(refused.transferId);
  assert.deepEqual([r.state, r.failure, r.completedAt.getTime()], [S.abortedRejected, limitFailure, now.getTime()]);
  assert.equal(found.get(untouched.transferId).state, S.reserved, 'a transfer not in the updates is left as it was');

  const appended = async (row) => (await transferJournal(db, row.transferId)).slice(row.statePath.length);
  assert.deepEqual(await appended(fulfilled), [{ state: S.receivedFulfil, reason: null, createdAt: now }]);
  assert.deepEqual((await appended(twoSteps)).map((entry) => entry.state), [S.receivedError, S.abortedError], 'one journal row per step');
  assert.deepEqual(await appended(refused), [{ state: S.abortedRejected, reason: limitFailure.detail, createdAt: now }], 'a failure is journaled with its detail');
  assert.deepEqual(await appended(untouched), []);
});

/**
 * Runs `work(first, second)` on two transactions of their own connections, as two timeout
 * replicas would; the second may wait one second for a lock at most. Whatever `work` did
 * not commit is rolled back.
 */
async function withTwoReplicas(work) {
  const first = await openTransaction(db);
  const second = await openTransaction(db);
  // Were a claim to wait for the other transaction's locks instead of skipping them, it would
  // fail after a second rather than hang for InnoDB's default 50.
  await second.trx.raw('SET SESSION innodb_lock_wait_timeout = 1');
  try {
    return await work(first.trx, second.trx);
  } finally {
    if (!first.trx.isCompleted()) await first.trx.rollback();
    // The connection goes back to the pool: it must not keep the short timeout.
    await second.trx.raw('SET SESSION innodb_lock_wait_timeout = DEFAULT');
    if (!second.trx.isCompleted()) await second.trx.rollback();
  }
}

const idsOf = (transfers) => transfers.map((transfer) => transfer.transferId);

test('claimExpiredTransfers takes only RESERVED, then RECEIVED_PREPARE, at or past now, oldest expiry first in each, up to the limit', async (t) => {
  const now = after_(T0, 3_600_000);
  const ago = (ms) => after_(now, -ms);
  const byName = {
    preparedLongAgo: paymentRow({ payer, payee, expiresAt: ago(3_000) }),
    reservedAgo: paymentRow({ payer, payee, expiresAt: ago(2_000), states: [S.receivedPrepare, S.reserved] }),
    reservedJustNow: paymentRow({ payer, payee, expiresAt: now, states: [S.receivedPrepare, S.reserved] }),
    preparedNotYet: paymentRow({ payer, payee, expiresAt: after_(now, 1) }),
    fulfilled: paymentRow({ payer, payee, expiresAt: ago(5_000), states: [S.receivedPrepare, S.reserved, S.receivedFulfil] }),
    payeeError: paymentRow({ payer, payee, expiresAt: ago(5_000), states: [S.receivedPrepare, S.reserved, S.receivedError] }),
    markedExpired: paymentRow({ payer, payee, expiresAt: ago(5_000), states: [S.receivedPrepare, S.reserved, S.reservedTimeout] }),
    committed: paymentRow({ payer, payee, expiresAt: ago(5_000), states: [S.receivedPrepare, S.reserved, S.receivedFulfil, S.committed] }),
    invalid: paymentRow({ payer, payee, expiresAt: ago(5_000), states: [S.invalid] }),
  };
  await stored(t, Object.values(byName), T0);
  const claim = (limit) => db.transaction(async (trx) => claimExpiredTransfers(trx, now, limit));

  // Reserved transfers first: they hold the payer's position until they are released.
  assert.deepEqual(idsOf(await claim(100)), idsOf([byName.reservedAgo, byName.reservedJustNow, byName.preparedLongAgo]));
  assert.deepEqual(idsOf(await claim(2)), idsOf([byName.reservedAgo, byName.reservedJustNow]));
  assert.deepEqual(idsOf(await claim(3)), idsOf([byName.reservedAgo, byName.reservedJustNow, byName.preparedLongAgo]));
  const [first] = await claim(1);
  assert.equal(first.amount, units('100'), 'claimed rows come back through the same mapper');
  assert.equal(first.payerAccountId, payer.positionAccountId);
});

test('claimExpiredTransfers skips a transfer another transaction holds with findTransfers forUpdate', async (t) => {
  const now = after_(T0, 3_600_000);
  const [held, free] = await stored(t, [
    paymentRow({ payer, payee, expiresAt: after_(now, -2) }),
    paymentRow({ payer, payee, expiresAt: after_(now, -1) }),
  ], T0);
  // The first transaction is a fulfil or position batch holding the transfer; the second a sweep.
  await withTwoReplicas(async (holder, sweeper) => {
    await findTransfers(holder, [held.transferId], { forUpdate: true });
    const claimed = await claimExpiredTransfers(sweeper, now, 100);
    assert.deepEqual(idsOf(claimed), [free.transferId], 'the held row is skipped, not waited for');
  });
  const afterRelease = await db.transaction((trx) => claimExpiredTransfers(trx, now, 100));
  assert.deepEqual(idsOf(afterRelease), [held.transferId, free.transferId]);
});

test('two concurrent claims on two connections never take the same transfer (SKIP LOCKED) and do not wait', async (t) => {
  const now = after_(T0, 3_600_000);
  const laterNow = after_(now, 5_000);
  // Six expired by the first replica's clock; three more by the second's, a little later.
  const early = await stored(t, Array.from({ length: 6 }, (_, index) => paymentRow({ payer, payee, expiresAt: after_(now, -(index + 1) * 1000) })), T0);
  const late = await stored(t, Array.from({ length: 3 }, (_, index) => paymentRow({ payer, payee, expiresAt: after_(now, (index + 1) * 1000) })), T0);
  const lateIds = idsOf(late).sort();

  await withTwoReplicas(async (first, second) => {
    const firstClaim = await claimExpiredTransfers(first, now, 100);
    const secondClaim = await claimExpiredTransfers(second, laterNow, 100);
    assert.deepEqual(idsOf(firstClaim).sort(), idsOf(early).sort());
    assert.deepEqual(idsOf(secondClaim).filter((id) => idsOf(firstClaim).includes(id)), [], 'no transfer is claimed twice');
    assert.deepEqual(idsOf(secondClaim).sort(), lateIds, 'the second replica takes what the first does not hold, without waiting');
    // The first replica expires what it claimed and commits; the second one fails (withTwoReplicas rolls it back).
    await applyStateUpdates(first, firstClaim.map((transfer) => ({
      transferId: transfer.transferId, statePath: transition(TRANSFER_KIND.payment, transfer.state, S.expiredPrepared), completedAt: now,
    })), now);
    await first.commit();
  });
  const again = await db.transaction((trx) => claimExpiredTransfers(trx, laterNow, 100));
  assert.deepEqual(idsOf(again).sort(), lateIds, 'what the first replica expired is gone; what the second rolled back is claimable again');
});

// A locking read that sorts (a filesort over both waiting states) keeps every row it sorted
// locked, not only the `limit` it returns: a second replica would then find nothing to claim
// and fulfils of the unclaimed rest would wait for the sweep to commit.
test('a claim with a limit locks only the transfers it returns, so another replica takes the rest', async (t) => {
  const now = after_(T0, 3_600_000);
  const rows = await stored(t, Array.from({ length: 6 }, (_, index) => paymentRow({ payer, payee, expiresAt: after_(now, -(index + 1) * 1000) })), T0);
  await withTwoReplicas(async (first, second) => {
    const firstClaim = await claimExpiredTransfers(first, now, 3);
    const secondClaim = await claimExpiredTransfers(second, now, 100);
    assert.equal(firstClaim.length, 3);
    assert.deepEqual([...idsOf(firstClaim), ...idsOf(secondClaim)].sort(), idsOf(rows).sort());
  });
});

test('findStaleTimeouts finds RESERVED_TIMEOUT transfers by when the journal marked them, not when they were created', async (t) => {
  const marked = after_(T0, 600_000);
  const markedLater = after_(marked, 60_000);
  const reserved = [S.receivedPrepare, S.reserved];
  const [early, late, finished, neverMarked] = await stored(t, [
    paymentRow({ payer, payee, expiresAt: after_(T0, 1_000), states: reserved }),
    paymentRow({ payer, payee, expiresAt: after_(T0, 1_000), states: reserved }),
    paymentRow({ payer, payee, expiresAt: after_(T0, 1_000), states: reserved }),
    paymentRow({ payer, payee, expiresAt: after_(T0, 1_000), states: reserved }),
  ], T0);
  const markTimeout = (rows, now) => db.transaction((trx) => applyStateUpdates(trx, rows.map((row) => ({
    transferId: row.transferId, statePath: transition(TRANSFER_KIND.payment, S.reserved, S.reservedTimeout),
  })), now));
  await markTimeout([early, finished], marked);
  await markTimeout([late], markedLater);
  // Released meanwhile: no longer waiting for its release.
  await db.transaction((trx) => applyStateUpdates(trx, [{
    transferId: finished.transferId, statePath: transition(TRANSFER_KIND.payment, S.reservedTimeout, S.expiredReserved), completedAt: marked,
  }], after_(marked, 1)));

  const stale = async (olderThan, limit = 100) => (await findStaleTimeouts(db, olderThan, limit)).map((transfer) => transfer.transferId).sort();
  // Every row was created at T0, long before `marked`: a query on the transfer's own
  // created_at would already return `early` here.
  assert.deepEqual(await stale(after_(marked, -1)), []);
  assert.deepEqual(await stale(marked), [early.transferId], 'marked exactly at olderThan counts as stale');
  assert.deepEqual(await stale(markedLater), [early.transferId, late.transferId].sort());
  assert.equal((await stale(markedLater, 1)).length, 1, 'the limit holds');
  assert.ok(!(await stale(after_(markedLater, 3_600_000))).includes(neverMarked.transferId), 'a RESERVED transfer is not a stale timeout');
  const [found] = await findStaleTimeouts(db, marked, 100);
  assert.deepEqual([found.state, found.payerAccountId, found.amount], [S.reservedTimeout, payer.positionAccountId, units('100')]);
});
