// Continuous gross settlement: transfers in a currency whose settlement model is GROSS or
// IMMEDIATE are settled one by one soon after they commit, as central-settlement's gross
// settlement handler does after each commit. The position handler has already recorded each
// committed transfer in the window journal; this sweep claims the unsettled ones (FOR UPDATE
// SKIP LOCKED, so replicas never take the same rows) and, in one transaction, returns both
// positions to where they were and moves the amount between the two settlement accounts.
import { grossSettlementChanges, isGrossCurrency } from '../domain/settlements.js';
import { planPositionChanges } from '../domain/position.js';
import { listSettlementModels } from '../repositories/onboarding.js';
import { applyPositionPlan, lockPositions } from '../repositories/positions.js';
import { accountCurrencies, claimGrossSettleableTransfers, markGrossSettled, settlementCounterAccounts } from '../repositories/settlements.js';

async function settleCurrency(trx, { currency, batchSizeMax, hubName, now }) {
  const transfers = await claimGrossSettleableTransfers(trx, { currency, batchSizeMax });
  if (transfers.length === 0) return 0;
  const positionAccountIds = [...new Set(transfers.flatMap((transfer) => [transfer.payerAccountId, transfer.payeeAccountId]))];
  const counters = await settlementCounterAccounts(trx, { positionAccountIds, hubName });
  const changes = grossSettlementChanges({ transfers, counters });
  const positions = await lockPositions(trx, changes.map((change) => change.accountId));
  await applyPositionPlan(trx, planPositionChanges(positions, changes), now);
  await markGrossSettled(trx, { transferIds: transfers.map((transfer) => transfer.transferId), now });
  return transfers.length;
}

/** One sweep over every currency settled gross; returns the most transfers one currency settled. */
export function createGrossSettlementSweep({ db, hubName, settings, onSettled = () => {}, clock = () => new Date() }) {
  return async function sweepOnce() {
    const models = await listSettlementModels(db);
    const currencies = (await accountCurrencies(db)).filter((currency) => isGrossCurrency(models, currency));
    let most = 0;
    for (const currency of currencies) {
      const settled = await db.transaction((trx) => settleCurrency(trx, { currency, batchSizeMax: settings.batchSizeMax, hubName, now: clock() }));
      if (settled > 0) onSettled(currency, settled);
      most = Math.max(most, settled);
    }
    return most;
  };
}
