// Limits, endpoints and settlement models: the onboarding rows around participants.
import { amountToColumn } from '../domain/money.js';

export async function findLimit(db, { accountId, type }) {
  return db('participant_limit').where({ account_id: accountId, type }).first();
}

export async function insertLimit(trx, { accountId, type, value, alarmPercentage, now }) {
  await trx('participant_limit').insert({
    account_id: accountId, type, value: amountToColumn(value), alarm_percentage: alarmPercentage, created_at: now, changed_at: now,
  });
}

export async function updateLimit(db, { accountId, type, value, alarmPercentage, now }) {
  const changes = { value: amountToColumn(value), changed_at: now };
  if (alarmPercentage !== undefined) changes.alarm_percentage = alarmPercentage;
  await db('participant_limit').where({ account_id: accountId, type }).update(changes);
  return findLimit(db, { accountId, type });
}

/** Limits joined with their account and participant, filtered as the admin API allows. */
export async function listLimits(db, { participantId, currency, type } = {}) {
  const query = db('participant_limit')
    .join('account', 'account.id', 'participant_limit.account_id')
    .join('participant', 'participant.id', 'account.participant_id')
    .select('participant.name as name', 'account.currency as currency', 'participant_limit.type as type',
      'participant_limit.value as value', 'participant_limit.alarm_percentage as alarmPercentage')
    .orderBy(['participant.name', 'account.currency']);
  if (participantId !== undefined) query.where('participant.id', participantId);
  if (currency) query.where('account.currency', currency);
  if (type) query.where('participant_limit.type', type);
  return query;
}

export async function upsertEndpoint(db, { participantId, type, value, now }) {
  await db('participant_endpoint').insert({ participant_id: participantId, type, value, changed_at: now })
    .onConflict(['participant_id', 'type']).merge(['value', 'changed_at']);
}

export async function listEndpoints(db, { participantId, type }) {
  const query = db('participant_endpoint').where({ participant_id: participantId }).select('type', 'value').orderBy('type');
  if (type) query.andWhere({ type });
  return query;
}

function toSettlementModel(row) {
  return {
    id: row.id,
    name: row.name,
    settlementGranularity: row.granularity,
    settlementInterchange: row.interchange,
    settlementDelay: row.delay,
    currency: row.currency,
    requireLiquidityCheck: Boolean(row.require_liquidity_check),
    ledgerAccountType: row.ledger_account_type,
    settlementAccountType: row.settlement_account_type,
    autoPositionReset: Boolean(row.auto_position_reset),
    isActive: Boolean(row.is_active),
  };
}

export async function listSettlementModels(db) {
  return (await db('settlement_model').orderBy('id')).map(toSettlementModel);
}

export async function insertSettlementModel(db, model, now) {
  await db('settlement_model').insert({
    name: model.name,
    granularity: model.settlementGranularity,
    interchange: model.settlementInterchange,
    delay: model.settlementDelay,
    currency: model.currency ?? null,
    require_liquidity_check: model.requireLiquidityCheck,
    ledger_account_type: model.ledgerAccountType,
    settlement_account_type: model.settlementAccountType,
    auto_position_reset: model.autoPositionReset,
    created_at: now,
  });
}
