// Every transfer the ledger keeps (payments, funds in and funds out): the current state on the
// `transfer` row and each state change in the `transfer_state_change` journal. Set-based reads
// (locked where the caller changes them), bulk inserts and state updates, one row mapper and
// one journal writer for the handlers and the admin API alike.
import { amountFromColumn, amountToColumn } from '../domain/money.js';
import { failure } from '../../platform/domain/failures.js';
import { ACCOUNT_TYPE } from '../domain/participants.js';
import { TRANSFER_STATE, isFinal } from '../domain/transfer-states.js';
import { bulkUpdate } from '../../platform/db.js';

const accountIdFromColumn = (value) => (value === null ? null : Number(value));

/** A `transfer` row as the domain sees it (the knex and the hot-path readers share it). */
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
  };
}

export const TRANSFER_COLUMNS = ['transfer_id', 'kind', 'state', 'payer_fsp', 'payee_fsp', 'payer_account_id', 'payee_account_id', 'amount',
  'currency', 'ilp_condition', 'expires_at', 'request_hash', 'completion_hash', 'fulfilment', 'completed_at', 'failure_code', 'failure_detail',
  'payee_error_code', 'payee_error_description'];

/** Transfers by id; `forUpdate` locks them in id order (so handlers never deadlock). */
export async function findTransfers(trx, transferIds, { forUpdate = false } = {}) {
  if (transferIds.length === 0) return new Map();
  const query = trx('transfer').whereIn('transfer_id', [...new Set(transferIds)].sort()).orderBy('transfer_id').select(TRANSFER_COLUMNS);
  const rows = await (forUpdate ? query.forUpdate() : query);
  return new Map(rows.map((row) => [row.transfer_id, toTransfer(row)]));
}

/** name → { isActive, positionAccounts: Map(currency → { id, isActive }) }. */
export async function findParticipantsWithPositionAccounts(trx, names) {
  if (names.length === 0) return new Map();
  const rows = await trx('participant')
    .leftJoin('account', function joinPositionAccounts() {
      this.on('account.participant_id', 'participant.id').andOnVal('account.type', ACCOUNT_TYPE.position);
    })
    .whereIn('participant.name', [...new Set(names)])
    .select('participant.name', 'participant.is_active', 'account.id as account_id', 'account.currency', 'account.is_active as account_active');
  return participantsFromRows(rows);
}

/** Rows of participants joined with their position accounts → name → { isActive, positionAccounts }. */
export function participantsFromRows(rows = []) {
  const participants = new Map();
  for (const row of rows) {
    if (!participants.has(row.name)) participants.set(row.name, { isActive: Boolean(row.is_active), positionAccounts: new Map() });
    if (row.account_id !== null) {
      participants.get(row.name).positionAccounts.set(row.currency, { id: Number(row.account_id), isActive: Boolean(row.account_active) });
    }
  }
  return participants;
}

/** positionAccountId → settlementAccountId: the same participant's account in the same currency. */
export async function findSettlementAccounts(trx, positionAccountIds) {
  if (positionAccountIds.length === 0) return new Map();
  const rows = await trx('account as position_account')
    .join('account as settlement_account', function joinSettlement() {
      this.on('settlement_account.participant_id', 'position_account.participant_id')
        .andOn('settlement_account.currency', 'position_account.currency')
        .andOnVal('settlement_account.type', ACCOUNT_TYPE.settlement);
    })
    .whereIn('position_account.id', [...new Set(positionAccountIds)])
    .select('position_account.id as position_id', 'settlement_account.id as settlement_id');
  return new Map(rows.map((row) => [Number(row.position_id), Number(row.settlement_id)]));
}

/** positionAccountId → net debit cap. */
export async function findNetDebitCaps(trx, positionAccountIds) {
  if (positionAccountIds.length === 0) return new Map();
  const rows = await trx('participant_limit').whereIn('account_id', [...new Set(positionAccountIds)])
    .andWhere('type', 'NET_DEBIT_CAP').select('account_id', 'value');
  return new Map(rows.map((row) => [Number(row.account_id), amountFromColumn(row.value)]));
}

/**
 * Stores new transfers, each already in the last state of its `statePath`, journaling every
 * step. A transfer stored in a final state (an invalid prepare, a funds-in) is complete now.
 */
export async function insertTransfers(trx, rows, now) {
  if (rows.length === 0) return;
  await trx('transfer').insert(rows.map((row) => transferInsertRow(row, now)));
  await insertStateChanges(trx, rows.map((row) => ({ transferId: row.transferId, statePath: row.statePath, reason: row.reason })), now);
}

/** The columns of a new transfer row, cut to their column sizes. */
export function transferInsertRow(row, now) {
  return {
    transfer_id: row.transferId,
    kind: row.kind,
    payer_fsp: row.payerFsp?.slice(0, 32) ?? null,
    payee_fsp: row.payeeFsp?.slice(0, 32) ?? null,
    payer_account_id: row.payerAccountId,
    payee_account_id: row.payeeAccountId,
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
    created_at: now,
    completed_at: isFinal(row.state) ? now : null,
  };
}

/** Journal rows for updates: one per step of each update's statePath, in order. */
export function stateChangeRows(updates, now) {
  return updates.flatMap((update) => update.statePath.map((state) => ({
    transfer_id: update.transferId, state, reason: update.reason?.slice(0, 512) ?? update.failure?.detail?.slice(0, 512) ?? null, created_at: now,
  })));
}

async function insertStateChanges(trx, updates, now) {
  const rows = stateChangeRows(updates, now);
  if (rows.length > 0) await trx('transfer_state_change').insert(rows);
}

/** The columns a decided state update changes on its transfer row. */
export function stateUpdateChanges(update) {
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

/** Applies decided state updates: one UPDATE per group of alike changes, one journal insert. */
export async function applyStateUpdates(trx, updates, now) {
  await bulkUpdate(trx, 'transfer', 'transfer_id', updates.map((update) => ({ key: update.transferId, changes: stateUpdateChanges(update) })));
  await insertStateChanges(trx, updates, now);
}

/**
 * Claims transfers past their expiry that are still waiting, skipping rows another replica
 * or handler holds, so several timeout replicas never take the same transfer. One range
 * read per state on the (state, expires_at) index, oldest first: a single read over both
 * states would sort in a filesort and keep every expired row it sorted locked, not only the
 * `limit` it returns. Reserved transfers come first, since they hold the payer's position.
 */
export async function claimExpiredTransfers(trx, now, limit) {
  const claimed = [];
  for (const state of [TRANSFER_STATE.reserved, TRANSFER_STATE.receivedPrepare]) {
    if (claimed.length >= limit) break;
    const rows = await trx('transfer').where('state', state).andWhere('expires_at', '<=', now)
      .orderBy('expires_at').limit(limit - claimed.length).forUpdate().skipLocked().select(TRANSFER_COLUMNS);
    claimed.push(...rows.map(toTransfer));
  }
  return claimed;
}

/** Reserved transfers marked for expiry whose release may not have reached the position handler. */
export async function findStaleTimeouts(trx, olderThan, limit) {
  const rows = await trx('transfer').where('state', TRANSFER_STATE.reservedTimeout)
    .whereExists(function changedBefore() {
      this.select(trx.raw(1)).from('transfer_state_change').whereRaw('transfer_state_change.transfer_id = transfer.transfer_id')
        .andWhere('transfer_state_change.state', 'RESERVED_TIMEOUT').andWhere('transfer_state_change.created_at', '<=', olderThan);
    })
    .limit(limit).select(TRANSFER_COLUMNS);
  return rows.map(toTransfer);
}
