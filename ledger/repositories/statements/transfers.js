// Every statement on the `transfer` row and its `transfer_state_change` journal, as
// `{ sql, values }` (platform/sql-text.js), and the mapper of a row back to the domain's
// transfer. The handlers' hot path queues them on its mysql2 transaction (platform/db.js
// inTransaction); the timeout sweeper, the dead-letter finisher and the admin API run the
// same statements on knex through ledger/repositories/transfers.js. A statement's text
// depends only on how many rows or ids it carries, so it is built once per shape.
//
// Locks are taken in one fixed order by every writer of these tables: transfers by id, then
// positions by account id (statements/positions.js). Each locking read sorts its keys, and
// the server locks an IN list on the primary key in key order.
import { amountFromColumn, amountToColumn } from '../../domain/money.js';
import { failure } from '../../../platform/domain/failures.js';
import { HOLDING_RESERVATION } from '../../domain/fx-expiry.js';
import { TRANSFER_KIND, TRANSFER_STATE, isFinal } from '../../domain/transfer-states.js';
import { placeholders, quoted, rowPlaceholders, textCache, uniqueSorted } from '../../../platform/sql-text.js';
import { searchKeysOfIlpPacket } from '../../../platform/fspiop/ilp-transaction.js';

const accountIdFromColumn = (value) => (value === null ? null : Number(value));

/** A `transfer` row as the domain sees it. */
export function toTransfer(row) {
  return {
    transferId: row.transfer_id,
    kind: row.kind,
    state: row.state,
    payerFsp: row.payer_fsp,
    payeeFsp: row.payee_fsp,
    payerAccountId: accountIdFromColumn(row.payer_account_id),
    payeeAccountId: accountIdFromColumn(row.payee_account_id),
    amount: amountFromColumn(row.amount),
    currency: row.currency,
    ilpCondition: row.ilp_condition,
    expiresAt: row.expires_at,
    requestHash: row.request_hash,
    completionHash: row.completion_hash,
    fulfilment: row.fulfilment,
    completedAt: row.completed_at,
    failure: row.failure_code ? failure(row.failure_code, row.failure_detail) : undefined,
    payeeError: row.payee_error_code ? { errorCode: row.payee_error_code, errorDescription: row.payee_error_description ?? '' } : undefined,
    ...conversionFields(row),
  };
}

/**
 * What links a payment and its conversion, present only on the rows that have it: a
 * conversion's target amount and currency and the payment it is for, a payment's conversion.
 */
function conversionFields(row) {
  const fields = {};
  if (row.target_amount !== null && row.target_amount !== undefined) fields.targetAmount = amountFromColumn(row.target_amount);
  if (row.target_currency) fields.targetCurrency = row.target_currency;
  if (row.determining_transfer_id) fields.determiningTransferId = row.determining_transfer_id;
  if (row.commit_request_id) fields.commitRequestId = row.commit_request_id;
  return fields;
}

const TRANSFER_COLUMNS = ['transfer_id', 'kind', 'state', 'payer_fsp', 'payee_fsp', 'payer_account_id', 'payee_account_id', 'amount',
  'currency', 'ilp_condition', 'expires_at', 'request_hash', 'completion_hash', 'fulfilment', 'completed_at', 'failure_code', 'failure_detail',
  'payee_error_code', 'payee_error_description', 'target_amount', 'target_currency', 'determining_transfer_id', 'commit_request_id'];
const TRANSFER_SELECT = `SELECT ${TRANSFER_COLUMNS.map(quoted).join(',')} FROM \`transfer\``;

const LOCKS = Object.freeze({ read: '', lock: ' FOR UPDATE', skip: ' FOR UPDATE SKIP LOCKED' });
const transfersText = textCache((key) => {
  const [count, lock] = key.split(':');
  return `${TRANSFER_SELECT} WHERE \`transfer_id\` IN (${placeholders(Number(count))}) ORDER BY \`transfer_id\`${LOCKS[lock]}`;
});

/**
 * Transfers by id; `forUpdate` locks them in id order, and with `skipLocked` leaves out the
 * rows another transaction holds instead of waiting (the timeout handler never waits while
 * holding a lock). Null when there is nothing to read.
 */
export function selectTransfers(transferIds, { forUpdate = false, skipLocked = false } = {}) {
  if (transferIds.length === 0) return null;
  const ids = uniqueSorted(transferIds);
  const lock = !forUpdate ? 'read' : skipLocked ? 'skip' : 'lock';
  return { sql: transfersText(`${ids.length}:${lock}`), values: ids };
}

