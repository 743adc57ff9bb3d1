// ledger/repositories/positions.js against a real MariaDB: lockPositions reads and locks in
// account order (the order that keeps concurrent batches from deadlocking), applyPositionPlan
// writes the maintained row and its journal, and the journal's unique (transfer, account,
// reason) key refuses a change applied twice. Each test onboards DFSPs of its own, so the
// positions it asserts are its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase } from '../support/environment.js';
import { isDuplicateKeyError } from '../../platform/db.js';
import { ACCOUNT_TYPE } from '../../ledger/domain/participants.js';
import { planPositionChanges } from '../../ledger/domain/position.js';
import { insertAccounts, insertParticipant } from '../../ledger/repositories/participants.js';
import { applyPositionPlan, listPositionsWithNetDebitCaps, lockPositions } from '../../ledger/repositories/positions.js';
import {
  HUB_NAME, isRowLocked, onboardDfsp, onboardHub, openTransaction, positionJournal, positionOf, units, waitUntilRowLockedWhilePending,
} from './fixtures.js';

const T0 = new Date('2030-04-01T08:00:00.000Z');
const T1 = new Date('2030-04-01T08:00:05.000Z');

let env;
let db;
let hub;
let dfspCount = 0;

before(async () => {
  env = await createTestDatabase();
  db = env.db;
  hub = await onboardHub(db, { now: T0 });
});
after(async () => { await env?.drop(); });

function newDfsp(options = {}) {
  dfspCount += 1;
  return onboardDfsp(db, { name: `posfsp${dfspCount}`, hub, now: T0, ...options });
}

/** Locks, plans and applies `changes` in one transaction, as the position handler does. */
function applyChanges(changes, now = T1) {
  return db.transaction(async (trx) => {
    const locked = await lockPositions(trx, changes.map((change) => change.accountId));
    await applyPositionPlan(trx, planPositionChanges(locked, changes), now);
  });
}

test('lockPositions returns each requested account once, keyed by number, with its value as scaled BigInt', async () => {
  const dfsp = await newDfsp({ liquidity: '500.25' });
  const locked = await db.transaction((trx) => lockPositions(trx, [dfsp.settlementAccountId, dfsp.positionAccountId, dfsp.settlementAccountId]));
  assert.deepEqual([...locked.keys()].sort((a, b) => a - b), [dfsp.positionAccountId, dfsp.settlementAccountId]);
  assert.equal(locked.get(dfsp.positionAccountId), 0n);
  assert.equal(locked.get(dfsp.settlementAccountId), -units('500.25'), 'the deposit shows as a negative settlement value');
  assert.equal((await db.transaction((trx) => lockPositions(trx, []))).size, 0);
});

test('lockPositions locks in account order: waiting for a higher account, it already holds the lower one', async () => {
  const a = await newDfsp();
  const b = await newDfsp();
  const [low, high] = [a.positionAccountId, b.positionAccountId].sort((x, y) => x - y);
  const holder = await openTransaction(db);
  const locker = await openTransaction(db);
  try {
    await lockPositions(holder.trx, [high]);
    assert.equal(await isRowLocked(db, 'position', 'account_id', low), false, 'only the requested row is locked');
    // Asked for in descending order: locking in the order given would wait on `high` first
    // and leave `low` free.
    const waiting = lockPositions(locker.trx, [high, low]);
    // The lower account becomes locked while the statement still waits for the higher one.
    await waitUntilRowLockedWhilePending(db, { table: 'position', column: 'account_id', value: low }, waiting);
    await holder.trx.rollback();
    assert.deepEqual([...(await waiting).keys()].sort((x, y) => x - y), [low, high]);
  } finally {
    if (!holder.trx.isCompleted()) await holder.trx.rollback();
    await locker.trx.rollback();
  }
});

