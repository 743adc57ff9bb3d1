// Position rows are the maintained current value; position_change is the append-only
// journal. Both are written in the caller's transaction.
import { amountFromColumn, amountToColumn } from '../domain/money.js';

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
