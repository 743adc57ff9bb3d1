// Continuous gross settlement: transfers in a currency whose settlement model is GROSS or
// IMMEDIATE are settled one by one soon after they commit, as central-settlement's gross
// settlement handler does after each commit. The position handler has already recorded each
// committed transfer in the window journal; this sweep claims the unsettled ones (FOR UPDATE
// SKIP LOCKED, so replicas never take the same rows) and, in one transaction, returns both
// positions to where they were and moves the amount between the two settlement accounts.
import { grossSettlementPositionChanges, isGrossCurrency } from '../domain/settlements.js';
import { amountFromColumn } from '../domain/money.js';
import { planPositionChanges } from '../domain/position.js';
import { listSettlementModels } from '../repositories/onboarding.js';
import { applyPositionPlan, lockPositions } from '../repositories/positions.js';
import { settlementCounterAccounts } from '../repositories/settlements.js';

async function settleCurrency(trx, { currency, batchSizeMax, hubName, now }) {
  // A transfer whose window content exists was closed under a deferred net model (the
  // currency has turned gross since): a settlement takes it, never this sweep as well.
  const rows = await trx('settlement_window_transfer as t').where({ 't.currency': currency }).whereNull('t.gross_settled_at')
    .whereNotExists(function closedForNetSettlement() {
      this.select(trx.raw('1')).from('settlement_window_content as c').whereRaw('c.settlement_window_id = t.settlement_window_id AND c.currency = t.currency');
    })
    .select('t.*').limit(batchSizeMax).forUpdate().skipLocked();
  if (rows.length === 0) return 0;
  const transfers = rows.map((row) => ({
    transferId: row.transfer_id, payerAccountId: Number(row.payer_account_id), payeeAccountId: Number(row.payee_account_id), amount: amountFromColumn(row.amount),
  }));
  const positionAccountIds = [...new Set(transfers.flatMap((transfer) => [transfer.payerAccountId, transfer.payeeAccountId]))];
  const counters = await settlementCounterAccounts(trx, { positionAccountIds, hubName });
  const settlementAccountOf = (accountId) => {
    const counter = counters.get(accountId);
    if (!counter) throw new Error(`position account ${accountId} has no settlement account`);
    return counter.settlementAccountId;
  };
  const changes = transfers.flatMap((transfer) => grossSettlementPositionChanges({
    transfer, payerSettlementAccountId: settlementAccountOf(transfer.payerAccountId), payeeSettlementAccountId: settlementAccountOf(transfer.payeeAccountId),
  }));
  const positions = await lockPositions(trx, changes.map((change) => change.accountId));
  await applyPositionPlan(trx, planPositionChanges(positions, changes), now);
  await trx('settlement_window_transfer').whereIn('transfer_id', transfers.map((transfer) => transfer.transferId)).update({ gross_settled_at: now });
  return transfers.length;
}

/** One sweep over every currency settled gross; returns the most transfers one currency settled. */
export function createGrossSettlementSweep({ db, hubName, settings, onSettled = () => {}, clock = () => new Date() }) {
  return async function sweepOnce() {
    const models = await listSettlementModels(db);
    const currencies = (await db('account').distinct('currency').pluck('currency')).filter((currency) => isGrossCurrency(models, currency));
    let most = 0;
    for (const currency of currencies) {
      const settled = await db.transaction((trx) => settleCurrency(trx, { currency, batchSizeMax: settings.batchSizeMax, hubName, now: clock() }));
      if (settled > 0) onSettled(currency, settled);
      most = Math.max(most, settled);
    }
    return most;
  };
}
