// Every statement on the `bulk_transfer` row and its `bulk_transfer_item` rows, as
// `{ sql, values }` (platform/sql-text.js), and the mappers of their rows back to the domain.
// The prepare handler inserts a bulk with its items in its transaction; the bulk handler locks
// the bulk row, reads its items and records their results. Locks: a bulk row is locked before
// its items, and neither handler locks transfers or positions while it holds a bulk's.
import { failure } from '../../../platform/domain/failures.js';
import { OPEN_BULK_STATES, isBulkFinal } from '../../domain/bulk-transfer-states.js';
import { TRANSFER_STATE, isFinal } from '../../domain/transfer-states.js';
import { placeholders, quoted, rowPlaceholders, textCache, uniqueSorted } from '../../../platform/sql-text.js';

const BULK_COLUMNS = ['bulk_transfer_id', 'bulk_quote_id', 'payer_fsp', 'payee_fsp', 'expires_at', 'state', 'item_count', 'request_hash',
  'headers', 'raw_body', 'failure_code', 'failure_detail', 'created_at', 'changed_at', 'completed_at', 'request_event_at'];
const LOCKS = Object.freeze({ read: '', lock: ' FOR UPDATE' });
const bulksText = textCache((key) => {
  const [count, lock] = key.split(':');
  return `SELECT ${BULK_COLUMNS.map(quoted).join(',')} FROM \`bulk_transfer\` WHERE \`bulk_transfer_id\` IN (${placeholders(Number(count))})`
    + ` ORDER BY \`bulk_transfer_id\`${LOCKS[lock]}`;
});

/** Bulks by id, locked in id order with `forUpdate`; null when there is nothing to read. */
export function selectBulkTransfers(bulkTransferIds, { forUpdate = false } = {}) {
  if (bulkTransferIds.length === 0) return null;
  const ids = uniqueSorted(bulkTransferIds);
  return { sql: bulksText(`${ids.length}:${forUpdate ? 'lock' : 'read'}`), values: ids };
}

/** A DATETIME column's value in ms since the epoch, or undefined when it has none. */
const timeMs = (value) => (value === null || value === undefined ? undefined : new Date(value).getTime());

/** A `bulk_transfer` row as the domain sees it. */
const optionalNumber = (value) => (value === null || value === undefined ? undefined : Number(value));

export function toBulkTransfer(row) {
  return {
    bulkTransferId: row.bulk_transfer_id,
    bulkQuoteId: row.bulk_quote_id,
    payerFsp: row.payer_fsp,
    payeeFsp: row.payee_fsp,
    expiresAt: row.expires_at,
    state: row.state,
    itemCount: Number(row.item_count),
    requestHash: row.request_hash,
    headers: JSON.parse(row.headers),
    rawBody: row.raw_body,
    failure: row.failure_code ? failure(row.failure_code, row.failure_detail) : undefined,
    completedAt: row.completed_at,
    changedAtMs: timeMs(row.changed_at),
    requestEventAtMs: optionalNumber(row.request_event_at),
  };
}

/** bulkTransferId → bulk, from the rows of selectBulkTransfers. */
export function bulkTransfersFromRows(rows = []) {
  return new Map(rows.map((row) => [row.bulk_transfer_id, toBulkTransfer(row)]));
}

const ITEM_COLUMNS = ['bulk_transfer_id', 'transfer_id', 'item_index', 'prepare_result', 'failure_code', 'failure_detail',
  'final_result', 'fulfilment', 'error_code', 'error_description', 'changed_at', 'prepare_event_at', 'final_event_at'];
const itemsText = textCache((count) => `SELECT ${ITEM_COLUMNS.map(quoted).join(',')} FROM \`bulk_transfer_item\``
  + ` WHERE \`bulk_transfer_id\` IN (${placeholders(count)}) ORDER BY \`bulk_transfer_id\`, \`item_index\``);

/** The items of the bulks, in each bulk's order (read after the bulks are locked). */
export function selectBulkItems(bulkTransferIds) {
  if (bulkTransferIds.length === 0) return null;
  const ids = uniqueSorted(bulkTransferIds);
  return { sql: itemsText(ids.length), values: ids };
}

/**
 * bulkTransferId → its items in order, each `{ transferId, itemIndex, prepareResult, failure?,
 * finalResult, fulfilment?, errorInformation?, changedAtMs, prepareEventAtMs?, finalEventAtMs? }`
 * (the event times of its results, ledger/migrations/20261202100000_bulk_item_result_event_time.js).
 */
export function bulkItemsFromRows(rows = []) {
  const items = new Map();
  for (const row of rows) {
    if (!items.has(row.bulk_transfer_id)) items.set(row.bulk_transfer_id, []);
    items.get(row.bulk_transfer_id).push({
      transferId: row.transfer_id,
      itemIndex: Number(row.item_index),
      prepareResult: row.prepare_result,
      failure: row.failure_code ? failure(row.failure_code, row.failure_detail) : undefined,
      finalResult: row.final_result,
      fulfilment: row.fulfilment ?? undefined,
      errorInformation: row.error_code ? { errorCode: row.error_code, errorDescription: row.error_description ?? '' } : undefined,
      changedAtMs: timeMs(row.changed_at),
      prepareEventAtMs: optionalNumber(row.prepare_event_at),
      finalEventAtMs: optionalNumber(row.final_event_at),
    });
  }
  return items;
}

const INSERT_BULK_COLUMNS = ['bulk_transfer_id', 'bulk_quote_id', 'payer_fsp', 'payee_fsp', 'expires_at', 'state', 'item_count', 'request_hash',
  'headers', 'raw_body', 'created_at', 'changed_at', 'request_event_at'];
