// Transfers with their current state on the row and every state change in a journal.
import { amountFromColumn, amountToColumn } from '../domain/money.js';

function toTransfer(row) {
  return row && {
    transferId: row.transfer_id,
    kind: row.kind,
    payerFsp: row.payer_fsp,
    payeeFsp: row.payee_fsp,
    payerAccountId: Number(row.payer_account_id),
    payeeAccountId: Number(row.payee_account_id),
    amount: amountFromColumn(row.amount),
    currency: row.currency,
    state: row.state,
    requestHash: row.request_hash,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

export async function findTransfer(trx, transferId, { forUpdate = false } = {}) {
  const query = trx('transfer').where({ transfer_id: transferId }).first();
  return toTransfer(await (forUpdate ? query.forUpdate() : query));
}

function stateChangeRows(transferId, statePath, reason, now) {
  return statePath.map((state) => ({ transfer_id: transferId, state, reason: reason ?? null, created_at: now }));
}

/** Stores a new transfer already in the last state of `statePath`, journaling each step. */
export async function insertTransfer(trx, { transfer, statePath, reason, externalReference, now, isFinal }) {
  await trx('transfer').insert({
    transfer_id: transfer.transferId,
    kind: transfer.kind,
    payer_fsp: transfer.payerFsp ?? null,
    payee_fsp: transfer.payeeFsp ?? null,
    payer_account_id: transfer.payerAccountId,
    payee_account_id: transfer.payeeAccountId,
    amount: amountToColumn(transfer.amount),
    currency: transfer.currency,
    state: transfer.state,
    request_hash: transfer.requestHash,
    reason: reason ?? null,
    external_reference: externalReference ?? null,
    created_at: now,
    completed_at: isFinal ? now : null,
  });
  await trx('transfer_state_change').insert(stateChangeRows(transfer.transferId, statePath, reason, now));
}

export async function updateTransferState(trx, { transferId, statePath, reason, now, isFinal }) {
  const state = statePath[statePath.length - 1];
  await trx('transfer').where({ transfer_id: transferId }).update({ state, ...(isFinal ? { completed_at: now } : {}) });
  await trx('transfer_state_change').insert(stateChangeRows(transferId, statePath, reason, now));
}