/** transferId → transfer, from the rows of selectTransfers (none when it sent nothing). */
export function transfersFromRows(rows = []) {
  return new Map(rows.map((row) => [row.transfer_id, toTransfer(row)]));
}

const conversionsForText = textCache((count) => `${TRANSFER_SELECT} WHERE \`determining_transfer_id\` IN (${placeholders(count)})`
  + ' AND `kind` = ?');

/**
 * The conversions naming any of `determiningTransferIds` (read on their index): a payment's
 * prepare finds its conversion by the payment's id, an fx prepare the conversions already
 * claiming its payment. Null when there is nothing to read.
 */
export function selectConversionsFor(determiningTransferIds) {
  if (determiningTransferIds.length === 0) return null;
  const ids = uniqueSorted(determiningTransferIds);
  return { sql: conversionsForText(ids.length), values: [...ids, TRANSFER_KIND.fxTransfer] };
}

/**
 * determiningTransferId → the conversion naming it: the one that may still commit (in flight,
 * or committed) when there is one, otherwise the latest to end, since a refused or expired
 * conversion makes way for another.
 */
export function conversionsForFromRows(rows = []) {
  const found = new Map();
  const mayCommit = (conversion) => !isFinal(conversion.state) || conversion.state === TRANSFER_STATE.committed;
  for (const conversion of rows.map(toTransfer)) {
    const other = found.get(conversion.determiningTransferId);
    const later = !other || (conversion.completedAt ?? 0) >= (other.completedAt ?? 0);
    if (!other || mayCommit(conversion) || (!mayCommit(other) && later)) found.set(conversion.determiningTransferId, conversion);
  }
  return found;
}

/** Transfers in the list's order, from the rows of the timeout's reads. */
export const transferListFromRows = (rows = []) => rows.map(toTransfer);

const expiredText = `${TRANSFER_SELECT} WHERE \`state\` = ? AND \`expires_at\` <= ? ORDER BY \`expires_at\` LIMIT ? FOR UPDATE SKIP LOCKED`;

/**
 * Transfers in `state` past their expiry, oldest first, locked; rows another transaction
 * holds are skipped, so several timeout replicas never take the same transfer. One range read
 * on the (state, expires_at) index: a single read over several states would sort in a
 * filesort and keep every expired row it sorted locked, not only the `limit` it returns.
 */
export function selectExpiredTransfersForUpdate(state, now, limit) {
  return { sql: expiredText, values: [state, now, limit] };
}

const HOLDING = [...HOLDING_RESERVATION];
const expiredWaitingConversionsText = `${TRANSFER_SELECT} WHERE \`state\` = ? AND \`expires_at\` <= ? AND \`kind\` = ?`
  + ' AND NOT EXISTS (SELECT 1 FROM `transfer` `dependent` WHERE `dependent`.`transfer_id` = `transfer`.`determining_transfer_id`'
  + ` AND \`dependent\`.\`commit_request_id\` = \`transfer\`.\`transfer_id\` AND \`dependent\`.\`state\` IN (${placeholders(HOLDING.length)}))`
  + ' ORDER BY `expires_at` LIMIT ?';

/**
 * Conversions their FXP fulfilled (RECEIVED_FULFIL_DEPENDENT) past their expiry, but not
 * those whose payment holds a reservation: such a conversion ends with its payment, and
 * claiming it would take it again every round. A plain read: a locking range read here would
 * also lock the next entry of the state index (a transfer in another state that another
 * replica claims), so the caller locks the rows it found by id, skipping locked ones.
 */
export function selectExpiredWaitingConversions(now, limit) {
  return { sql: expiredWaitingConversionsText, values: [TRANSFER_STATE.receivedFulfilDependent, now, TRANSFER_KIND.fxTransfer, ...HOLDING, limit] };
}

const staleTimeoutsText = `${TRANSFER_SELECT} WHERE \`state\` = ? AND EXISTS (SELECT 1 FROM \`transfer_state_change\``
  + ' WHERE `transfer_state_change`.`transfer_id` = `transfer`.`transfer_id` AND `transfer_state_change`.`state` = ?'
  + ' AND `transfer_state_change`.`created_at` <= ?) LIMIT ?';

/** Reserved transfers the journal marked for expiry at or before `olderThan`. */
export function selectStaleTimeouts(olderThan, limit) {
  return { sql: staleTimeoutsText, values: [TRANSFER_STATE.reservedTimeout, TRANSFER_STATE.reservedTimeout, olderThan, limit] };
}

