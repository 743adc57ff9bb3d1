// The lookups the switch forwarded and may still be answered (account-lookup's own state,
// shared by its replicas through MySQL). A GET /parties records one row per payee DFSP it
// is sent to; a PUT /parties or PUT …/error is relayed only if such a row names its sender
// as the payee and its destination as the requester and has not expired (the rule is
// domain/pending-lookups.js's; the read below compares the expiry with the answer's time).
// Rows are kept until they expire, so a payee's retransmitted answer is relayed again, as a
// duplicate would be.
import { runStatement } from '../platform/db.js';
import { quoted, rowPlaceholders, textCache } from '../platform/sql-text.js';
import { lookupExpiresAt } from './domain/pending-lookups.js';

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

// The purge walks the expiry index (party_lookup_expiry) in batches, each starting where the
// last one ended: a DELETE from the start of the index would step again over every entry the
// batches before it deleted, until InnoDB's purge thread removes them, so each batch would be
// slower than the last. Each DELETE is one short autocommitted statement: under READ COMMITTED
// (createSqlPool) it locks only the long-expired rows it deletes, never the recent ones the
// hot path inserts and reads.
const BATCH_END_TEXT = 'SELECT `expires_at` FROM `party_lookup` WHERE `expires_at` >= ? AND `expires_at` <= ?'
  + ' ORDER BY `expires_at` LIMIT 1 OFFSET ?';
const PURGE_TEXT = 'DELETE FROM `party_lookup` WHERE `expires_at` >= ? AND `expires_at` <= ? ORDER BY `expires_at` LIMIT ?';
export const PURGE_BATCH_ROWS = 1_000;

/**
 * Deletes every lookup that expired at or before `now`, at most `batchRows` a statement,
 * batch after batch with no pause while a full batch remains; returns how many it deleted.
 * It ends: lookups recorded meanwhile expire after `now`. Replicas that purge at the same
 * time wait at most a batch for each other, and each stops once no full batch is left.
 */
export async function purgeExpiredLookups(db, now, { batchRows = PURGE_BATCH_ROWS } = {}) {
  let purged = 0;
  let from = new Date(0);
  for (;;) {
    // The batch's last expiry; rows sharing it may be left for the next batch, which starts there.
    const [batchEnd] = await runStatement(db, { sql: BATCH_END_TEXT, values: [from, now, batchRows - 1] });
    const until = batchEnd?.expires_at ?? now;
    purged += (await runStatement(db, { sql: PURGE_TEXT, values: [from, until, batchRows] })).affectedRows;
    if (!batchEnd) return purged;
    from = until;
  }
}

/**
 * The pending lookups of one process: `record` and `isPending` read the clock themselves, and
 * a lookup stays pending for `ttlMs` after the GET was accepted (domain/pending-lookups.js).
 * `isPending` takes the lookup as domain/pending-lookups.js lookupAnsweredBy() names it.
 */
export function createPendingLookups({ db, ttlMs, clock = () => new Date() }) {
  return {
    record: (party, requester, payees) => recordPendingLookups(db, { party, requester, payees, expiresAt: lookupExpiresAt(clock(), ttlMs) }),
    isPending: ({ party, requester, payee }) => isPendingLookup(db, { party, requester, payee, now: clock() }),
    purgeExpired: () => purgeExpiredLookups(db, clock()),
  };
}
