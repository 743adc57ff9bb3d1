// ledger/repositories/statements/ and platform/db.js inTransaction against a real MariaDB:
// the same statements write exactly the same rows whether the handlers' mysql2 transaction or
// a knex transaction runs them, one UPDATE gives each of several rows its own values and
// leaves every other column and row alone, the positions' locking read returns each account's
// own net debit cap (none where none is set) and locks in account order, and a failed write
// rolls back the whole batch.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, testConfig } from '../support/environment.js';
import { createSqlPool, inTransaction, isDuplicateKeyError, runStatements } from '../../platform/db.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { LIMIT_TYPE } from '../../ledger/domain/participants.js';
import { planPositionChanges } from '../../ledger/domain/position.js';
import { TRANSFER_KIND, transition } from '../../ledger/domain/transfer-states.js';
import { participantsFromRows, selectParticipantsWithPositionAccounts, selectSettlementAccounts, settlementAccountsFromRows } from '../../ledger/repositories/statements/accounts.js';
import {
  positionPlanStatements, positionsWithNetDebitCapsFromRows, selectPositionsWithNetDebitCapsForUpdate,
} from '../../ledger/repositories/statements/positions.js';
import { selectTransfers, stateUpdateStatements, transferInsertStatements, transfersFromRows } from '../../ledger/repositories/statements/transfers.js';
import { lockPositions } from '../../ledger/repositories/positions.js';
import { findTransfers, insertTransfers } from '../../ledger/repositories/transfers.js';
import {
  CURRENCY, S, deleteTransfers, isRowLocked, onboardDfsp, onboardHub, openTransaction, paymentRow, positionJournal, positionOf, transferJournal, units,
  waitUntilRowLockedWhilePending,
} from './fixtures.js';

const T0 = new Date('2030-05-01T09:00:00.000Z');
const T1 = new Date('2030-05-01T09:00:07.250Z');
const FAR = new Date('2099-01-01T00:00:00.000Z');

let env;
let db;
let pool;
let hub;
let payer;
let payee;
let dfspCount = 0;

before(async () => {
  env = await createTestDatabase();
  db = env.db;
  pool = createSqlPool(testConfig().db, { database: env.name });
  hub = await onboardHub(db, { now: T0 });
  payer = await newDfsp();
  payee = await newDfsp();
});
after(async () => {
  await pool?.end();
  await env?.drop();
});

function newDfsp(options = {}) {
  dfspCount += 1;
  return onboardDfsp(db, { name: `hotfsp${dfspCount}`, hub, now: T0, ...options });
}

/** Every column of the transfers as the database holds them, each id replaced by its place in `ids`. */
async function transferRows(ids) {
  const rows = await db('transfer').whereIn('transfer_id', ids);
  return rows.map((row) => ({ ...row, transfer_id: ids.indexOf(row.transfer_id) })).sort((x, y) => x.transfer_id - y.transfer_id);
}

async function journalRows(ids) {
  const rows = await db('transfer_state_change').whereIn('transfer_id', ids).orderBy('id').select('transfer_id', 'state', 'reason', 'created_at');
  return rows.map((row) => ({ ...row, transfer_id: ids.indexOf(row.transfer_id) }));
}

/** The same transfers under fresh ids, so both writers can store them side by side. */
function twins(rows) {
  return rows.map((row) => ({ ...row, transferId: randomUUID() }));
}

test('a new transfer\'s two statements write the same rows and journal on a knex transaction as on the hot path\'s connection', async (t) => {
  const refused = failure(FAILURE.validation, 'payee FSP nobody is not a participant');
  const rows = [
    paymentRow({ payer, payee, amount: '12.3456', expiresAt: FAR, ilpPacket: 'AYIB', reason: 'r'.repeat(600) }),
    paymentRow({ payer: { name: 'ghostfsp'.repeat(5) }, payee: { name: 'nobody' }, expiresAt: T0, states: [S.invalid], failure: refused }),
  ];
  const copies = twins(rows);
  t.after(() => deleteTransfers(db, [...rows, ...copies].map((row) => row.transferId)));
  await db.transaction((trx) => runStatements(trx, transferInsertStatements(rows, T0)));
  const statements = transferInsertStatements(copies, T0);
  assert.equal(statements.length, 2);
  await inTransaction(pool, async (tx) => tx.write(...statements));

  const ids = (list) => list.map((row) => row.transferId);
  assert.deepEqual(await transferRows(ids(copies)), await transferRows(ids(rows)));
  assert.deepEqual(await journalRows(ids(copies)), await journalRows(ids(rows)));
  const [stored] = await transferRows(ids(copies));
  assert.equal(stored.amount, '12.3456', 'the amount is exact');
  assert.equal(stored.expires_at.getTime(), FAR.getTime(), 'dates are stored in UTC');
});

