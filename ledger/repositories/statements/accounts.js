// The reads of participants and their accounts that the transfer path makes in its own
// transaction, as `{ sql, values }` (platform/sql-text.js), for either client: which DFSPs and
// position accounts a prepare names, and which settlement account covers a position account.
// Onboarding's reads and writes of these tables stay in ledger/repositories/participants.js.
import { ACCOUNT_TYPE } from '../../domain/participants.js';
import { placeholders, textCache, uniqueSorted } from '../../../platform/sql-text.js';

const byNumber = (a, b) => a - b;

const participantsText = textCache((count) => 'SELECT p.`name`, p.`is_active`, a.`id` AS `account_id`, a.`currency`, a.`is_active` AS `account_active`'
  + ' FROM `participant` p LEFT JOIN `account` a ON a.`participant_id` = p.`id` AND a.`type` = ?'
  + ` WHERE p.\`name\` IN (${placeholders(count)})`);

/**
 * Participants by name with their position accounts, read in the batch's transaction (an
 * operator may deactivate either at any time, so neither is cached). Null when there is nothing to read.
 */
export function selectParticipantsWithPositionAccounts(names) {
  if (names.length === 0) return null;
  const unique = [...new Set(names)];
  return { sql: participantsText(unique.length), values: [ACCOUNT_TYPE.position, ...unique] };
}

/** name → { isActive, positionAccounts: Map(currency → { id, isActive }) }. */
export function participantsFromRows(rows = []) {
  const participants = new Map();
  for (const row of rows) {
    if (!participants.has(row.name)) participants.set(row.name, { isActive: Boolean(row.is_active), positionAccounts: new Map() });
    if (row.account_id !== null) {
      participants.get(row.name).positionAccounts.set(row.currency, { id: Number(row.account_id), isActive: Boolean(row.account_active) });
    }
  }
  return participants;
}

const settlementAccountsText = textCache((count) => 'SELECT pa.`id` AS `position_id`, sa.`id` AS `settlement_id` FROM `account` pa'
  + ' JOIN `account` sa ON sa.`participant_id` = pa.`participant_id` AND sa.`currency` = pa.`currency` AND sa.`type` = ?'
  + ` WHERE pa.\`id\` IN (${placeholders(count)})`);

/** The settlement account of each position account: the same participant's, in the same currency. Null when there is nothing to read. */
export function selectSettlementAccounts(positionAccountIds) {
  if (positionAccountIds.length === 0) return null;
  const ids = uniqueSorted(positionAccountIds, byNumber);
  return { sql: settlementAccountsText(ids.length), values: [ACCOUNT_TYPE.settlement, ...ids] };
}

/** positionAccountId → settlementAccountId. */
export function settlementAccountsFromRows(rows = []) {
  return new Map(rows.map((row) => [Number(row.position_id), Number(row.settlement_id)]));
}

const currencyPairsText = textCache((count) => 'SELECT p.`name`, c.`source_currency`, c.`target_currency` FROM `fxp_currency_pair` c'
  + ` JOIN \`participant\` p ON p.\`id\` = c.\`participant_id\` WHERE p.\`name\` IN (${placeholders(count)})`);

/** The currency pairs the named participants convert (none for a DFSP). Null when there is nothing to read. */
export function selectCurrencyPairs(names) {
  if (names.length === 0) return null;
  const unique = [...new Set(names)];
  return { sql: currencyPairsText(unique.length), values: unique };
}

/**
 * `participants` (participantsFromRows) with `currencyPairs: Set('SRC/TGT')` on each that
 * registered any: an FXP must then serve the pair of a conversion it is asked for.
 */
export function withCurrencyPairs(participants, rows = []) {
  const pairs = new Map();
  for (const row of rows) {
    if (!pairs.has(row.name)) pairs.set(row.name, new Set());
    pairs.get(row.name).add(`${row.source_currency}/${row.target_currency}`);
  }
  return new Map([...participants].map(([name, participant]) => [name, pairs.has(name) ? { ...participant, currencyPairs: pairs.get(name) } : participant]));
}
