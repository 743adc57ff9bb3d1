// The operators' look-ups of transfers (admin API GET /transfers): one transfer with its state
// journal, or the newest transfers of a quote or a party (the columns and indexes of migration
// 20261204100000_operator_lookups.js).
import { amountFromColumn } from '../domain/money.js';

const COLUMNS = ['transfer_id', 'kind', 'state', 'payer_fsp', 'payee_fsp', 'amount', 'currency', 'target_amount', 'target_currency',
  'determining_transfer_id', 'commit_request_id', 'ilp_packet', 'ilp_condition', 'expires_at', 'failure_code', 'failure_detail',
  'payee_error_code', 'payee_error_description', 'reason', 'external_reference', 'created_at', 'completed_at'];

function transferOf(row) {
  return {
    transferId: row.transfer_id, kind: row.kind, state: row.state, payerFsp: row.payer_fsp, payeeFsp: row.payee_fsp,
    amount: amountFromColumn(row.amount), currency: row.currency,
    targetAmount: row.target_amount === null ? null : amountFromColumn(row.target_amount), targetCurrency: row.target_currency,
    determiningTransferId: row.determining_transfer_id, commitRequestId: row.commit_request_id,
    ilpPacket: row.ilp_packet, condition: row.ilp_condition, expiresAt: row.expires_at,
    failureCode: row.failure_code, failureDetail: row.failure_detail, payeeErrorCode: row.payee_error_code, payeeErrorDescription: row.payee_error_description,
    reason: row.reason, externalReference: row.external_reference, createdAt: row.created_at, completedAt: row.completed_at,
  };
}

/** One transfer with its journal (`history`, oldest first), or undefined. */
export async function findTransferWithHistory(db, transferId) {
  const [row] = await db('transfer').select(COLUMNS).where({ transfer_id: transferId });
  if (!row) return undefined;
  const history = await db('transfer_state_change').select('state', 'reason', 'created_at').where({ transfer_id: transferId }).orderBy('id');
  return { ...transferOf(row), history: history.map((step) => ({ state: step.state, reason: step.reason, at: step.created_at })) };
}

/**
 * The newest `limit` transfers of quote `quoteId`, or whose payer or payee is `party`
 * ("<type>:<identifier>"); each index is read on its own and the two party halves merged.
 */
export async function searchTransfers(db, { quoteId, party, limit }) {
  const newest = (query) => query.select(COLUMNS).orderBy('created_at', 'desc').limit(limit);
  const rows = quoteId !== undefined
    ? await newest(db('transfer').where({ quote_id: quoteId }))
    : [...await newest(db('transfer').where({ payer_party: party })), ...await newest(db('transfer').where({ payee_party: party }))];
  const unique = [...new Map(rows.map((row) => [row.transfer_id, row])).values()];
  return unique.sort((a, b) => b.created_at - a.created_at).slice(0, limit).map(transferOf);
}
