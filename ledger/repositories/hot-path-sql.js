// The statements of the prepare, position and fulfil handlers' hot path, for a mysql2
// connection (platform/db.js, inTransaction) rather than knex: each builder returns
// `{ sql, values }` and each reader maps rows back exactly as the knex repositories do
// (transfers.js, positions.js), so the domain cannot tell the two apart. The SQL text of a
// statement depends only on how many rows or ids it carries, so it is built once per arity
// and reused; values always travel as placeholders.
//
// Locks are taken in one fixed order by every writer of these tables: transfers by id, then
// positions by account id. Each locking read sorts its keys, and the server locks an IN list
// on the primary key in key order.
import { amountFromColumn, amountToColumn } from '../domain/money.js';
import { placeholders, quoted, rowPlaceholders, textCache, uniqueSorted } from '../../platform/sql-text.js';
import { ACCOUNT_TYPE, LIMIT_TYPE } from '../domain/participants.js';
import { TRANSFER_COLUMNS, participantsFromRows, stateChangeRows, stateUpdateChanges, toTransfer, transferInsertRow } from './transfers.js';

const byNumber = (a, b) => a - b;

const TRANSFER_SELECT = `SELECT ${TRANSFER_COLUMNS.map(quoted).join(',')} FROM \`transfer\``;
const transfersText = textCache((key) => {
  const [count, lock] = key.split(':');
  return `${TRANSFER_SELECT} WHERE \`transfer_id\` IN (${placeholders(Number(count))}) ORDER BY \`transfer_id\`${lock === 'lock' ? ' FOR UPDATE' : ''}`;
});

/** Transfers by id; `forUpdate` locks them in id order. Null when there is nothing to read. */
export function selectTransfers(transferIds, { forUpdate = false } = {}) {
  if (transferIds.length === 0) return null;
  const ids = uniqueSorted(transferIds);
  return { sql: transfersText(`${ids.length}:${forUpdate ? 'lock' : 'read'}`), values: ids };
}

export function transfersFromRows(rows = []) {
  return new Map(rows.map((row) => [row.transfer_id, toTransfer(row)]));
}

const participantsText = textCache((count) => 'SELECT p.`name`, p.`is_active`, a.`id` AS `account_id`, a.`currency`, a.`is_active` AS `account_active`'
  + ' FROM `participant` p LEFT JOIN `account` a ON a.`participant_id` = p.`id` AND a.`type` = ?'
  + ` WHERE p.\`name\` IN (${placeholders(count)})`);

/**
 * Participants by name with their position accounts, read in the batch's transaction (an
 * operator may deactivate either at any time, so neither is cached).
 */
export function selectParticipantsWithPositionAccounts(names) {
  if (names.length === 0) return null;
  const unique = [...new Set(names)];
  return { sql: participantsText(unique.length), values: [ACCOUNT_TYPE.position, ...unique] };
}

/** name → { isActive, positionAccounts: Map(currency → { id, isActive }) }, the mapper transfers.js uses. */
export { participantsFromRows };

const settlementAccountsText = textCache((count) => 'SELECT pa.`id` AS `position_id`, sa.`id` AS `settlement_id` FROM `account` pa'
  + ' JOIN `account` sa ON sa.`participant_id` = pa.`participant_id` AND sa.`currency` = pa.`currency` AND sa.`type` = ?'
  + ` WHERE pa.\`id\` IN (${placeholders(count)})`);

/** positionAccountId → settlementAccountId: the same participant's account in the same currency. */
export function selectSettlementAccounts(positionAccountIds) {
  if (positionAccountIds.length === 0) return null;
  const ids = uniqueSorted(positionAccountIds, byNumber);
  return { sql: settlementAccountsText(ids.length), values: [ACCOUNT_TYPE.settlement, ...ids] };
}

export function settlementAccountsFromRows(rows = []) {
  return new Map(rows.map((row) => [Number(row.position_id), Number(row.settlement_id)]));
}

const lockPositionsText = textCache((count) => 'SELECT p.`account_id`, p.`value`, l.`value` AS `net_debit_cap` FROM `position` p'
  + ' LEFT JOIN `participant_limit` l ON l.`account_id` = p.`account_id` AND l.`type` = ?'
  + ` WHERE p.\`account_id\` IN (${placeholders(count)}) ORDER BY p.\`account_id\` FOR UPDATE`);

/**
 * Locks the positions of the accounts in account order and reads each one's net debit cap
 * with it, in one statement. The cap's row is locked too (InnoDB locks every row a locking
 * read reads), so an operator's change of the cap waits for the batch or the batch for it,
 * and the batch always checks the cap committed last. The admin API changes a cap with a
 * single UPDATE holding no other lock, so this cannot deadlock with it.
 */
