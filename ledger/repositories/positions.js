// Positions for the callers that hold a knex transaction (the admin API's funds and
// onboarding, the settlement API): each function runs the statements of
// statements/positions.js, the ones the position handler sends. Position rows are the
// maintained current value; position_change is the append-only journal. Both are written in
// the caller's transaction.
import { runStatement, runStatements } from '../../platform/db.js';
import { amountFromColumn } from '../domain/money.js';
import { ACCOUNT_TYPE, LIMIT_TYPE } from '../domain/participants.js';
import { positionPlanStatements, positionsFromRows, selectPositionsForUpdate } from './statements/positions.js';

/**
 * Locks the position rows of the given accounts (in id order, so concurrent transactions
 * never deadlock on each other) and returns accountId → value as scaled BigInt.
 */
export async function lockPositions(trx, accountIds) {
  return positionsFromRows(await runStatement(trx, selectPositionsForUpdate(accountIds)));
}

/** Writes a plan from planPositionChanges: the journal and every changed account's value. */
export async function applyPositionPlan(trx, plan, now) {
  await runStatements(trx, positionPlanStatements(plan, now));
}

/**
 * Every DFSP's position per currency with its net debit cap (null when none is set), for
 * monitoring: [{ name, currency, position, netDebitCap }] with amounts as scaled BigInt.
 */
export async function listPositionsWithNetDebitCaps(db, { hubName }) {
  const rows = await db('account')
    .join('participant', 'participant.id', 'account.participant_id')
    .join('position', 'position.account_id', 'account.id')
    .leftJoin('participant_limit', function joinNetDebitCap() {
      this.on('participant_limit.account_id', 'account.id').andOnVal('participant_limit.type', LIMIT_TYPE.netDebitCap);
    })
    .where('account.type', ACCOUNT_TYPE.position)
    .whereNot('participant.name', hubName)
    .select('participant.name', 'account.currency', 'position.value as position', 'participant_limit.value as net_debit_cap');
  return rows.map((row) => ({
    name: row.name,
    currency: row.currency,
    position: amountFromColumn(row.position),
    netDebitCap: row.net_debit_cap === null ? null : amountFromColumn(row.net_debit_cap),
  }));
}
