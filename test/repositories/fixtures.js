// What the repository tests share: DFSPs onboarded through the ledger's own repository and
// domain functions (the admin API's path, without HTTP), transfer rows shaped as the prepare
// decision shapes them, and the two probes a lock test needs: which connection a
// transaction runs on, and whether that connection is waiting for a row lock.
// Not a test file: `node --test test/repositories/` runs only `*.test.js`.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { FUNDS_ACTION, decideRecordFunds } from '../../ledger/domain/funds.js';
import { parseAmount } from '../../ledger/domain/money.js';
import { ACCOUNT_TYPE, HUB_ACCOUNT_TYPES, LIMIT_TYPE } from '../../ledger/domain/participants.js';
import { planPositionChanges } from '../../ledger/domain/position.js';
import { TRANSFER_KIND, TRANSFER_STATE, transition } from '../../ledger/domain/transfer-states.js';
import { insertLimit } from '../../ledger/repositories/onboarding.js';
import {
  ensureHubParticipant, findAccount, findParticipantByName, insertAccounts, insertParticipant, setAccountsActive,
} from '../../ledger/repositories/participants.js';
import { applyPositionPlan, lockPositions } from '../../ledger/repositories/positions.js';
import { findTransfers, insertTransfers } from '../../ledger/repositories/transfers.js';
import { requestHash } from '../../platform/domain/request-hash.js';

export const HUB_NAME = 'Hub';
export const CURRENCY = 'USD';
export const S = TRANSFER_STATE;

/** Scaled units of a decimal string ("100" → 1000000n), through the ledger's own parser. */
export function units(text) {
  const value = parseAmount(text, { allowNegative: true });
  assert.equal(typeof value, 'bigint', `test amount ${text} must parse`);
  return value;
}

/** The hub with its reconciliation and multilateral settlement accounts, as the admin API makes them. */
export async function onboardHub(db, { now, currency = CURRENCY }) {
  await ensureHubParticipant(db, { hubName: HUB_NAME, now });
  const hub = await findParticipantByName(db, HUB_NAME);
  await db.transaction((trx) => insertAccounts(trx, {
    participantId: hub.id, currency, types: HUB_ACCOUNT_TYPES, isActive: true, createdBy: 'test', now,
  }));
  const reconciliation = await findAccount(db, { participantId: hub.id, currency, type: ACCOUNT_TYPE.hubReconciliation });
  return { participantId: hub.id, reconciliationAccountId: reconciliation.id };
}

/**
 * A DFSP as POST /participants and POST …/initialPositionAndLimits leave it (POSITION and
 * SETTLEMENT accounts, a net debit cap, both accounts active), plus `liquidity` deposited as
 * a funds-in, decided by the funds domain and written through the transfer and position
 * repositories exactly as the admin API's funds route writes it.
 */
export async function onboardDfsp(db, { name, hub, now, netDebitCap = '1000000', liquidity = '1000000', currency = CURRENCY }) {
  const dfsp = await db.transaction(async (trx) => {
    const participantId = await insertParticipant(trx, { name, createdBy: 'test', now });
    const [positionAccountId, settlementAccountId] = await insertAccounts(trx, {
      participantId, currency, types: [ACCOUNT_TYPE.position, ACCOUNT_TYPE.settlement], isActive: false, createdBy: 'test', now,
    });
    await insertLimit(trx, { accountId: positionAccountId, type: LIMIT_TYPE.netDebitCap, value: units(netDebitCap), alarmPercentage: '10', now });
    await setAccountsActive(trx, [positionAccountId, settlementAccountId], true);
    return { name, participantId, positionAccountId, settlementAccountId };
  });
  if (units(liquidity) > 0n) await fundsIn(db, { dfsp, hub, amount: liquidity, currency, now });
  return dfsp;
}

async function fundsIn(db, { dfsp, hub, amount, currency, now }) {
  const body = { transferId: randomUUID(), action: FUNDS_ACTION.fundsIn, amount: { amount, currency }, reason: 'test deposit', externalReference: 'test' };
  const accounts = {
    settlement: { id: dfsp.settlementAccountId }, hubReconciliation: { id: hub.reconciliationAccountId }, position: { id: dfsp.positionAccountId },
  };
  await db.transaction(async (trx) => {
    const existing = (await findTransfers(trx, [body.transferId], { forUpdate: true })).get(body.transferId);
    const positionValues = await lockPositions(trx, Object.values(accounts).map((account) => account.id));
    const decision = decideRecordFunds({
      request: { ...body, amount: units(amount), currency }, requestHash: requestHash(body), existing, accounts, positionValues,
    });
    assert.equal(decision.ok, true, 'the test deposit must be accepted');
    await insertTransfers(trx, [{ ...decision.transfer, statePath: decision.statePath, reason: body.reason }], now);
    await applyPositionPlan(trx, planPositionChanges(positionValues, decision.positionChanges), now);
  });
}

/** A fulfilment and its condition, as a payee derives them. */
export function ilpPair() {
  const fulfilment = randomBytes(32).toString('base64url');
  const condition = createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url');
  return { fulfilment, condition };
}

/**
 * A transfer row (a payment unless `kind` says otherwise) as insertTransfers takes it,
 * stored in the last of `states` with the path that leads there from nothing (asserted by
 * the transition table, so no test stores a transfer the switch could never reach).
 */