test('the transfers and participants read on the hot path\'s connection map as on knex', async (t) => {
  const rows = [paymentRow({ payer, payee, amount: '7.5', expiresAt: FAR })];
  t.after(() => deleteTransfers(db, rows.map((row) => row.transferId)));
  await db.transaction((trx) => insertTransfers(trx, rows, T0));
  const ids = [rows[0].transferId, randomUUID(), rows[0].transferId];
  const names = [payer.name, 'nobody', payee.name, payer.name];
  const [transferRowsRead, participantRows] = await inTransaction(pool, (tx) => tx.read(
    selectTransfers(ids), selectParticipantsWithPositionAccounts(names),
  ));
  assert.deepEqual(transfersFromRows(transferRowsRead), await findTransfers(db, ids));
  const positionAccount = (dfsp) => new Map([[CURRENCY, { id: dfsp.positionAccountId, isActive: true }]]);
  assert.deepEqual(participantsFromRows(participantRows), new Map([
    [payer.name, { isActive: true, positionAccounts: positionAccount(payer) }], [payee.name, { isActive: true, positionAccounts: positionAccount(payee) }],
  ]), 'each named participant once, with its position account; nobody is not one');
  const [nothing] = await inTransaction(pool, (tx) => tx.read(selectTransfers([])));
  assert.equal(nothing, undefined, 'an empty id list sends no statement');
  assert.equal(transfersFromRows(nothing).size, 0);
  assert.equal((await findTransfers(db, [])).size, 0, 'nor on knex');
});

test('one UPDATE gives each transfer its own columns, keeps the columns it does not set, and touches no other row', async (t) => {
  const reserved = [S.receivedPrepare, S.reserved];
  const rows = [
    paymentRow({ payer, payee, expiresAt: FAR, states: reserved }),
    paymentRow({ payer, payee, expiresAt: FAR, states: reserved }),
    paymentRow({ payer, payee, expiresAt: FAR }),
    paymentRow({ payer, payee, expiresAt: FAR, states: reserved }),
  ];
  const [fulfilled, payeeRejected, refused, untouched] = rows;
  t.after(() => deleteTransfers(db, rows.map((row) => row.transferId)));
  await db.transaction((trx) => insertTransfers(trx, rows, T0));
  const [untouchedBefore] = await transferRows([untouched.transferId]);
  const overTheCap = failure(FAILURE.netDebitCapExceeded, 'over the cap');
  const batch = (updates, now) => inTransaction(pool, async (tx) => tx.write(...stateUpdateStatements(updates, now)));
  // Two updates of one transfer in a batch: the later one adds its columns to the earlier one's.
  await batch([
    { transferId: fulfilled.transferId, statePath: transition(TRANSFER_KIND.payment, S.reserved, S.receivedFulfil), completionHash: 'hash-f', fulfilment: 'ful', completedAt: T0 },
    { transferId: payeeRejected.transferId, statePath: transition(TRANSFER_KIND.payment, S.reserved, S.receivedError), completionHash: 'hash-e',
      payeeError: { errorCode: '5100', errorDescription: 'd'.repeat(200) } },
    { transferId: payeeRejected.transferId, statePath: transition(TRANSFER_KIND.payment, S.receivedError, S.abortedError), completedAt: T1 },
  ], T0);
  // The commit sets only the state, while the refusal beside it sets completed_at and the
  // failure columns: the committed transfer must keep its own values of those.
  await batch([
    { transferId: fulfilled.transferId, statePath: transition(TRANSFER_KIND.payment, S.receivedFulfil, S.committed) },
    { transferId: refused.transferId, statePath: transition(TRANSFER_KIND.payment, S.receivedPrepare, S.abortedRejected), failure: overTheCap, completedAt: T1 },
  ], T1);

  const found = await findTransfers(db, rows.map((row) => row.transferId));
  const f = found.get(fulfilled.transferId);
  assert.deepEqual([f.state, f.completionHash, f.fulfilment, f.completedAt.getTime(), f.failure], [S.committed, 'hash-f', 'ful', T0.getTime(), undefined]);
  const e = await db('transfer').where({ transfer_id: payeeRejected.transferId }).first();
  assert.deepEqual([e.state, e.completion_hash, e.fulfilment, e.completed_at.getTime(), e.payee_error_code, e.payee_error_description],
    [S.abortedError, 'hash-e', null, T1.getTime(), '5100', 'd'.repeat(128)]);
  const r = found.get(refused.transferId);
  assert.deepEqual([r.state, r.failure, r.completedAt.getTime(), r.completionHash, r.fulfilment], [S.abortedRejected, overTheCap, T1.getTime(), null, null]);
  assert.deepEqual(await transferRows([untouched.transferId]), [untouchedBefore], 'a transfer without an update is not written');
  assert.deepEqual((await transferJournal(db, fulfilled.transferId)).map((entry) => [entry.state, entry.createdAt.getTime()]),
    [[S.receivedPrepare, T0.getTime()], [S.reserved, T0.getTime()], [S.receivedFulfil, T0.getTime()], [S.committed, T1.getTime()]]);
  assert.deepEqual((await transferJournal(db, payeeRejected.transferId)).map((entry) => entry.state),
    [S.receivedPrepare, S.reserved, S.receivedError, S.abortedError]);
  assert.deepEqual((await transferJournal(db, refused.transferId)).map((entry) => [entry.state, entry.reason]),
    [[S.receivedPrepare, null], [S.abortedRejected, 'over the cap']]);
});

