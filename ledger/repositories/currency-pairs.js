// The currency pairs FXPs convert (fxp_currency_pair), and the read discovery makes of them.
import { ACCOUNT_TYPE } from '../domain/participants.js';

function toPair(row) {
  return { sourceCurrency: row.source_currency, targetCurrency: row.target_currency, createdAt: row.created_at };
}

export async function listCurrencyPairs(db, participantId) {
  const rows = await db('fxp_currency_pair').where({ participant_id: participantId }).orderBy(['source_currency', 'target_currency']);
  return rows.map(toPair);
}

export async function insertCurrencyPair(db, { participantId, sourceCurrency, targetCurrency, createdBy, now }) {
  await db('fxp_currency_pair').insert({
    participant_id: participantId, source_currency: sourceCurrency, target_currency: targetCurrency, created_by: createdBy, created_at: now,
  });
}

/** Removes one pair; resolves to whether there was one. */
export async function deleteCurrencyPair(db, { participantId, sourceCurrency, targetCurrency }) {
  const removed = await db('fxp_currency_pair')
    .where({ participant_id: participantId, source_currency: sourceCurrency, target_currency: targetCurrency }).del();
  return removed > 0;
}

/**
 * Every FXP with a pair registered (only those with `sourceCurrency` → `targetCurrency` when
 * both are given), as `{ name, isActive, pairs: [{ sourceCurrency, targetCurrency }],
 * activePositionCurrencies: [...] }`: the facts discovery decides on. Two indexed reads,
 * however many FXPs there are.
 */
export async function findFxpCandidates(db, { sourceCurrency, targetCurrency } = {}) {
  const pairQuery = db('fxp_currency_pair').join('participant', 'participant.id', 'fxp_currency_pair.participant_id')
    .select('participant.id as id', 'participant.name as name', 'participant.is_active as isActive',
      'fxp_currency_pair.source_currency as sourceCurrency', 'fxp_currency_pair.target_currency as targetCurrency')
    .orderBy(['participant.name', 'fxp_currency_pair.source_currency', 'fxp_currency_pair.target_currency']);
  if (sourceCurrency && targetCurrency) pairQuery.where({ 'fxp_currency_pair.source_currency': sourceCurrency, 'fxp_currency_pair.target_currency': targetCurrency });
  const pairRows = await pairQuery;
  if (pairRows.length === 0) return [];
  const positionRows = await db('account').whereIn('participant_id', [...new Set(pairRows.map((row) => row.id))])
    .where({ type: ACCOUNT_TYPE.position, is_active: true }).select('participant_id as id', 'currency');
  const fxps = new Map();
  for (const row of pairRows) {
    if (!fxps.has(row.id)) fxps.set(row.id, { name: row.name, isActive: Boolean(row.isActive), pairs: [], activePositionCurrencies: [] });
    fxps.get(row.id).pairs.push({ sourceCurrency: row.sourceCurrency, targetCurrency: row.targetCurrency });
  }
  for (const row of positionRows) fxps.get(row.id).activePositionCurrencies.push(row.currency);
  return [...fxps.values()];
}
