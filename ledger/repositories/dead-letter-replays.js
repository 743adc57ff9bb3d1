// Which dead letters an operator replayed through the admin API (dead_letter_replay), so a
// repeated request (a double click, a retry after a timeout) replays none twice.

/** The replays recorded for `topic`'s letters: "<partition>:<offset>" → { replayedAt, actor }. */
export async function replaysOf(db, topic) {
  const rows = await db('dead_letter_replay').select('dead_letter_partition', 'dead_letter_offset', 'replayed_at', 'actor').where({ topic });
  return new Map(rows.map((row) => [`${row.dead_letter_partition}:${row.dead_letter_offset}`, { replayedAt: row.replayed_at, actor: row.actor }]));
}

/**
 * Records the replay of one letter; true when this call recorded it, false when it was already
 * recorded (by an earlier request, or a concurrent one that got there first).
 */
export async function recordReplay(trx, { handler, topic, partition, offset, actor, now }) {
  const [result] = await trx.raw(
    'INSERT IGNORE INTO `dead_letter_replay` (`handler`, `topic`, `dead_letter_partition`, `dead_letter_offset`, `actor`, `replayed_at`) VALUES (?, ?, ?, ?, ?, ?)',
    [handler, topic, partition, offset, actor.slice(0, 64), now],
  );
  return result.affectedRows === 1;
}

/** How many of `handler`'s dead letters were replayed, for the audit trail's before and after. */
export async function countReplays(db, handler) {
  const [{ n }] = await db('dead_letter_replay').where({ handler }).count({ n: '*' });
  return Number(n);
}
