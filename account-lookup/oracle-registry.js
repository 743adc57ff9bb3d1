// Which oracle serves a party id type: the ones registered through the ALS admin API
// (table oracle_endpoint), else the built-in oracle. The registry is a handful of rows, so the
// edge reads all of it at once and reuses it for `ttlMs`; an admin change reaches every edge
// replica within that time without any coordination between them.

/**
 * Picks the base URL for `type` and, when the request names one, `currency`:
 * 1. an oracle registered for that type and currency;
 * 2. else one registered for the type without a currency (it serves every currency);
 * 3. else, for a request that names no currency, any oracle registered for the type;
 * 4. else the built-in oracle.
 * Among several candidates the default one wins, then the oldest. Pure.
 */
export function chooseOracleUrl(oracles, { type, currency }, builtInUrl) {
  const ofType = oracles.filter((oracle) => oracle.type === type);
  const groups = [
    currency ? ofType.filter((oracle) => oracle.currency === currency) : [],
    ofType.filter((oracle) => !oracle.currency),
    currency ? [] : ofType,
  ];
  const candidates = groups.find((group) => group.length > 0);
  if (!candidates) return builtInUrl;
  const [chosen] = [...candidates].sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || a.id - b.id);
  return chosen.url;
}

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