const insertBulksText = textCache((count) => `INSERT INTO \`bulk_transfer\` (${INSERT_BULK_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(INSERT_BULK_COLUMNS.length, count)}`);
const INSERT_ITEM_COLUMNS = ['bulk_transfer_id', 'transfer_id', 'item_index', 'changed_at'];
const insertItemsText = textCache((count) => `INSERT INTO \`bulk_transfer_item\` (${INSERT_ITEM_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(INSERT_ITEM_COLUMNS.length, count)}`);

/** New bulks and their items (bulks first: an item references its bulk). */
export function bulkInsertStatements(bulks, items, now) {
  if (bulks.length === 0) return [];
  const bulkValues = bulks.flatMap((bulk) => [
    bulk.bulkTransferId, bulk.bulkQuoteId, bulk.payerFsp.slice(0, 32), bulk.payeeFsp.slice(0, 32), bulk.expiresAt, bulk.state, bulk.itemCount,
    bulk.requestHash, JSON.stringify(bulk.headers), bulk.rawBody, now, now, bulk.requestEventAtMs ?? null,
  ]);
  const itemValues = items.flatMap((item) => [item.bulkTransferId, item.transferId, item.itemIndex, now]);
  return [{ sql: insertBulksText(bulks.length), values: bulkValues }, { sql: insertItemsText(items.length), values: itemValues }];
}

const recordResultText = 'UPDATE `bulk_transfer_item` SET `prepare_result` = ?, `failure_code` = ?, `failure_detail` = ?, `changed_at` = ?, `prepare_event_at` = ?'
  + ' WHERE `bulk_transfer_id` = ? AND `transfer_id` = ? AND `prepare_result` IS NULL';

/**
 * Records item prepare results, each only if its item has none yet: a redelivered result
 * changes nothing. One statement per result, all sent with the COMMIT.
 */
export function itemResultStatements(results, now) {
  return results.map((result) => ({
    sql: recordResultText,
    values: [result.result, result.failure?.code ?? null, result.failure?.detail?.slice(0, 512) ?? null, now, result.eventAtMs ?? null, result.bulkTransferId, result.transferId],
  }));
}

const recordFinalText = 'UPDATE `bulk_transfer_item` SET `final_result` = ?, `fulfilment` = ?, `error_code` = ?, `error_description` = ?,'
  + ' `changed_at` = ?, `final_event_at` = ? WHERE `bulk_transfer_id` = ? AND `transfer_id` = ? AND `final_result` IS NULL';

/**
 * Records item final results (COMMITTED with the fulfilment, ABORTED with the errorInformation
 * the payer is told), each only if its item has none yet, as itemResultStatements does.
 */
export function itemFinalStatements(results, now) {
  return results.map((result) => ({
    sql: recordFinalText,
    values: [
      result.result, result.fulfilment ?? null, result.errorInformation?.errorCode?.slice(0, 4) ?? null,
      result.errorInformation?.errorDescription?.slice(0, 128) ?? null, now, result.eventAtMs ?? null, result.bulkTransferId, result.transferId,
    ],
  }));
}

const updateBulkStateText = 'UPDATE `bulk_transfer` SET `state` = ?, `changed_at` = ?, `completed_at` = ? WHERE `bulk_transfer_id` = ?';

/** A bulk's decided state change (its path's last state); a final state completes it. */
export function bulkStateStatement(update, now) {
  const state = update.statePath.at(-1);
  return { sql: updateBulkStateText, values: [state, now, isBulkFinal(state) ? now : null, update.bulkTransferId] };
}

const bulkOfTransfersText = textCache((count) => 'SELECT `transfer_id`, `bulk_transfer_id` FROM `bulk_transfer_item`'
  + ` WHERE \`transfer_id\` IN (${placeholders(count)})`);

/** The bulk each of the transfers belongs to, if any (by the items' transfer_id index); null when there is nothing to read. */
export function selectBulksOfTransfers(transferIds) {
  if (transferIds.length === 0) return null;
  const ids = uniqueSorted(transferIds);
  return { sql: bulkOfTransfersText(ids.length), values: ids };
}

/** transferId → bulkTransferId, from the rows of selectBulksOfTransfers. */
export function bulksOfTransfersFromRows(rows = []) {
  return new Map(rows.map((row) => [row.transfer_id, row.bulk_transfer_id]));
}

const OPEN_TRANSFER_STATES = Object.values(TRANSFER_STATE).filter((state) => !isFinal(state));
const stuckBulksText = `SELECT b.\`bulk_transfer_id\`, b.\`state\` FROM \`bulk_transfer\` b WHERE b.\`state\` IN (${placeholders(OPEN_BULK_STATES.length)})`
  + ' AND b.`expires_at` <= ? AND NOT EXISTS (SELECT 1 FROM `bulk_transfer_item` i JOIN `transfer` t ON t.`transfer_id` = i.`transfer_id`'
  + ` WHERE i.\`bulk_transfer_id\` = b.\`bulk_transfer_id\` AND (t.\`state\` IN (${placeholders(OPEN_TRANSFER_STATES.length)}) OR t.\`completed_at\` > ?))`
  + ' ORDER BY b.`expires_at` LIMIT ?';

/**
 * Bulks still waiting for their items' results (OPEN_BULK_STATES) that expired at or before
 * `settledBy` and none of whose transfers is still open or ended after it: every result their
 * transfers sent has had that long to arrive, so what they miss was lost. A plain read (the
 * `(state, expires_at)` index).
 */
export function selectStuckBulks(settledBy, limit) {
  return { sql: stuckBulksText, values: [...OPEN_BULK_STATES, settledBy, ...OPEN_TRANSFER_STATES, settledBy, limit] };
}
