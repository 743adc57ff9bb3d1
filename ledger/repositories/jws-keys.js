// The public JWS keys registered for each participant (participant_jws_key).

/** The participant's keys, oldest first: `[{ keyId, publicKey, createdAt }]`. */
export async function listJwsKeys(db, participantId) {
  const rows = await db('participant_jws_key')
    .select('key_id', 'public_key', 'created_at')
    .where({ participant_id: participantId })
    .orderBy('id');
  return rows.map((row) => ({ keyId: row.key_id, publicKey: row.public_key, createdAt: row.created_at }));
}

/**
 * Makes `keys` (`[{ keyId, publicKey }]`) the participant's whole set in one transaction:
 * a key already registered keeps its row and date, one left out is removed.
 */
export async function replaceJwsKeys(db, participantId, keys, { createdBy, now }) {
  await db.transaction(async (trx) => {
    const kept = keys.map((key) => key.keyId);
    await trx('participant_jws_key').where({ participant_id: participantId }).whereNotIn('key_id', kept).delete();
    const existing = new Set((await trx('participant_jws_key').select('key_id').where({ participant_id: participantId }).forUpdate())
      .map((row) => row.key_id));
    const added = keys.filter((key) => !existing.has(key.keyId));
    if (added.length === 0) return;
    await trx('participant_jws_key').insert(added.map((key) => ({
      participant_id: participantId, key_id: key.keyId, public_key: key.publicKey, created_by: createdBy, created_at: now,
    })));
  });
}
