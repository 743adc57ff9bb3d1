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

// What a currency conversion needs to know of its parties, one row per fact: each active
// position account's currency ('POSITION'), and each currency pair the participant converts
// ('PAIR'), with the participant's state on every row. A participant with neither still
// gets one row (currency null), so that its state is known.
const FX_FACTS = textCache((count) => {
  const names = placeholders(count);
  return `SELECT p.\`name\`, p.\`is_active\`, 'POSITION' AS \`fact\`, a.\`currency\` AS \`source_currency\`, NULL AS \`target_currency\``
    + ' FROM `participant` p LEFT JOIN `account` a ON a.`participant_id` = p.`id` AND a.`type` = \'POSITION\' AND a.`is_active` = 1'
    + ` WHERE p.\`name\` IN (${names})`
    + ' UNION ALL SELECT p.`name`, p.`is_active`, \'PAIR\', c.`source_currency`, c.`target_currency`'
    + ` FROM \`fxp_currency_pair\` c JOIN \`participant\` p ON p.\`id\` = c.\`participant_id\` WHERE p.\`name\` IN (${names})`;
});

/** The statement reading the conversion facts of the participants `names` (null when there are none). */
export function selectFxParticipantFacts(names) {
  const wanted = uniqueSorted(names.filter((name) => typeof name === 'string' && name !== ''));
  if (wanted.length === 0) return null;
  return { sql: FX_FACTS(wanted.length), values: [...wanted, ...wanted] };
}

/**
 * name → `{ isActive, activePositionCurrencies, pairs: [{ sourceCurrency, targetCurrency }] }`,
 * from selectFxParticipantFacts's rows: the shape findFxpCandidates gives discovery.
 */
export function fxParticipantFactsFromRows(rows = []) {
  const facts = new Map();
  for (const row of rows) {
    if (!facts.has(row.name)) facts.set(row.name, { isActive: Boolean(row.is_active), activePositionCurrencies: [], pairs: [] });
    const participant = facts.get(row.name);
    if (row.fact === 'PAIR') participant.pairs.push({ sourceCurrency: row.source_currency, targetCurrency: row.target_currency });
    else if (row.source_currency !== null) participant.activePositionCurrencies.push(row.source_currency);
  }
  return facts;
}