/**
 * The columns of a new transfer row, cut to their column sizes. The quote and the parties are
 * read from the ILP packet's transaction for the operators' searches (a packet that does not
 * decode leaves them empty, never refuses the row).
 */
function transferInsertRow(row, now) {
  const searchKeys = searchKeysOfIlpPacket(row.ilpPacket);
  return {
    transfer_id: row.transferId,
    kind: row.kind,
    payer_fsp: row.payerFsp?.slice(0, 32) ?? null,
    payee_fsp: row.payeeFsp?.slice(0, 32) ?? null,
    payer_account_id: row.payerAccountId ?? null,
    payee_account_id: row.payeeAccountId ?? null,
    amount: amountToColumn(row.amount),
    currency: String(row.currency).slice(0, 3),
    ilp_condition: row.ilpCondition ?? null,
    ilp_packet: row.ilpPacket ?? null,
    expires_at: row.expiresAt ?? null,
    state: row.state,
    request_hash: row.requestHash,
    failure_code: row.failure?.code ?? null,
    failure_detail: row.failure?.detail?.slice(0, 512) ?? null,
    reason: row.reason?.slice(0, 512) ?? null,
    external_reference: row.externalReference ?? null,
    target_amount: row.targetAmount === undefined ? null : amountToColumn(row.targetAmount),
    target_currency: row.targetCurrency?.slice(0, 3) ?? null,
    determining_transfer_id: row.determiningTransferId ?? null,
    commit_request_id: row.commitRequestId ?? null,
    quote_id: searchKeys.quoteId,
    payer_party: searchKeys.payerParty,
    payee_party: searchKeys.payeeParty,
    created_at: now,
    completed_at: isFinal(row.state) ? now : null,
  };
}

// The columns transferInsertRow fills, in its order (a blank row names them all).
const TRANSFER_INSERT_COLUMNS = Object.keys(transferInsertRow({ amount: 0n, state: '' }, null));
const insertTransfersText = textCache((count) => `INSERT INTO \`transfer\` (${TRANSFER_INSERT_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(TRANSFER_INSERT_COLUMNS.length, count)}`);

const STATE_CHANGE_COLUMNS = ['transfer_id', 'state', 'reason', 'created_at'];
const insertStateChangesText = textCache((count) => `INSERT INTO \`transfer_state_change\` (${STATE_CHANGE_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(STATE_CHANGE_COLUMNS.length, count)}`);

/** The journal of updates: one row per step of each update's statePath, in order. Null when there is none. */
function insertStateChanges(updates, now) {
  const values = updates.flatMap((update) => update.statePath.flatMap((state) => [
    update.transferId, state, update.reason?.slice(0, 512) ?? update.failure?.detail?.slice(0, 512) ?? null, now,
  ]));
  if (values.length === 0) return null;
  return { sql: insertStateChangesText(values.length / STATE_CHANGE_COLUMNS.length), values };
}

/**
 * New transfers, each already in the last state of its `statePath`, and their journal of
 * every step: two statements. A transfer stored in a final state (an invalid prepare, a
 * funds-in) is complete now.
 */
export function transferInsertStatements(rows, now) {
  if (rows.length === 0) return [];
  const values = rows.flatMap((row) => {
    const columns = transferInsertRow(row, now);
    return TRANSFER_INSERT_COLUMNS.map((column) => columns[column]);
  });
  const journal = rows.map((row) => ({ transferId: row.transferId, statePath: row.statePath, reason: row.reason }));
  return [{ sql: insertTransfersText(rows.length), values }, insertStateChanges(journal, now)];
}

/** The columns a decided state update changes on its transfer row. */
function stateUpdateChanges(update) {
  const changes = { state: update.statePath.at(-1) };
  if (update.completionHash) changes.completion_hash = update.completionHash;
  if (update.fulfilment) changes.fulfilment = update.fulfilment;
  if (update.completedAt) changes.completed_at = update.completedAt;
  if (update.failure) Object.assign(changes, { failure_code: update.failure.code, failure_detail: update.failure.detail.slice(0, 512) });
  if (update.payeeError) {
    Object.assign(changes, { payee_error_code: update.payeeError.errorCode ?? null, payee_error_description: update.payeeError.errorDescription?.slice(0, 128) ?? null });
  }
  return changes;
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
 * hundreds of reservations took twice as long as the IN list). The hot path sends all of them,
 * and the journal INSERT, in the batch's one round trip of writes.
 */
export function stateUpdateStatements(updates, now) {
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
