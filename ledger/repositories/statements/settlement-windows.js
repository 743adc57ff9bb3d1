// The position handler's two statements on the settlement window, as `{ sql, values }`
// (platform/sql-text.js): the open window, read under a shared lock, and the committed
// transfers recorded in it. Closing and settling windows is ledger/repositories/settlements.js.
import { amountToColumn } from '../../domain/money.js';
import { quoted, rowPlaceholders, textCache } from '../../../platform/sql-text.js';

/**
 * The open settlement window, read with a shared lock after the positions: closing a window
 * takes this row's exclusive lock, so it waits for the batch's commit and the batch for the
 * close, and a committed transfer is always recorded in the window that was open when it
 * committed (see the settlement migration).
 */
export function selectOpenSettlementWindowForShare() {
  return { sql: 'SELECT `settlement_window_id` FROM `settlement_window_open` WHERE `id` = 1 LOCK IN SHARE MODE', values: [] };
}

export function openSettlementWindowFromRows(rows = []) {
  if (rows.length !== 1) throw new Error('no open settlement window: the settlement migration seeds one and closing always opens the next');
  return Number(rows[0].settlement_window_id);
}

const WINDOW_TRANSFER_COLUMNS = ['transfer_id', 'settlement_window_id', 'payer_account_id', 'payee_account_id', 'currency', 'amount', 'committed_at'];
const insertWindowTransfersText = textCache((count) => `INSERT INTO \`settlement_window_transfer\` (${WINDOW_TRANSFER_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(WINDOW_TRANSFER_COLUMNS.length, count)}`);

/** The batch's committed transfers, recorded in the open settlement window. Null when none committed. */
export function insertSettlementWindowTransfers(settlementWindowId, committed, now) {
  if (committed.length === 0) return null;
  const values = committed.flatMap((transfer) => [
    transfer.transferId, settlementWindowId, transfer.payerAccountId, transfer.payeeAccountId, transfer.currency, amountToColumn(transfer.amount), now,
  ]);
  return { sql: insertWindowTransfersText(committed.length), values };
}
