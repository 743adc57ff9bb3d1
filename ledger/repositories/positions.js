// Position rows are the maintained current value; position_change is the append-only
// journal. Both are written in the caller's transaction.
import { amountFromColumn, amountToColumn } from '../domain/money.js';
import { ACCOUNT_TYPE, LIMIT_TYPE } from '../domain/participants.js';

/**
 * Locks the position rows of the given accounts (in id order, so concurrent transactions
 * never deadlock on each other) and returns accountId → value as scaled BigInt.
 */
export async function lockPositions(trx, accountIds) {
  const ids = [...new Set(accountIds)].sort((a, b) => a - b);
  const rows = await trx('position').whereIn('account_id', ids).orderBy('account_id').forUpdate()
    .select('account_id', 'value');
  return new Map(rows.map((row) => [Number(row.account_id), amountFromColumn(row.value)]));
}

/** Writes a plan from planPositionChanges: one bulk journal insert, one UPDATE per account. */
export async function applyPositionPlan(trx, plan, now) {
  if (plan.journal.length === 0) return;
  await trx('position_change').insert(plan.journal.map((entry) => ({
    account_id: entry.accountId,
    transfer_id: entry.transferId ?? null,
    reason: entry.reason,
    change: amountToColumn(entry.change),
    value: amountToColumn(entry.value),
    created_at: now,
  })));
  for (const accountId of plan.changedAccountIds) {
    await trx('position').where({ account_id: accountId })
      .update({ value: amountToColumn(plan.finalValues.get(accountId)), changed_at: now });
  }
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
