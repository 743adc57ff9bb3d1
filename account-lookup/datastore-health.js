// The database check behind /health of every account-lookup process.

/** Resolves to 'OK' when the database answers a trivial query, 'DOWN' otherwise. */
export async function datastoreHealth(db) {
  try {
    await db.raw('SELECT 1');
    return 'OK';
  } catch {
    return 'DOWN';
  }
}
