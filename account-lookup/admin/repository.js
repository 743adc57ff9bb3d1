// The oracle registry (table oracle_endpoint) as the ALS admin API reads and changes it.

const TABLE = 'oracle_endpoint';

/** A row in the shape of Mojaloop's OracleInfoGetResponse; a missing currency is left out. */
function toOracle(row) {
  const oracle = {
    oracleId: Number(row.id),
    oracleIdType: row.party_id_type,
    endpoint: { value: row.value, endpointType: row.endpoint_type },
    isDefault: Boolean(row.is_default),
  };
  if (row.currency) oracle.currency = row.currency;
  return oracle;
}

export async function listOracles(db, { type, currency } = {}) {
  const query = db(TABLE).orderBy('id');
  if (type) query.where({ party_id_type: type });
  if (currency) query.where({ currency });
  return (await query).map(toOracle);
}

export async function findOracle(db, id) {
  const row = await db(TABLE).where({ id }).first();
  return row ? toOracle(row) : null;
}

/**
 * True when an oracle is already registered for the id type, endpoint type and currency (an
 * oracle without a currency matches only another without one), whatever its URL: Mojaloop's
 * account-lookup-service keeps one oracle per such triple.
 */
export async function isRegistered(db, { oracleIdType, endpoint, currency }, { exceptId } = {}) {
  const query = db(TABLE).where({ party_id_type: oracleIdType, endpoint_type: endpoint.endpointType, currency: currency ?? null });
  if (exceptId !== undefined) query.whereNot({ id: exceptId });
  return Boolean(await query.first('id'));
}

/**
 * Only one oracle is the default for a type and currency: marking one takes the mark from
 * the others, within the caller's transaction.
 */
async function clearOtherDefaults(trx, { oracleIdType, currency }, exceptId) {
  await trx(TABLE).where({ party_id_type: oracleIdType, currency: currency ?? null, is_default: true })
    .whereNot({ id: exceptId }).update({ is_default: false });
}

/** Inserts an oracle (OracleInfo) and resolves to its id. */
export async function insertOracle(db, oracle, { createdBy, now }) {
  return db.transaction(async (trx) => {
    const [id] = await trx(TABLE).insert({
      party_id_type: oracle.oracleIdType, endpoint_type: oracle.endpoint.endpointType, value: oracle.endpoint.value,
      currency: oracle.currency ?? null, is_default: oracle.isDefault ?? false, created_by: createdBy, created_at: now,
    });
    if (oracle.isDefault) await clearOtherDefaults(trx, oracle, id);
    return Number(id);
  });
}

/** Replaces an oracle's fields with `oracle` (a complete OracleInfo). */
export async function updateOracle(db, id, oracle) {
  await db.transaction(async (trx) => {
    await trx(TABLE).where({ id }).update({
      party_id_type: oracle.oracleIdType, endpoint_type: oracle.endpoint.endpointType, value: oracle.endpoint.value,
      currency: oracle.currency ?? null, is_default: oracle.isDefault ?? false,
    });
    if (oracle.isDefault) await clearOtherDefaults(trx, oracle, id);
  });
}

export async function deleteOracle(db, id) {
  return db(TABLE).where({ id }).delete();
}
