// Every statement on the `position` rows (each account's maintained current value) and their
// `position_change` journal, as `{ sql, values }` (platform/sql-text.js), run by the position
// handler's mysql2 transaction or on knex through ledger/repositories/positions.js. Positions
// are locked in account order, after the transfers (statements/transfers.js), by every writer.
import { amountFromColumn, amountToColumn } from '../../domain/money.js';
import { LIMIT_TYPE } from '../../domain/participants.js';
import { placeholders, quoted, rowPlaceholders, textCache, uniqueSorted } from '../../../platform/sql-text.js';

const byNumber = (a, b) => a - b;

const insertZeroPositionsText = textCache((count) => 'INSERT INTO `position` (`account_id`, `value`, `reserved_value`, `changed_at`) VALUES '
  + rowPlaceholders(4, count));

/** A zero position for each new account (onboarding), so every account has a position to lock. */
export function insertZeroPositions(accountIds, now) {
  if (accountIds.length === 0) return null;
  return { sql: insertZeroPositionsText(accountIds.length), values: accountIds.flatMap((accountId) => [accountId, '0', '0', now]) };
}

const lockPositionsText = textCache((count) => 'SELECT `account_id`, `value` FROM `position`'
  + ` WHERE \`account_id\` IN (${placeholders(count)}) ORDER BY \`account_id\` FOR UPDATE`);

/** Locks the positions of the accounts in account order. Null when there is nothing to lock. */
export function selectPositionsForUpdate(accountIds) {
  if (accountIds.length === 0) return null;
  const ids = uniqueSorted(accountIds, byNumber);
  return { sql: lockPositionsText(ids.length), values: ids };
}

/** accountId → value as scaled BigInt, from the rows of either locking read. */
export function positionsFromRows(rows = []) {
  return new Map(rows.map((row) => [Number(row.account_id), amountFromColumn(row.value)]));
}

const lockPositionsWithCapsText = textCache((count) => 'SELECT p.`account_id`, p.`value`, l.`value` AS `net_debit_cap` FROM `position` p'
  + ' LEFT JOIN `participant_limit` l ON l.`account_id` = p.`account_id` AND l.`type` = ?'
  + ` WHERE p.\`account_id\` IN (${placeholders(count)}) ORDER BY p.\`account_id\` FOR UPDATE`);

/**
 * Locks the positions of the accounts in account order and reads each one's net debit cap
 * with it, in one statement. The cap's row is locked too (InnoDB locks every row a locking
 * read reads), so an operator's change of the cap waits for the batch or the batch for it,
 * and the batch always checks the cap committed last. The admin API changes a cap with a
 * single UPDATE holding no other lock, so this cannot deadlock with it.
 */
export function selectPositionsWithNetDebitCapsForUpdate(accountIds) {
  if (accountIds.length === 0) return null;
  const ids = uniqueSorted(accountIds, byNumber);
  return { sql: lockPositionsWithCapsText(ids.length), values: [LIMIT_TYPE.netDebitCap, ...ids] };
}

/** { positions: accountId → value, limits: accountId → net debit cap (only where one is set) }, scaled BigInt. */
export function positionsWithNetDebitCapsFromRows(rows = []) {
  const limits = new Map();
  for (const row of rows) {
    if (row.net_debit_cap !== null) limits.set(Number(row.account_id), amountFromColumn(row.net_debit_cap));
  }
  return { positions: positionsFromRows(rows), limits };
}

const POSITION_CHANGE_COLUMNS = ['account_id', 'transfer_id', 'reason', 'change', 'value', 'created_at'];
const insertPositionChangesText = textCache((count) => `INSERT INTO \`position_change\` (${POSITION_CHANGE_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(POSITION_CHANGE_COLUMNS.length, count)}`);
const updatePositionsText = textCache((count) => `UPDATE \`position\` SET \`value\` = CASE \`account_id\` ${Array(count).fill('WHEN ? THEN ?').join(' ')} END,`
  + ` \`changed_at\` = ? WHERE \`account_id\` IN (${placeholders(count)})`);

/**
 * A plan from planPositionChanges as two statements: the journal in one INSERT, and every
 * changed account's final value in one UPDATE (the rows are locked by this transaction, so
 * the values computed from them are the ones to write). None when the plan changes nothing.
 */
export function positionPlanStatements(plan, now) {
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
