// The states of participants (name, is_active) as one mysql2 statement (`{ sql, values }`,
// platform/db.js; platform/sql-text.js), for another context's transaction: it reads them in
// the same round trip as its own rows, so a batch pays no extra round trip for them. The
// statement is offered to other contexts through ledger/ports/participant-directory.js.
import { placeholders, quoted, uniqueSorted, textCache } from '../../platform/sql-text.js';

const PARTICIPANT_STATES = 'SELECT p.`name`, p.`is_active` FROM `participant` p';

/**
 * A builder `(names, keys)` of the statement that reads the participants `names` and those
 * named by the rows `keys` of another context's table, `referencedBy`: `{ table, keyColumn,
 * nameColumns }` (the columns that hold participant names). Names that cannot be a
 * participant are left out; null when there is nothing to read.
 */
export function participantStatesStatementFor({ table, keyColumn, nameColumns }) {
  const join = `JOIN ${quoted(table)} r ON p.\`name\` IN (${nameColumns.map((column) => `r.${quoted(column)}`).join(', ')})`;
  const text = textCache((key) => {
    const [names, keys] = key.split(':').map(Number);
    const named = names > 0 ? [`${PARTICIPANT_STATES} WHERE p.\`name\` IN (${placeholders(names)})`] : [];
    const referenced = keys > 0 ? [`${PARTICIPANT_STATES} ${join} WHERE r.${quoted(keyColumn)} IN (${placeholders(keys)})`] : [];
    return [...named, ...referenced].join(' UNION ');
  });
  return function selectParticipantStates(names, keys = []) {
    const wanted = [...new Set(names.filter((name) => typeof name === 'string' && name !== ''))];
    const unique = uniqueSorted(keys);
    if (wanted.length === 0 && unique.length === 0) return null;
    return { sql: text(`${wanted.length}:${unique.length}`), values: [...wanted, ...unique] };
  };
}

/** name → { isActive }, from the rows of a participantStatesStatementFor() statement. */
export function participantStatesFromRows(rows = []) {
  return new Map(rows.map((row) => [row.name, { isActive: Boolean(row.is_active) }]));
}