export function lockPositionsWithNetDebitCaps(accountIds) {
  if (accountIds.length === 0) return null;
  const ids = uniqueSorted(accountIds, byNumber);
  return { sql: lockPositionsText(ids.length), values: [LIMIT_TYPE.netDebitCap, ...ids] };
}

/** { positions: accountId → value, limits: accountId → net debit cap (only where one is set) }, scaled BigInt. */
export function positionsWithNetDebitCapsFromRows(rows = []) {
  const positions = new Map();
  const limits = new Map();
  for (const row of rows) {
    const accountId = Number(row.account_id);
    positions.set(accountId, amountFromColumn(row.value));
    if (row.net_debit_cap !== null) limits.set(accountId, amountFromColumn(row.net_debit_cap));
  }
  return { positions, limits };
}

// The columns transferInsertRow fills, in its order (a blank row names them all).
const TRANSFER_INSERT_COLUMNS = Object.keys(transferInsertRow({ amount: 0n, state: '' }, null));
const insertTransfersText = textCache((count) => `INSERT INTO \`transfer\` (${TRANSFER_INSERT_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(TRANSFER_INSERT_COLUMNS.length, count)}`);

const STATE_CHANGE_COLUMNS = ['transfer_id', 'state', 'reason', 'created_at'];
const insertStateChangesText = textCache((count) => `INSERT INTO \`transfer_state_change\` (${STATE_CHANGE_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(STATE_CHANGE_COLUMNS.length, count)}`);

function insertStateChanges(updates, now) {
  const rows = stateChangeRows(updates, now);
  if (rows.length === 0) return null;
  return { sql: insertStateChangesText(rows.length), values: rows.flatMap((row) => STATE_CHANGE_COLUMNS.map((column) => row[column])) };
}

/**
 * New transfers, each in the last state of its `statePath`, and their journal: two
 * statements, the same rows transfers.js insertTransfers writes.
 */
export function insertTransfers(rows, now) {
  if (rows.length === 0) return [];
  const values = rows.flatMap((row) => {
    const columns = transferInsertRow(row, now);
    return TRANSFER_INSERT_COLUMNS.map((column) => columns[column]);
  });
  const journal = rows.map((row) => ({ transferId: row.transferId, statePath: row.statePath, reason: row.reason }));
  return [{ sql: insertTransfersText(rows.length), values }, insertStateChanges(journal, now)];
}

// Every column a state update may change, in the order the statement sets them.
const UPDATABLE_TRANSFER_COLUMNS = ['state', 'completion_hash', 'fulfilment', 'completed_at', 'failure_code', 'failure_detail',
  'payee_error_code', 'payee_error_description'];

/** `shape` is "rows|count of rows setting each column": one CASE per column, ELSE keeps the rest. */
const updateTransfersText = textCache((shape) => {
  const [rows, ...counts] = shape.split('|').map(Number);
  const assignments = UPDATABLE_TRANSFER_COLUMNS.flatMap((column, index) => {
    if (counts[index] === 0) return [];
    const cases = Array(counts[index]).fill('WHEN ? THEN ?').join(' ');
    return [`${quoted(column)} = CASE \`transfer_id\` ${cases} ELSE ${quoted(column)} END`];
  });
  return `UPDATE \`transfer\` SET ${assignments.join(', ')} WHERE \`transfer_id\` IN (${placeholders(rows)})`;
});

/** `shape` is "columns|rows": the same values set on every row of an IN list. */
const updateAlikeTransfersText = textCache((shape) => {
  const [columns, rows] = shape.split('|');
  const assignments = columns.split(',').map((column) => `${quoted(column)} = ?`);
  return `UPDATE \`transfer\` SET ${assignments.join(', ')} WHERE \`transfer_id\` IN (${placeholders(Number(rows))})`;
});

/** What identifies equal changes: each column's value, or its absence. */
function changesKey(changes) {
  return JSON.stringify(UPDATABLE_TRANSFER_COLUMNS.map((column) => {
    if (!(column in changes)) return 0;
    const value = changes[column];
    return [value instanceof Date ? value.getTime() : value];
  }));
}

/** Transfers that share their changes (every reservation, every commit) set them with one IN list. */
function updateAlike(ids, changes) {
  const columns = UPDATABLE_TRANSFER_COLUMNS.filter((column) => column in changes);
  return { sql: updateAlikeTransfersText(`${columns.join(',')}|${ids.length}`), values: [...columns.map((column) => changes[column]), ...ids] };
}

