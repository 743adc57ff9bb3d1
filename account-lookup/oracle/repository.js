// The built-in oracle's table (oracle_party): which DFSP serves a party. Every read is a
// primary-key lookup; every write is a multi-row INSERT … ON DUPLICATE KEY UPDATE, so one
// party and a million parties go through the same statement shape.
import mysql from 'mysql2';
import { runStatement } from '../../platform/db.js';
import { oracleRegistrationOutcome } from '../domain/ownership.js';

const TABLE = 'oracle_party';
const COLUMNS = '(party_id_type, party_identifier, party_sub_id, fsp_id, currency)';
// A registration never takes a party from the DFSP that serves it: only that DFSP's own
// repeat may change the currency. Moving a party is a delete by its DFSP, then a registration.
const KEEP_OWNER = 'ON DUPLICATE KEY UPDATE currency = IF(fsp_id = VALUES(fsp_id), VALUES(currency), currency)';
// The operator's bulk load and the oracle API's PUT set the owner, whoever had the party.
const SET_OWNER = 'ON DUPLICATE KEY UPDATE fsp_id = VALUES(fsp_id), currency = VALUES(currency)';
const OWNER_READ_CHUNK = 1_000;

/** The identity of a party row: sub-id '' when the party has none. */
export function rowKey({ type, id, subId }) {
  return `${type}\u0000${id}\u0000${subId ?? ''}`;
}

function toEntry(row) {
  const entry = { fspId: row.fsp_id };
  if (row.currency) entry.currency = row.currency;
  if (row.party_sub_id) entry.partySubIdOrType = row.party_sub_id;
  return entry;
}

// A primary-key read, on the discovery hot path: written out rather than built per call.
const FIND_PARTY_TEXT = `SELECT \`fsp_id\`, \`currency\`, \`party_sub_id\` FROM \`${TABLE}\``
  + ' WHERE `party_id_type` = ? AND `party_identifier` = ? AND `party_sub_id` = ?';

/**
 * The DFSP serving a party as an oracle answers it (`{ fspId, currency?, partySubIdOrType? }`),
 * or null. With `currency`, a party registered for another currency is not a match. `db` is
 * knex or a mysql2 pool (platform/db.js runStatement).
 */
export async function findParty(db, { type, id, subId, currency }) {
  const [row] = await runStatement(db, { sql: FIND_PARTY_TEXT, values: [type, id, subId ?? ''] });
  if (!row || (currency && row.currency && row.currency !== currency)) return null;
  return toEntry(row);
}

/** Writes parties `{ type, id, subId?, fspId, currency? }` in one statement. */
export async function upsertParties(db, parties, { setOwner = false } = {}) {
  if (parties.length === 0) return;
  const placeholders = parties.map(() => '(?, ?, ?, ?, ?)').join(', ');
  const bindings = parties.flatMap((party) => [party.type, party.id, party.subId ?? '', party.fspId, party.currency ?? null]);
  await db.raw(`INSERT INTO ${TABLE} ${COLUMNS} VALUES ${placeholders} ${setOwner ? SET_OWNER : KEEP_OWNER}`, bindings);
}

/**
 * Makes `fspId` the owner of many decimal identifiers of one type, in one statement written
 * as literal SQL: for the bulk loader's chunks of thousands of rows, binding five values per
 * row costs the client more CPU than the server spends on the rows. Only the constants need
 * escaping, since the identifiers are checked to be digits.
 */
export async function upsertDecimalIdentifiers(db, { type, subId, fspId, currency }, identifiers) {
  if (identifiers.length === 0) return;
  const notDecimal = identifiers.find((id) => !/^\d{1,128}$/.test(id));
  if (notDecimal !== undefined) throw new TypeError(`identifier "${notDecimal}" is not decimal digits`);
  const head = `(${mysql.escape(type)},'`;
  const tail = `',${mysql.escape(subId ?? '')},${mysql.escape(fspId)},${mysql.escape(currency ?? null)})`;
  await db.raw(`INSERT INTO ${TABLE} ${COLUMNS} VALUES ${identifiers.map((id) => head + id + tail).join(',')} ${SET_OWNER}`);
}

/** Map(rowKey → fspId) of the parties that exist. */
async function ownersOf(db, parties) {
  const owners = new Map();
  for (let start = 0; start < parties.length; start += OWNER_READ_CHUNK) {
    const chunk = parties.slice(start, start + OWNER_READ_CHUNK);
    const rows = await db(TABLE)
      .whereIn(['party_id_type', 'party_identifier', 'party_sub_id'], chunk.map((party) => [party.type, party.id, party.subId ?? '']))
      .select('party_id_type', 'party_identifier', 'party_sub_id', 'fsp_id');
    for (const row of rows) {
      owners.set(rowKey({ type: row.party_id_type, id: row.party_identifier, subId: row.party_sub_id }), row.fsp_id);
    }
  }
  return owners;
}

/**
 * Registers parties for their DFSPs without taking any from another DFSP (the rule is
 * domain/ownership.js oracleRegistrationOutcome's). Resolves to one
 * answer per party, in order: `{ registered: true }` or `{ registered: false, servedBy }`.
 * Reading the owners after the write makes the answer true even when two DFSPs race.
 */
export async function registerParties(db, parties) {
  await upsertParties(db, parties);
  const owners = await ownersOf(db, parties);
  return parties.map((party) => oracleRegistrationOutcome({ fspId: party.fspId, servedBy: owners.get(rowKey(party)) }));
}

export async function deleteParty(db, { type, id, subId }) {
  await db(TABLE).where({ party_id_type: type, party_identifier: id, party_sub_id: subId ?? '' }).delete();
}

export async function countParties(db, { fspId } = {}) {
  const query = db(TABLE);
  if (fspId) query.where({ fsp_id: fspId });
  const [{ count }] = await query.count({ count: '*' });
  return Number(count);
}