test('transfers that share their changes are updated together, beside transfers with changes of their own', async (t) => {
  const reserved = [S.receivedPrepare, S.reserved];
  const rows = [
    ...Array.from({ length: 3 }, () => paymentRow({ payer, payee, expiresAt: FAR })),
    paymentRow({ payer, payee, expiresAt: FAR }),
    ...Array.from({ length: 2 }, () => paymentRow({ payer, payee, expiresAt: FAR, states: [...reserved, S.receivedFulfil] })),
    paymentRow({ payer, payee, expiresAt: FAR }),
  ];
  const [r1, r2, r3, refused, c1, c2, untouched] = rows;
  t.after(() => deleteTransfers(db, rows.map((row) => row.transferId)));
  await db.transaction((trx) => insertTransfers(trx, rows, T0));
  const [untouchedBefore] = await transferRows([untouched.transferId]);
  const overTheCap = failure(FAILURE.netDebitCapExceeded, 'over the cap');
  const reserve = (row) => ({ transferId: row.transferId, statePath: transition(TRANSFER_KIND.payment, S.receivedPrepare, S.reserved) });
  // Equal dates in distinct objects are equal changes.
  const commit = (row) => ({ transferId: row.transferId, statePath: transition(TRANSFER_KIND.payment, S.receivedFulfil, S.committed), completedAt: new Date(T1.getTime()) });
  const statements = stateUpdateStatements([
    reserve(r1), commit(c1), reserve(r2),
    { transferId: refused.transferId, statePath: transition(TRANSFER_KIND.payment, S.receivedPrepare, S.abortedRejected), failure: overTheCap, completedAt: T1 },
    commit(c2), reserve(r3),
  ], T1);
  assert.deepEqual(statements.map((statement) => statement.sql.split(' ')[0]), ['UPDATE', 'UPDATE', 'UPDATE', 'INSERT'], 'reservations, commits, the refusal, the journal');
  await inTransaction(pool, async (tx) => tx.write(...statements));

  const found = await findTransfers(db, rows.map((row) => row.transferId));
  for (const row of [r1, r2, r3]) {
    const stored = found.get(row.transferId);
    assert.deepEqual([stored.state, stored.completedAt, stored.failure], [S.reserved, null, undefined]);
  }
  for (const row of [c1, c2]) {
    const stored = found.get(row.transferId);
    assert.deepEqual([stored.state, stored.completedAt.getTime(), stored.failure], [S.committed, T1.getTime(), undefined]);
  }
  const r = found.get(refused.transferId);
  assert.deepEqual([r.state, r.failure, r.completedAt.getTime()], [S.abortedRejected, overTheCap, T1.getTime()]);
  assert.deepEqual(await transferRows([untouched.transferId]), [untouchedBefore]);
  assert.deepEqual((await transferJournal(db, c2.transferId)).map((entry) => entry.state), [S.receivedPrepare, S.reserved, S.receivedFulfil, S.committed]);
  assert.deepEqual((await transferJournal(db, r3.transferId)).map((entry) => entry.state), [S.receivedPrepare, S.reserved]);
});