/** Transfers with changes of their own: one CASE per column, each row matched to its own value. */
function updateEach(changesById) {
  const values = [];
  const counts = UPDATABLE_TRANSFER_COLUMNS.map((column) => {
    let count = 0;
    for (const [transferId, changes] of changesById) {
      if (!(column in changes)) continue;
      values.push(transferId, changes[column]);
      count += 1;
    }
    return count;
  });
  values.push(...changesById.keys());
  return { sql: updateTransfersText([changesById.size, ...counts].join('|')), values };
}

/**
 * Decided state updates and their journal. Several updates of one transfer in a batch apply
 * in order, the later one winning a column, as separate UPDATEs would. Transfers whose changes
 * are equal are updated with one IN list per kind of change; the rest with one CASE statement,
 * since a CASE costs the server a comparison per WHEN for every row it updates (a batch of
 * hundreds of reservations took twice as long as the IN list). All of them, and the journal
 * INSERT, go to the server in the batch's one round trip of writes.
 */
export function applyStateUpdates(updates, now) {
  if (updates.length === 0) return [];
  const changesById = new Map();
  for (const update of updates) changesById.set(update.transferId, { ...changesById.get(update.transferId), ...stateUpdateChanges(update) });
  const alike = new Map();
  for (const [transferId, changes] of changesById) {
    const key = changesKey(changes);
    if (!alike.has(key)) alike.set(key, { changes, ids: [] });
    alike.get(key).ids.push(transferId);
  }
  const shared = [...alike.values()].filter((group) => group.ids.length > 1);
  const own = new Map([...alike.values()].filter((group) => group.ids.length === 1).map((group) => [group.ids[0], group.changes]));
  return [...shared.map((group) => updateAlike(group.ids, group.changes)), own.size > 0 ? updateEach(own) : null, insertStateChanges(updates, now)]
    .filter(Boolean);
}

const POSITION_CHANGE_COLUMNS = ['account_id', 'transfer_id', 'reason', 'change', 'value', 'created_at'];
const insertPositionChangesText = textCache((count) => `INSERT INTO \`position_change\` (${POSITION_CHANGE_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(POSITION_CHANGE_COLUMNS.length, count)}`);
const updatePositionsText = textCache((count) => `UPDATE \`position\` SET \`value\` = CASE \`account_id\` ${Array(count).fill('WHEN ? THEN ?').join(' ')} END,`
  + ` \`changed_at\` = ? WHERE \`account_id\` IN (${placeholders(count)})`);

/**
 * A plan from planPositionChanges as two statements: the journal in one INSERT, and every
 * changed account's final value in one UPDATE (the rows are locked by this transaction, so
 * the values computed from them are the ones to write).
 */
export function applyPositionPlan(plan, now) {
  if (plan.journal.length === 0) return [];
  const journalValues = plan.journal.flatMap((entry) => [
    entry.accountId, entry.transferId ?? null, entry.reason, amountToColumn(entry.change), amountToColumn(entry.value), now,
  ]);
  const accountIds = plan.changedAccountIds;
  const cases = accountIds.flatMap((accountId) => [accountId, amountToColumn(plan.finalValues.get(accountId))]);
  return [
    { sql: insertPositionChangesText(plan.journal.length), values: journalValues },
    { sql: updatePositionsText(accountIds.length), values: [...cases, now, ...accountIds] },
  ];
}

/**
 * The open settlement window, read with a shared lock after the positions: closing a window
 * takes this row's exclusive lock, so it waits for the batch's commit and the batch for the
 * close, and a committed transfer is always recorded in the window that was open when it
 * committed (see the settlement migration).
 */
export function lockOpenSettlementWindow() {
  return { sql: 'SELECT `settlement_window_id` FROM `settlement_window_open` WHERE `id` = 1 LOCK IN SHARE MODE', values: [] };
}

export function openSettlementWindowFromRows(rows = []) {
  if (rows.length !== 1) throw new Error('no open settlement window: the settlement migration seeds one and closing always opens the next');
  return Number(rows[0].settlement_window_id);
}

const WINDOW_TRANSFER_COLUMNS = ['transfer_id', 'settlement_window_id', 'payer_account_id', 'payee_account_id', 'currency', 'amount', 'committed_at'];
const insertWindowTransfersText = textCache((count) => `INSERT INTO \`settlement_window_transfer\` (${WINDOW_TRANSFER_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(WINDOW_TRANSFER_COLUMNS.length, count)}`);

/** The batch's committed transfers, recorded in the open settlement window. */
export function insertSettlementWindowTransfers(settlementWindowId, committed, now) {
  if (committed.length === 0) return null;
  const values = committed.flatMap((transfer) => [
    transfer.transferId, settlementWindowId, transfer.payerAccountId, transfer.payeeAccountId, transfer.currency, amountToColumn(transfer.amount), now,
  ]);
  return { sql: insertWindowTransfersText(committed.length), values };
}