test('applyPositionPlan writes one journal row per change with running values and the final value per account', async () => {
  const payer = await newDfsp();
  const payee = await newDfsp();
  const untouched = await newDfsp();
  const [t1, t2, t3] = [randomUUID(), randomUUID(), randomUUID()];
  await applyChanges([
    { accountId: payer.positionAccountId, change: units('100'), transferId: t1, reason: 'PREPARE' },
    { accountId: payee.positionAccountId, change: -units('30.5'), transferId: t3, reason: 'COMMIT' },
    { accountId: payer.positionAccountId, change: units('50'), transferId: t2, reason: 'PREPARE' },
  ]);

  assert.deepEqual(await positionJournal(db, payer.positionAccountId), [
    { transferId: t1, reason: 'PREPARE', change: units('100'), value: units('100'), createdAt: T1 },
    { transferId: t2, reason: 'PREPARE', change: units('50'), value: units('150'), createdAt: T1 },
  ]);
  assert.deepEqual(await positionOf(db, payer.positionAccountId), { value: units('150'), changedAt: T1 });
  assert.deepEqual(await positionOf(db, payee.positionAccountId), { value: -units('30.5'), changedAt: T1 });
  assert.deepEqual(await positionOf(db, untouched.positionAccountId), { value: 0n, changedAt: T0 }, 'an account without changes is not written');

  await applyChanges([], new Date(T1.getTime() + 1000));
  assert.equal((await positionOf(db, payer.positionAccountId)).changedAt.getTime(), T1.getTime(), 'an empty plan writes nothing');
});

test('the same (transfer, account, reason) applied twice is refused and the position moves once', async () => {
  const payer = await newDfsp();
  const transferId = randomUUID();
  const reserve = { accountId: payer.positionAccountId, change: units('100'), transferId, reason: 'PREPARE' };
  await applyChanges([reserve]);

  await assert.rejects(applyChanges([reserve], new Date(T1.getTime() + 1000)), (error) => isDuplicateKeyError(error));
  assert.equal((await positionOf(db, payer.positionAccountId)).value, units('100'), 'the refused batch rolled back: no second reservation');
  assert.equal((await positionJournal(db, payer.positionAccountId)).length, 1);

  await assert.rejects(applyChanges([
    { accountId: payer.positionAccountId, change: -units('100'), transferId, reason: 'ABORT' },
    { accountId: payer.positionAccountId, change: -units('100'), transferId, reason: 'ABORT' },
  ]), (error) => isDuplicateKeyError(error), 'a twice-listed change within one batch is refused too');
  assert.equal((await positionOf(db, payer.positionAccountId)).value, units('100'));
});

test('the unique key allows what a transfer legitimately does: another reason, another account, changes without a transfer', async () => {
  const payer = await newDfsp();
  const payee = await newDfsp();
  const transferId = randomUUID();
  await applyChanges([{ accountId: payer.positionAccountId, change: units('70'), transferId, reason: 'PREPARE' }]);
  await applyChanges([{ accountId: payer.positionAccountId, change: -units('70'), transferId, reason: 'ABORT' }]);
  await applyChanges([{ accountId: payee.positionAccountId, change: -units('70'), transferId, reason: 'ABORT' }]);
  // An initial position names no transfer; NULLs never collide in a unique key.
  await applyChanges([{ accountId: payer.positionAccountId, change: units('5'), reason: 'INITIAL_POSITION' }]);
  await applyChanges([{ accountId: payer.positionAccountId, change: units('5'), reason: 'INITIAL_POSITION' }]);

  assert.deepEqual((await positionJournal(db, payer.positionAccountId)).map((entry) => [entry.reason, entry.value]), [
    ['PREPARE', units('70')], ['ABORT', 0n], ['INITIAL_POSITION', units('5')], ['INITIAL_POSITION', units('10')],
  ]);
  assert.equal((await positionOf(db, payer.positionAccountId)).value, units('10'));
});

test('listPositionsWithNetDebitCaps lists DFSP positions with their caps, null without one, never the hub', async () => {
  const capped = await newDfsp({ netDebitCap: '750.5' });
  await applyChanges([{ accountId: capped.positionAccountId, change: units('20'), transferId: randomUUID(), reason: 'PREPARE' }]);
  const uncapped = await db.transaction(async (trx) => {
    const participantId = await insertParticipant(trx, { name: 'nocapfsp', createdBy: 'test', now: T0 });
    await insertAccounts(trx, { participantId, currency: 'EUR', types: [ACCOUNT_TYPE.position, ACCOUNT_TYPE.settlement], isActive: true, createdBy: 'test', now: T0 });
    return 'nocapfsp';
  });

  const listed = await listPositionsWithNetDebitCaps(db, { hubName: HUB_NAME });
  assert.deepEqual(listed.find((row) => row.name === capped.name), { name: capped.name, currency: 'USD', position: units('20'), netDebitCap: units('750.5') });
  assert.deepEqual(listed.find((row) => row.name === uncapped), { name: uncapped, currency: 'EUR', position: 0n, netDebitCap: null });
  assert.equal(listed.filter((row) => row.name === HUB_NAME).length, 0);
  assert.equal(listed.filter((row) => row.name === capped.name).length, 1, 'only the POSITION account, not the SETTLEMENT one');
});