export function paymentRow({
  payer, payee, amount = '100', expiresAt, states = [S.receivedPrepare], transferId = randomUUID(), kind = TRANSFER_KIND.payment, ...extra
}) {
  const statePath = transition(kind, null, ...states);
  return {
    transferId,
    kind,
    payerFsp: payer?.name ?? null,
    payeeFsp: payee?.name ?? null,
    payerAccountId: payer?.positionAccountId ?? null,
    payeeAccountId: payee?.positionAccountId ?? null,
    amount: units(amount),
    currency: CURRENCY,
    ilpCondition: ilpPair().condition,
    expiresAt,
    requestHash: requestHash({ transferId, amount }),
    state: statePath.at(-1),
    statePath,
    ...extra,
  };
}

/** The transfer's journal, oldest first: [{ state, reason, createdAt }]. */
export async function transferJournal(db, transferId) {
  const rows = await db('transfer_state_change').where({ transfer_id: transferId }).orderBy('id').select('state', 'reason', 'created_at');
  return rows.map((row) => ({ state: row.state, reason: row.reason, createdAt: row.created_at }));
}

/** Position journal rows of an account, oldest first, amounts as scaled BigInt. */
export async function positionJournal(db, accountId) {
  const rows = await db('position_change').where({ account_id: accountId }).orderBy('id').select('transfer_id', 'reason', 'change', 'value', 'created_at');
  return rows.map((row) => ({
    transferId: row.transfer_id, reason: row.reason, change: units(row.change), value: units(row.value), createdAt: row.created_at,
  }));
}

export async function positionOf(db, accountId) {
  const row = await db('position').where({ account_id: accountId }).first('value', 'changed_at');
  return { value: units(row.value), changedAt: row.changed_at };
}

/**
 * Removes transfers a test made, so that a later test's set query (claims, stale timeouts)
 * sees only its own rows. No repository deletes transfers: the ledger never does.
 */
export async function deleteTransfers(db, transferIds) {
  if (transferIds.length === 0) return;
  await db('transfer_state_change').whereIn('transfer_id', transferIds).delete();
  await db('transfer').whereIn('transfer_id', transferIds).delete();
}

/** An open transaction on a connection of its own, and that connection's server thread id. */
export async function openTransaction(db) {
  const trx = await db.transaction();
  const [[{ id }]] = await trx.raw('SELECT CONNECTION_ID() AS id');
  return { trx, threadId: Number(id) };
}

const LOCK_WAIT_DEADLINE_MS = 10_000;

/**
 * Resolves once the server reports the transaction on `threadId` waiting for a row lock
 * (InnoDB's own view, not a guess from elapsed time). Fails at once if `pending` settles
 * first: a read that should have waited came back without waiting. `pending` must be a
 * promise (a repository call), not a knex builder, which would run its query again.
 */
export async function waitUntilLockWaiting(db, threadId, pending) {
  let settled = false;
  pending.then(() => { settled = true; }, () => { settled = true; });
  const deadline = Date.now() + LOCK_WAIT_DEADLINE_MS;
  for (;;) {
    const [rows] = await db.raw('SELECT trx_state FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = ?', [threadId]);
    if (rows[0]?.trx_state === 'LOCK WAIT') return;
    if (settled) assert.fail(`the statement on connection ${threadId} finished without waiting for a lock`);
    if (Date.now() > deadline) assert.fail(`connection ${threadId} never waited for a lock within ${LOCK_WAIT_DEADLINE_MS} ms: ${await serverView(db)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** What the server says its transactions and connections are doing, for a failure message. */
async function serverView(db) {
  const [transactions] = await db.raw('SELECT trx_mysql_thread_id, trx_state, trx_query FROM information_schema.INNODB_TRX');
  const [connections] = await db.raw('SHOW FULL PROCESSLIST');
  return JSON.stringify({ transactions, connections: connections.map((row) => [row.Id, row.Command, row.State, row.Info]) });
}

/**
 * Resolves once another transaction holds a lock on the row(s) (a NOWAIT read from a
 * connection of its own is refused) while `pending` has not settled: what a statement
 * holds while it still waits for more. Fails if `pending` settles first.
 */
export async function waitUntilRowLockedWhilePending(db, { table, column, value }, pending) {
  let settled = false;
  pending.then(() => { settled = true; }, () => { settled = true; });
  const deadline = Date.now() + LOCK_WAIT_DEADLINE_MS;
  for (;;) {
    if (await isRowLocked(db, table, column, value)) {
      assert.equal(settled, false, 'the statement finished instead of waiting');
      return;
    }
    if (settled) assert.fail(`the statement finished without ever holding ${table}.${column} = ${value}`);
    if (Date.now() > deadline) assert.fail(`${table}.${column} = ${value} was never locked within ${LOCK_WAIT_DEADLINE_MS} ms: ${await serverView(db)}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** MariaDB's answer to a NOWAIT read of a locked row (ER_LOCK_WAIT_TIMEOUT). */
export function isLockedError(error) {
  return error?.code === 'ER_LOCK_WAIT_TIMEOUT' || error?.errno === 1205;
}

/** Whether the rows are locked by another transaction: a NOWAIT locking read on a connection of its own. */
export async function isRowLocked(db, table, column, value) {
  try {
    await db.transaction((trx) => trx(table).where(column, value).forUpdate().noWait().select(column));
    return false;
  } catch (error) {
    if (isLockedError(error)) return true;
    throw error;
  }
}