test('one UPDATE of several positions gives each account exactly its own final value and leaves the others alone', async () => {
  const a = await newDfsp({ liquidity: '0' });
  const b = await newDfsp({ liquidity: '0' });
  const c = await newDfsp({ liquidity: '0' });
  const changes = [
    { accountId: a.positionAccountId, change: units('10.5'), transferId: randomUUID(), reason: 'PREPARE' },
    { accountId: b.positionAccountId, change: units('3'), transferId: randomUUID(), reason: 'PREPARE' },
    { accountId: a.positionAccountId, change: units('0.25'), transferId: randomUUID(), reason: 'PREPARE' },
    { accountId: b.positionAccountId, change: -units('1'), transferId: randomUUID(), reason: 'ABORT' },
  ];
  await inTransaction(pool, async (tx) => {
    const [rows] = await tx.read(selectPositionsWithNetDebitCapsForUpdate(changes.map((change) => change.accountId)));
    const { positions } = positionsWithNetDebitCapsFromRows(rows);
    tx.write(...positionPlanStatements(planPositionChanges(positions, changes), T1));
  });
  assert.deepEqual(await positionOf(db, a.positionAccountId), { value: units('10.75'), changedAt: T1 });
  assert.deepEqual(await positionOf(db, b.positionAccountId), { value: units('2'), changedAt: T1 });
  assert.deepEqual(await positionOf(db, c.positionAccountId), { value: 0n, changedAt: T0 }, 'an account outside the plan is not written');
  assert.deepEqual(await positionOf(db, a.settlementAccountId), { value: 0n, changedAt: T0 });
  assert.deepEqual((await positionJournal(db, a.positionAccountId)).map((entry) => [entry.transferId, entry.change, entry.value]),
    [[changes[0].transferId, units('10.5'), units('10.5')], [changes[2].transferId, units('0.25'), units('10.75')]]);
  assert.deepEqual((await positionJournal(db, b.positionAccountId)).map((entry) => [entry.reason, entry.value, entry.createdAt.getTime()]),
    [['PREPARE', units('3'), T1.getTime()], ['ABORT', units('2'), T1.getTime()]]);
});

test('the positions\' locking read returns each account\'s own net debit cap, and none where none is set', async () => {
  const capped = await newDfsp({ netDebitCap: '250.5', liquidity: '40' });
  const uncapped = await newDfsp({ netDebitCap: '999', liquidity: '0' });
  await db('participant_limit').where({ account_id: uncapped.positionAccountId, type: LIMIT_TYPE.netDebitCap }).delete();
  const ids = [capped.positionAccountId, capped.settlementAccountId, uncapped.positionAccountId, uncapped.positionAccountId];
  const [rows] = await inTransaction(pool, (tx) => tx.read(selectPositionsWithNetDebitCapsForUpdate(ids)));
  const { positions, limits } = positionsWithNetDebitCapsFromRows(rows);
  assert.deepEqual(positions, new Map([
    [capped.positionAccountId, 0n], [capped.settlementAccountId, -units('40')], [uncapped.positionAccountId, 0n],
  ].sort(([x], [y]) => x - y)));
  assert.deepEqual(limits, new Map([[capped.positionAccountId, units('250.5')]]), 'no cap for a settlement account or a position without one');
  const [settlementRows] = await inTransaction(pool, (tx) => tx.read(selectSettlementAccounts([uncapped.positionAccountId, capped.positionAccountId])));
  assert.deepEqual(settlementAccountsFromRows(settlementRows),
    new Map([[capped.positionAccountId, capped.settlementAccountId], [uncapped.positionAccountId, uncapped.settlementAccountId]]));
});

