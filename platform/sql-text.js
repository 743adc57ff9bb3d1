// SQL text for statements as `{ sql, values }`, run by platform/db.js: inTransaction on the
// hot paths' mysql2 pools, runStatement on any client (knex too). A statement's text depends only on how many rows or ids it carries, so it
// is built once per arity and reused; values always travel as placeholders, never in the text.
import { boundedMemo } from './bounded-memo.js';

// Batches are bounded by the consumers' batch sizes, so the texts a process keeps are few.
const CACHED_TEXTS_MAX = 4096;

/** `build(key)` remembered per key: the text of one statement shape. */
export const textCache = (build) => boundedMemo(build, CACHED_TEXTS_MAX);

export const quoted = (column) => `\`${column}\``;
export const placeholders = (count) => Array(count).fill('?').join(',');
export const rowPlaceholders = (columns, count) => Array(count).fill(`(${placeholders(columns)})`).join(',');
/** Keys without repeats, in the order a locking read takes their rows. */
export const uniqueSorted = (values, compare) => [...new Set(values)].sort(compare);

const BULK_UPDATE_ROWS_MAX = 500;

const bulkUpdateText = textCache((shape) => {
  const [table, keyColumn, columnList, count] = shape.split('|');
  const cases = Array(Number(count)).fill('WHEN ? THEN ?').join(' ');
  const assignments = columnList.split(',').map((column) => `${quoted(column)} = CASE ${quoted(keyColumn)} ${cases} END`);
  return `UPDATE ${quoted(table)} SET ${assignments.join(', ')} WHERE ${quoted(keyColumn)} IN (${placeholders(Number(count))})`;
});

/**
 * Updates of many rows as one statement per group of rows that change the same columns:
 * `UPDATE t SET c = CASE key WHEN ? THEN ? ... END WHERE key IN (...)`. Round trips, not
 * rows, are what a batch pays for. `rows` are `{ key, changes: { column: value } }`.
 */
export function bulkUpdateStatements(table, keyColumn, rows) {
  const groups = new Map();
  for (const row of rows) {
    const columns = Object.keys(row.changes).sort();
    const signature = columns.join(',');
    if (!groups.has(signature)) groups.set(signature, { columns, rows: [] });
    groups.get(signature).rows.push(row);
  }
  const statements = [];
  for (const { columns, rows: groupRows } of groups.values()) {
    for (let start = 0; start < groupRows.length; start += BULK_UPDATE_ROWS_MAX) {
      const chunk = groupRows.slice(start, start + BULK_UPDATE_ROWS_MAX);
      const values = columns.flatMap((column) => chunk.flatMap((row) => [row.key, row.changes[column]]));
      values.push(...chunk.map((row) => row.key));
      statements.push({ sql: bulkUpdateText(`${table}|${keyColumn}|${columns.join(',')}|${chunk.length}`), values });
    }
  }
  return statements;
}
