// Quotes for the quoting handler, as mysql2 statements (`{ sql, values }`, run by
// platform/db.js inTransaction; platform/sql-text.js): set-based reads (locked, so that two
// consumers of one partition during a rebalance cannot both change a quote), bulk inserts
// and updates. A batch reads its quotes and their DFSPs in one round trip and writes with
// its COMMIT in another.
import {
  bulkUpdateStatements, placeholders, quoted, rowPlaceholders, textCache, uniqueSorted,
} from '../../platform/sql-text.js';
import { participantStatesStatementFor } from '../../ledger/ports/participant-directory.js';

const QUOTE_COLUMNS = ['quote_id', 'payer_fsp', 'payee_fsp', 'state', 'request_hash', 'request_at', 'answer_hash', 'answer_at',
  'ilp_condition', 'answer_error_code', 'answer_headers', 'answer_body'];

// BIGINT columns come back as strings (platform/db.js); epoch milliseconds fit a Number.
const epochMs = (value) => (value === null || value === undefined ? null : Number(value));

function toQuote(row) {
  return {
    quoteId: row.quote_id,
    payerFsp: row.payer_fsp,
    payeeFsp: row.payee_fsp,
    state: row.state,
    requestHash: row.request_hash,
    requestAt: epochMs(row.request_at),
    answerHash: row.answer_hash,
    answerAt: epochMs(row.answer_at),
    answer: row.answer_body === null ? null : {
      headers: JSON.parse(row.answer_headers ?? '{}'),
      rawBody: row.answer_body,
      condition: row.ilp_condition,
      errorCode: row.answer_error_code,
    },
  };
}

const quotesText = textCache((key) => {
  const [count, lock] = key.split(':');
  return `SELECT ${QUOTE_COLUMNS.map(quoted).join(',')} FROM \`quote\` WHERE \`quote_id\` IN (${placeholders(Number(count))})`
    + ` ORDER BY \`quote_id\`${lock === 'lock' ? ' FOR UPDATE' : ''}`;
});

/** Quotes by id (without the stored request, which no decision reads); `forUpdate` locks them in id order. */
export function selectQuotes(quoteIds, { forUpdate = false } = {}) {
  if (quoteIds.length === 0) return null;
  const ids = uniqueSorted(quoteIds);
  return { sql: quotesText(`${ids.length}:${forUpdate ? 'lock' : 'read'}`), values: ids };
}

/** quoteId → quote, from selectQuotes's rows. */
export function quotesFromRows(rows = []) {
  return new Map(rows.map((row) => [row.quote_id, toQuote(row)]));
}

// The quotes' DFSPs are the ledger's participants: the ledger owns the statement on its table
// (ledger/ports/participant-directory.js), and this repository names the quote columns that
// hold them, so that the states are read in the quotes' own round trip.
const participantStatesOfQuotes = participantStatesStatementFor({ table: 'quote', keyColumn: 'quote_id', nameColumns: ['payer_fsp', 'payee_fsp'] });

/**
 * The states of the participants `names` and of both DFSPs of the quotes `quoteIds`: what a
 * decision may check, read in the same round trip as the quotes (their parties come from the
 * rows the locking read has just locked). Names that cannot be a participant are left out;
 * read them with participantStatesFromRows (the port's).
 */
export function selectParticipantStates(names, quoteIds = []) {
  return participantStatesOfQuotes(names, quoteIds);
}

function requestColumns(request) {
  return {
    transaction_id: request?.transactionId ?? null,
    amount: request?.amount ?? null,
    currency: request?.currency ?? null,
    expires_at: request?.expiresAt ?? null,
    request_headers: request ? JSON.stringify(request.headers) : null,
    request_body: request?.rawBody ?? null,
  };
}

function answerColumns(answer) {
  return {
    ilp_condition: answer?.condition ?? null,
    answer_error_code: answer?.errorCode ?? null,
    answer_headers: answer ? JSON.stringify(answer.headers) : null,
    answer_body: answer?.rawBody ?? null,
  };
}

function quoteInsertRow(quote, now) {
  return {
    quote_id: quote.quoteId,
    payer_fsp: quote.payerFsp,
    payee_fsp: quote.payeeFsp,
    state: quote.state,
    request_hash: quote.requestHash,
    request_at: quote.requestAt,
    answer_hash: quote.answerHash,
    answer_at: quote.answerAt,
    ...requestColumns(quote.request),
    ...answerColumns(quote.answer),
    created_at: now,
    changed_at: now,
  };
}

// The columns quoteInsertRow fills, in its order (a blank quote names them all).
const INSERT_COLUMNS = Object.keys(quoteInsertRow({}, null));
const insertQuotesText = textCache((count) => `INSERT INTO \`quote\` (${INSERT_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(INSERT_COLUMNS.length, count)}`);

/** New quotes in one statement (null when there are none). */
export function insertQuotes(quotes, now) {
  if (quotes.length === 0) return null;
  const values = quotes.flatMap((quote) => {
    const row = quoteInsertRow(quote, now);
    return INSERT_COLUMNS.map((column) => row[column]);
  });
  return { sql: insertQuotesText(quotes.length), values };
}

const SIMPLE_CHANGES = Object.freeze({ state: 'state', requestAt: 'request_at', answerHash: 'answer_hash', answerAt: 'answer_at' });

/** `[{ quoteId, changes }]` as decided: one UPDATE per group of quotes changing the same columns. */
export function updateQuotes(updates, now) {
  const rows = updates.map(({ quoteId, changes }) => {
    const columns = { changed_at: now };
    for (const [field, column] of Object.entries(SIMPLE_CHANGES)) if (field in changes) columns[column] = changes[field];
    if ('request' in changes) Object.assign(columns, requestColumns(changes.request));
    if ('answer' in changes) Object.assign(columns, answerColumns(changes.answer));
    return { key: quoteId, changes: columns };
  });
  return bulkUpdateStatements('quote', 'quote_id', rows);
}
