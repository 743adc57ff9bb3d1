// The position-batch handler: reserves, commits and releases positions. Its topic is keyed
// by position account, so each account is moved by one consumer; a batch locks its
// transfers and positions once, decides in memory, and writes one UPDATE per account.
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { planPositionChanges } from '../../ledger/domain/position.js';
import { applyPositionPlan, lockPositions } from '../../ledger/repositories/positions.js';
import { applyStateUpdates, findNetDebitCaps, findTransfers, findSettlementAccounts } from '../../ledger/repositories/transfers.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords } from '../transfer-records.js';

function positionEventsOf(events) {
  return events.map((event) => ({
    action: event.action, accountId: Number(event.accountId), fulfilAction: event.fulfilAction, failure: event.failure, message: event,
  }));
}

/**
 * positionAccountId → settlementAccountId, remembered: an account's participant, currency
 * and type never change, so the pair found once holds for the life of the process (a
 * query fewer per batch on the hot path).
 */
function createSettlementAccounts() {
  const known = new Map();
  return async function settlementAccountsOf(trx, positionIds) {
    const missing = positionIds.filter((id) => !known.has(id));
    if (missing.length > 0) for (const [positionId, settlementId] of await findSettlementAccounts(trx, missing)) known.set(positionId, settlementId);
    return new Map(positionIds.filter((id) => known.has(id)).map((id) => [id, known.get(id)]));
  };
}

/** Prefetch under lock: transfers (id order), then every position involved (account order). */
async function prefetchLocked(trx, events, settlementAccountsOf) {
  const transfers = await findTransfers(trx, events.map((event) => event.message.id), { forUpdate: true });
  const payerIds = [...transfers.values()].map((transfer) => transfer.payerAccountId).filter((id) => id !== null);
  const settlementOf = await settlementAccountsOf(trx, payerIds);
  const positions = await lockPositions(trx, [...events.map((event) => event.accountId), ...settlementOf.values()]);
  const settlements = new Map([...settlementOf].map(([positionId, settlementId]) => [positionId, positions.get(settlementId)]));
  const limits = await findNetDebitCaps(trx, payerIds);
  return { transfers, positions, settlements, limits };
}

/** The payee's own error code, for an abort the payee asked for (its PUT …/error). */
function payeeErrorCodes(events) {
  const codes = new Map();
  for (const event of events) {
    if (event.action === 'abort' && !event.failure) codes.set(event.message.id, event.message.body?.errorInformation?.errorCode);
  }
  return (update) => codes.get(update.transferId);
}

export function createPositionHandler({ db, producer, topics, hubName, metrics, clock = () => new Date() }) {
  const transferMetrics = createTransferMetrics(metrics);
  const settlementAccountsOf = createSettlementAccounts();
  return async function handlePositions(rawEvents) {
    const events = positionEventsOf(rawEvents);
    const now = clock();
    const decision = await db.transaction(async (trx) => {
      const state = await prefetchLocked(trx, events, settlementAccountsOf);
      const decided = decidePositionBatch({ events, ...state, now });
      await applyPositionPlan(trx, planPositionChanges(state.positions, decided.positionChanges), now);
      await applyStateUpdates(trx, decided.stateUpdates, now);
      return decided;
    });
    transferMetrics.countPositionChanges(decision.positionChanges);
    transferMetrics.countFinished(decision.stateUpdates, payeeErrorCodes(events));
    await producer.produce(notificationRecords(topics, decision.outcomes, hubName));
  };
}
