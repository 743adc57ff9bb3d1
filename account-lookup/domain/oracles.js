// Which oracle serves a party id type (and currency), among those registered through the ALS
// admin API (oracle-registry.js reads them) and the built-in oracle.

/**
 * Picks the base URL for `type` and, when the request names one, `currency`:
 * 1. an oracle registered for that type and currency;
 * 2. else one registered for the type without a currency (it serves every currency);
 * 3. else, for a request that names no currency, any oracle registered for the type;
 * 4. else the built-in oracle.
 * Among several candidates the default one wins, then the oldest.
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
