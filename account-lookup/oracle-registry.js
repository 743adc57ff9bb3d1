// Which oracle serves a party id type: the ones registered through the ALS admin API
// (table oracle_endpoint), else the built-in oracle. The registry is a handful of rows, so the
// edge reads all of it at once and reuses it for `ttlMs`; an admin change reaches every edge
// replica within that time without any coordination between them. Which of them serves a
// request is domain/oracles.js's rule.
import { chooseOracleUrl } from './domain/oracles.js';

/** Reads every registered URL oracle as `{ id, type, url, currency, isDefault }`. */
export async function readOracleRegistry(db) {
  const rows = await db('oracle_endpoint').where({ endpoint_type: 'URL' })
    .select('id', 'party_id_type', 'value', 'currency', 'is_default');
  return rows.map((row) => ({
    id: Number(row.id), type: row.party_id_type, url: row.value, currency: row.currency, isDefault: Boolean(row.is_default),
  }));
}

/**
 * `urlFor({ type, currency })` resolves to the oracle's base URL. `readAll()` reads the
 * registry; a failed refresh keeps serving the previous copy, since a stale route to an
 * oracle is better than none while the database is away.
 */
export function createOracleRegistry({ readAll, builtInUrl, ttlMs, now = Date.now }) {
  let oracles = null;
  let expiresAt = 0;
  let pending = null;

  function refresh() {
    pending ??= readAll().then((rows) => {
      oracles = rows;
      expiresAt = now() + ttlMs;
      return rows;
    }, (error) => {
      if (oracles) return oracles;
      throw error;
    }).finally(() => { pending = null; });
    return pending;
  }

  async function urlFor(query) {
    const current = oracles && expiresAt > now() ? oracles : await refresh();
    return chooseOracleUrl(current, query, builtInUrl);
  }

  return { urlFor };
}
