// The records of a relayed resource (a quote, an fx quote, a transaction request, an
// authorization) for the quoting handler, as mysql2 statements (`{ sql, values }`, run by
// platform/db.js inTransaction; platform/sql-text.js): set-based reads (locked, so that two
// consumers of one partition during a rebalance cannot both change a record), bulk inserts
// and updates. Every table keeps the same columns for
// duplicate detection and the relayed bytes (quoting/migrations); a repository is made for
// one table by naming its id, its two parties, and what each keeps beside those columns.
import {
  bulkUpdateStatements, placeholders, quoted, rowPlaceholders, textCache, uniqueSorted,
} from '../../platform/sql-text.js';
import { participantStatesStatementFor } from '../../ledger/ports/participant-directory.js';

// BIGINT columns come back as strings (platform/db.js); epoch milliseconds fit a Number.
const epochMs = (value) => (value === null || value === undefined ? null : Number(value));

const SIMPLE_CHANGES = Object.freeze({ state: 'state', requestHash: 'request_hash', requestAt: 'request_at', answerHash: 'answer_hash', answerAt: 'answer_at' });

/** The record's id and parties from a row, and the columns they fill. */
const keyFields = (shape, row) => Object.fromEntries([shape.id, ...shape.parties].map(({ field, column }) => [field, row[column]]));
const keyColumns = (shape, record) => Object.fromEntries([shape.id, ...shape.parties].map(({ field, column }) => [column, record[field]]));

/** The fields a kind's decisions read (relay.js decisionFields), from their columns and into them. */
const decisionFieldsOf = (shape, row) => Object.fromEntries(shape.decisionFields.map(([field, { column, fromColumn }]) => [field, fromColumn(row[column])]));
const decisionColumns = (shape, record) => Object.fromEntries(shape.decisionFields.map(([field, { column, toColumn }]) => [column, toColumn(record[field])]));

function toRecord(shape, row) {
  return {
    ...keyFields(shape, row),
    ...decisionFieldsOf(shape, row),
    state: row.state,
    requestHash: row.request_hash,
    requestAt: epochMs(row.request_at),
    answerHash: row.answer_hash,
    answerAt: epochMs(row.answer_at),
    answer: row.answer_body === null ? null : {
      headers: JSON.parse(row.answer_headers ?? '{}'),
      rawBody: row.answer_body,
      ...Object.fromEntries(shape.answerFields.map(([field, column]) => [field, row[column]])),
      errorCode: row.answer_error_code,
    },
  };
}

function requestColumns(shape, request) {
  return {
    ...shape.requestColumns(request),
    request_headers: request ? JSON.stringify(request.headers) : null,
    request_body: request?.rawBody ?? null,
  };
}

function answerColumns(shape, answer) {
  return {
    ...Object.fromEntries(shape.answerFields.map(([field, column]) => [column, answer?.[field] ?? null])),
    answer_error_code: answer?.errorCode ?? null,
    answer_headers: answer ? JSON.stringify(answer.headers) : null,
    answer_body: answer?.rawBody ?? null,
  };
}

function insertRow(shape, record, now) {
  return {
    ...keyColumns(shape, record),
    ...decisionColumns(shape, record),
    state: record.state,
    request_hash: record.requestHash,
    request_at: record.requestAt,
    answer_hash: record.answerHash,
    answer_at: record.answerAt,
    ...requestColumns(shape, record.request),
    ...answerColumns(shape, record.answer),
    created_at: now,
    changed_at: now,
  };
}

function updateRow(shape, update, now) {
  const { changes } = update;
  const columns = { changed_at: now };
  for (const [field, column] of [...Object.entries(SIMPLE_CHANGES), ...shape.linkColumns]) if (field in changes) columns[column] = changes[field];
  if ('request' in changes) Object.assign(columns, requestColumns(shape, changes.request));
  if ('answer' in changes) Object.assign(columns, answerColumns(shape, changes.answer));
  return { key: update[shape.id.field], changes: columns };
}

/**
 * The statements on `table`, whose records are keyed by `id` and name their two DFSPs in
 * `parties` (each `{ field, column }`: the requester, then the answerer). `requestColumns(request)`
 * gives the columns of a kept request's own fields (beside its headers and body, null for
 * none); `answerFields` names the kept answer's own fields and their columns (field →
 * column), beside its error code, headers and body; `linkColumns` (field → column) names
 * columns that only an update fills, linking the record to another (null when inserted).
 * `decisionFields` names the fields a kind's decisions read that are kept whatever is
 * persisted (field → `{ column, toColumn(value), fromColumn(value) }`); they are written
 * once, with the record.
 */
export function relayRecordRepository({
  table, id, parties, requestColumns: ownRequestColumns, answerFields = {}, linkColumns = {}, decisionFields = {},
}) {
  const shape = Object.freeze({
    table, id, parties, requestColumns: ownRequestColumns, answerFields: Object.entries(answerFields), linkColumns: Object.entries(linkColumns),
    decisionFields: Object.entries(decisionFields),
  });
  const selected = [id.column, ...parties.map((party) => party.column), ...shape.decisionFields.map(([, { column }]) => column), 'state', 'request_hash', 'request_at', 'answer_hash', 'answer_at',
    ...shape.answerFields.map(([, column]) => column), 'answer_error_code', 'answer_headers', 'answer_body'];
  const selectText = textCache((key) => {
    const [count, lock] = key.split(':');
    return `SELECT ${selected.map(quoted).join(',')} FROM ${quoted(table)} WHERE ${quoted(id.column)} IN (${placeholders(Number(count))})`
      + ` ORDER BY ${quoted(id.column)}${lock === 'lock' ? ' FOR UPDATE' : ''}`;
  });
  // The columns insertRow fills, in its order (a blank record names them all).
  const insertColumns = Object.keys(insertRow(shape, {}, null));
  const insertText = textCache((count) => `INSERT INTO ${quoted(table)} (${insertColumns.map(quoted).join(',')})`
    + ` VALUES ${rowPlaceholders(insertColumns.length, count)}`);
  return Object.freeze({
    /** Records by id (without the stored request, which no decision reads); `forUpdate` locks them in id order. */
    select(ids, { forUpdate = false } = {}) {
      if (ids.length === 0) return null;
      const unique = uniqueSorted(ids);
      return { sql: selectText(`${unique.length}:${forUpdate ? 'lock' : 'read'}`), values: unique };
    },
    /** id → record, from select's rows. */
    fromRows: (rows = []) => new Map(rows.map((row) => [row[id.column], toRecord(shape, row)])),
    /** New records in one statement (null when there are none). */
    insert(records, now) {
      if (records.length === 0) return null;
      const values = records.flatMap((record) => {
        const row = insertRow(shape, record, now);
        return insertColumns.map((column) => row[column]);
      });
      return { sql: insertText(records.length), values };
    },
    /** `[{ [id.field], changes }]` as decided: one UPDATE per group of records changing the same columns. */
    update: (updates, now) => bulkUpdateStatements(table, id.column, updates.map((update) => updateRow(shape, update, now))),
    /**
     * `(names, ids)`: the states of the participants `names` and of both parties of the
     * records `ids`, read in the records' own round trip (their parties come from the rows the
     * locking read has just locked). The ledger owns the statement on its table
     * (ledger/ports/participant-directory.js); this names the columns holding the parties.
     */
    participantStates: participantStatesStatementFor({ table, keyColumn: id.column, nameColumns: parties.map((party) => party.column) }),
  });
}
