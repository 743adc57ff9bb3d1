// The lookups the switch forwarded and may still be answered (account-lookup's own state,
// shared by its replicas through MySQL). A GET /parties records one row per payee DFSP it
// is sent to; a PUT /parties or PUT …/error is relayed only if such a row names its sender
// as the payee and its destination as the requester and has not expired. Rows are kept until
// they expire, so a payee's retransmitted answer is relayed again, as a duplicate would be.
import { runStatement } from '../platform/db.js';
import { quoted, rowPlaceholders, textCache } from '../platform/sql-text.js';

// `db` is the process's mysql2 pool on the hot path (or knex): platform/db.js runStatement.
const PARTY_COLUMNS = ['party_id_type', 'party_identifier', 'party_sub_id'];
const LOOKUP_COLUMNS = [...PARTY_COLUMNS, 'requester_fsp', 'payee_fsp', 'expires_at'];
const partyValues = (party) => [party.type, party.id, party.subId ?? ''];

const recordText = textCache((count) => `INSERT INTO \`party_lookup\` (${LOOKUP_COLUMNS.map(quoted).join(',')})`
  + ` VALUES ${rowPlaceholders(LOOKUP_COLUMNS.length, count)}`);
// The answer index's columns, in its order: one index range, at most one row read.
const PENDING_TEXT = `SELECT 1 FROM \`party_lookup\` WHERE ${[...PARTY_COLUMNS, 'payee_fsp', 'requester_fsp'].map((column) => `${quoted(column)} = ?`).join(' AND ')}`
  + ' AND `expires_at` > ? LIMIT 1';

/** Records that `requester` asked each of `payees` about `party` until `expiresAt`: one statement. */
export async function recordPendingLookups(db, { party, requester, payees, expiresAt }) {
  if (payees.length === 0) return;
  const values = payees.flatMap((payee) => [...partyValues(party), requester, payee, expiresAt]);
  await runStatement(db, { sql: recordText(payees.length), values });
}

/** Whether `payee` was asked about `party` by `requester` and the lookup is still pending at `now`. */
export async function isPendingLookup(db, { party, requester, payee, now }) {
  const rows = await runStatement(db, { sql: PENDING_TEXT, values: [...partyValues(party), payee, requester, now] });
  return rows.length > 0;
}

/** Deletes up to `limit` lookups that expired before `now`; returns how many it deleted. */
export async function purgeExpiredLookups(db, now, limit) {
  const result = await runStatement(db, { sql: 'DELETE FROM `party_lookup` WHERE `expires_at` <= ? ORDER BY `expires_at` LIMIT ?', values: [now, limit] });
  return result.affectedRows;
}

/**
 * The pending lookups of one process: `record` and `isPending` read the clock themselves, and
 * a lookup stays pending for `ttlMs` after the GET was accepted.
 */
export function createPendingLookups({ db, ttlMs, clock = () => new Date() }) {
  return {
    record: (party, requester, payees) => recordPendingLookups(db, { party, requester, payees, expiresAt: new Date(clock().getTime() + ttlMs) }),
    isPending: (party, requester, payee) => isPendingLookup(db, { party, requester, payee, now: clock() }),
    purgeExpired: (limit) => purgeExpiredLookups(db, clock(), limit),
  };
}
