// Fx quotes for the quoting handler, as mysql2 statements (`{ sql, values }`, run by
// platform/db.js inTransaction), shaped as quotes.js shapes quotes: a locking set-based read,
// one bulk insert, bulk updates. The conversion's parties are read in the same round trip
// through the ledger's port (ledger/ports/participant-directory.js).
import {
  bulkUpdateStatements, placeholders, quoted, rowPlaceholders, textCache, uniqueSorted,
} from '../../platform/sql-text.js';
import {
  fxParticipantFactsFromRows, participantStatesFromRows, participantStatesStatementFor, selectFxParticipantFacts,
} from '../../ledger/ports/participant-directory.js';

const COLUMNS = ['conversion_request_id', 'initiating_fsp', 'counter_party_fsp', 'state', 'request_hash', 'request_at', 'answer_hash', 'answer_at',
  'answer_error_code', 'answer_headers', 'answer_body'];

// BIGINT columns come back as strings (platform/db.js); epoch milliseconds fit a Number.
const epochMs = (value) => (value === null || value === undefined ? null : Number(value));

function toFxQuote(row) {
  return {
    conversionRequestId: row.conversion_request_id,
    initiatingFsp: row.initiating_fsp,
    counterPartyFsp: row.counter_party_fsp,
    state: row.state,
    requestHash: row.request_hash,
    requestAt: epochMs(row.request_at),
    answerHash: row.answer_hash,
    answerAt: epochMs(row.answer_at),
    answer: row.answer_body === null ? null : {
      headers: JSON.parse(row.answer_headers ?? '{}'), rawBody: row.answer_body, errorCode: row.answer_error_code,
    },
  };
}

const selectText = textCache((key) => {
  const [count, lock] = key.split(':');
  return `SELECT ${COLUMNS.map(quoted).join(',')} FROM \`fx_quote\` WHERE \`conversion_request_id\` IN (${placeholders(Number(count))})`
    + ` ORDER BY \`conversion_request_id\`${lock === 'lock' ? ' FOR UPDATE' : ''}`;
});

/** Fx quotes by id (without the stored request); `forUpdate` locks them in id order. */
export function selectFxQuotes(ids, { forUpdate = false } = {}) {
  if (ids.length === 0) return null;
  const unique = uniqueSorted(ids);
  return { sql: selectText(`${unique.length}:${forUpdate ? 'lock' : 'read'}`), values: unique };
}

/** conversionRequestId → fx quote, from selectFxQuotes's rows. */
export function fxQuotesFromRows(rows = []) {
  return new Map(rows.map((row) => [row.conversion_request_id, toFxQuote(row)]));
}

const statesOfFxQuoteParties = participantStatesStatementFor({ table: 'fx_quote', keyColumn: 'conversion_request_id', nameColumns: ['initiating_fsp', 'counter_party_fsp'] });

/**
 * What the decisions read of the parties, in the fx quotes' round trip: the conversion facts
 * (states, active position currencies, currency pairs) of the DFSPs `names`, and the states of
 * both parties of the stored fx quotes `ids`. Returns the statements, in the order
 * fxPartiesFromRows takes their rows.
 */
export function selectFxParties(names, ids) {
  return [selectFxParticipantFacts(names), statesOfFxQuoteParties([], ids)];
}

/** name → `{ isActive, activePositionCurrencies?, pairs? }` from selectFxParties's rows. */
export function fxPartiesFromRows(factRows, stateRows) {
  const parties = participantStatesFromRows(stateRows);
  for (const [name, facts] of fxParticipantFactsFromRows(factRows)) parties.set(name, facts);
  return parties;
}

function requestColumns(request) {
  return {
    source_currency: request?.sourceCurrency ?? null,
    target_currency: request?.targetCurrency ?? null,
    request_headers: request ? JSON.stringify(request.headers) : null,
    request_body: request?.rawBody ?? null,
  };
}

function answerColumns(answer) {
  return {
    answer_error_code: answer?.errorCode ?? null,
    answer_headers: answer ? JSON.stringify(answer.headers) : null,
    answer_body: answer?.rawBody ?? null,
  };
}

function insertRow(fxQuote, now) {
  return {
    conversion_request_id: fxQuote.conversionRequestId,
    initiating_fsp: fxQuote.initiatingFsp,
    counter_party_fsp: fxQuote.counterPartyFsp,
    state: fxQuote.state,
    request_hash: fxQuote.requestHash,
    request_at: fxQuote.requestAt,
    answer_hash: fxQuote.answerHash,
    answer_at: fxQuote.answerAt,
    ...requestColumns(fxQuote.request),
    ...answerColumns(fxQuote.answer),
    created_at: now,
    changed_at: now,
  };
}

const INSERT_COLUMNS = Object.keys(insertRow({}, null));
const insertText = textCache((count) => `INSERT INTO \`fx_quote\` (${INSERT_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(INSERT_COLUMNS.length, count)}`);

/** New fx quotes in one statement (null when there are none). */
export function insertFxQuotes(fxQuotes, now) {
  if (fxQuotes.length === 0) return null;
  const values = fxQuotes.flatMap((fxQuote) => {
    const row = insertRow(fxQuote, now);
    return INSERT_COLUMNS.map((column) => row[column]);
  });
  return { sql: insertText(fxQuotes.length), values };
}

const SIMPLE_CHANGES = Object.freeze({ state: 'state', requestAt: 'request_at', answerHash: 'answer_hash', answerAt: 'answer_at' });

/** `[{ conversionRequestId, changes }]` as decided: one UPDATE per group changing the same columns. */
export function updateFxQuotes(updates, now) {
  const rows = updates.map(({ conversionRequestId, changes }) => {
    const columns = { changed_at: now };
    for (const [field, column] of Object.entries(SIMPLE_CHANGES)) if (field in changes) columns[column] = changes[field];
    if ('request' in changes) Object.assign(columns, requestColumns(changes.request));
    if ('answer' in changes) Object.assign(columns, answerColumns(changes.answer));
    return { key: conversionRequestId, changes: columns };
  });
  return bulkUpdateStatements('fx_quote', 'conversion_request_id', rows);
}