test('the positions\' locking read locks in account order: waiting for a higher account, it already holds the lower one', async () => {
  const x = await newDfsp();
  const y = await newDfsp();
  const [low, high] = [x.positionAccountId, y.positionAccountId].sort((m, n) => m - n);
  const holder = await openTransaction(db);
  let releaseLocker;
  const lockerMayEnd = new Promise((resolve) => { releaseLocker = resolve; });
  try {
    await lockPositions(holder.trx, [high]);
    let locked;
    const waiting = new Promise((resolve, reject) => {
      locked = inTransaction(pool, async (tx) => {
        const [rows] = await tx.read(selectPositionsWithNetDebitCapsForUpdate([high, low]));
        resolve(rows);
        await lockerMayEnd;
      });
      locked.catch(reject);
    });
    await waitUntilRowLockedWhilePending(db, { table: 'position', column: 'account_id', value: low }, waiting);
    await holder.trx.rollback();
    assert.deepEqual((await waiting).map((row) => Number(row.account_id)), [low, high]);
    assert.equal(await isRowLocked(db, 'position', 'account_id', high), true, 'held until the transaction ends');
    releaseLocker();
    await locked;
    assert.equal(await isRowLocked(db, 'position', 'account_id', high), false, 'released by the commit');
  } finally {
    releaseLocker();
    if (!holder.trx.isCompleted()) await holder.trx.rollback();
  }
});

test('the transfers\' locking read holds its rows until the transaction ends; the plain read holds none', async (t) => {
  const rows = [paymentRow({ payer, payee, expiresAt: FAR })];
  t.after(() => deleteTransfers(db, rows.map((row) => row.transferId)));
  await db.transaction((trx) => insertTransfers(trx, rows, T0));
  const id = rows[0].transferId;
  await inTransaction(pool, async (tx) => {
    await tx.read(selectTransfers([id], { forUpdate: true }));
    assert.equal(await isRowLocked(db, 'transfer', 'transfer_id', id), true);
  });
  assert.equal(await isRowLocked(db, 'transfer', 'transfer_id', id), false);
  await inTransaction(pool, async (tx) => {
    await tx.read(selectTransfers([id]));
    assert.equal(await isRowLocked(db, 'transfer', 'transfer_id', id), false);
  });
});

test('a write that fails rolls back every statement of its batch, and the connection serves the next batch', async () => {
  const dfsp = await newDfsp({ liquidity: '0' });
  const accountId = dfsp.positionAccountId;
  const transferId = randomUUID();
  const planOf = (positions) => planPositionChanges(positions, [{ accountId, change: units('5'), transferId, reason: 'PREPARE' }]);
  const applyOnce = () => inTransaction(pool, async (tx) => {
    const [rows] = await tx.read(selectPositionsWithNetDebitCapsForUpdate([accountId]));
    tx.write(...positionPlanStatements(planOf(positionsWithNetDebitCapsFromRows(rows).positions), T1));
  });
  await applyOnce();
  // The same (transfer, account, reason) again: the journal INSERT fails on its unique key,
  // so the position UPDATE after it never runs and nothing of the batch is kept.
  await assert.rejects(applyOnce(), (error) => isDuplicateKeyError(error));
  assert.equal((await positionOf(db, accountId)).value, units('5'));
  assert.equal((await positionJournal(db, accountId)).length, 1);
  for (let round = 0; round < 3; round += 1) {
    const [rows] = await inTransaction(pool, (tx) => tx.read(selectPositionsWithNetDebitCapsForUpdate([accountId])));
    assert.equal(positionsWithNetDebitCapsFromRows(rows).positions.get(accountId), units('5'));
  }
  assert.equal(await isRowLocked(db, 'position', 'account_id', accountId), false, 'no connection keeps a transaction open');
});
