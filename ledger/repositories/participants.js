// Participants, their accounts and the positions on them.

import { runStatement } from '../../platform/db.js';
import { insertZeroPositions } from './statements/positions.js';
import { API_TYPE } from '../../platform/iso20022/media-types.js';

const ACCOUNT_COLUMNS = [
  'account.id as id', 'account.participant_id as participantId', 'account.currency as currency',
  'account.type as type', 'account.is_active as isActive', 'account.created_at as createdAt',
  'account.created_by as createdBy', 'position.value as value', 'position.reserved_value as reservedValue',
  'position.changed_at as changedAt',
];

function toParticipant(row) {
  return row && {
    id: row.id, name: row.name, isActive: Boolean(row.is_active), isProxy: Boolean(row.is_proxy), createdAt: row.created_at,
    apiType: row.api_type ?? API_TYPE.fspiop,
  };
}

function toAccount(row) {
  return { ...row, id: Number(row.id), isActive: Boolean(row.isActive) };
}

export async function findParticipantByName(db, name) {
  return toParticipant(await db('participant').where({ name }).first());
}

export async function listParticipants(db) {
  return (await db('participant').orderBy('id')).map(toParticipant);
}

export async function accountsOfParticipants(db, participantIds, { currency } = {}) {
  const query = db('account').leftJoin('position', 'position.account_id', 'account.id')
    .whereIn('account.participant_id', participantIds).select(ACCOUNT_COLUMNS).orderBy('account.id');
  if (currency) query.andWhere('account.currency', currency);
  return (await query).map(toAccount);
}

export async function findAccount(db, { participantId, currency, type }) {
  const row = await db('account').leftJoin('position', 'position.account_id', 'account.id')
    .where({ 'account.participant_id': participantId, 'account.currency': currency, 'account.type': type })
    .first(ACCOUNT_COLUMNS);
  return row ? toAccount(row) : null;
}

export async function findAccountById(db, accountId) {
  const row = await db('account').leftJoin('position', 'position.account_id', 'account.id')
    .where('account.id', accountId).first(ACCOUNT_COLUMNS);
  return row ? toAccount(row) : null;
}

/** Hub accounts by currency: which of the hub's account types exist for it. */
export async function hubAccountTypes(db, hubParticipantId, currency) {
  const rows = await db('account').where({ participant_id: hubParticipantId, currency }).select('type');
  return rows.map((row) => row.type);
}

export async function insertParticipant(trx, { name, apiType = API_TYPE.fspiop, createdBy, now }) {
  const [id] = await trx('participant').insert({ name, api_type: apiType, created_by: createdBy, created_at: now, is_active: true });
  return id;
}

/** Ensures the hub participant exists; safe to call on every start and from many replicas. */
export async function ensureHubParticipant(db, { hubName, now }) {
  await db('participant').insert({ name: hubName, created_by: 'system', created_at: now, is_active: true })
    .onConflict('name').ignore();
}

/** Creates accounts with a zero position row each, so every account has a position. */
export async function insertAccounts(trx, { participantId, currency, types, isActive, createdBy, now }) {
  const ids = [];
  for (const type of types) {
    const [id] = await trx('account').insert({ participant_id: participantId, currency, type, is_active: isActive, created_by: createdBy, created_at: now });
    ids.push(id);
  }
  await runStatement(trx, insertZeroPositions(ids, now));
  return ids;
}

export async function setParticipantActive(db, participantId, isActive) {
  await db('participant').where({ id: participantId }).update({ is_active: isActive });
}

/** The API (API_TYPE) the participant receives its messages in. */
export async function setParticipantApiType(db, participantId, apiType) {
  await db('participant').where({ id: participantId }).update({ api_type: apiType });
}

export async function setAccountsActive(trx, accountIds, isActive) {
  await trx('account').whereIn('id', accountIds).update({ is_active: isActive });
}
