// Changes of a settlement's state: its accounts moving through central-settlement's states
// (one PUT form, or its per-participant and per-account variants) and the settlement's abort.
// An account's position is reset when it reaches PS_TRANSFERS_COMMITTED (models with
// autoPositionReset), in the same transaction and through the same position journal as payments.
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { planPositionChanges } from '../domain/position.js';
import { SETTLEMENT_STATE, decideAbort, decideAccountUpdates, settlementPositionChanges } from '../domain/settlements.js';
import { listSettlementModels } from '../repositories/onboarding.js';
import { applyPositionPlan, lockPositions } from '../repositories/positions.js';
import {
  abortSettlementAccounts, findSettlement, findWindows, finishSettlementWindows, recordSettlementProgress, recordSettlementState,
  settlementCounterAccounts,
} from '../repositories/settlements.js';
import { participantsView, settlementView } from './views.js';

export const settlementNotFound = () => failure(FAILURE.settlementNotFound, 'Settlement not found');

/** The one place every PUT form ends: accepted account changes, resets, the settlement's progress. */
export async function updateAccounts({ db, config, clock }, settlementId, requested) {
  return db.transaction(async (trx) => {
    const settlement = await findSettlement(trx, settlementId, { forUpdate: true });
    if (!settlement) return settlementNotFound();
    const decision = decideAccountUpdates({ settlement, requested });
    const now = clock();
    const models = await listSettlementModels(trx);
    const model = models.find((candidate) => candidate.id === settlement.modelId);
    const committing = decision.changes.filter((change) => change.moves && change.state === SETTLEMENT_STATE.committed);
    if (model.autoPositionReset) await resetPositions(trx, config.hubName, settlement, committing, now);
    await recordSettlementProgress(trx, { settlementId, changes: decision.changes, nextState: decision.nextState, now });
    if (decision.nextState?.state === SETTLEMENT_STATE.settled) {
      await finishSettlementWindows(trx, { settlementId, windowIds: settlement.windowIds, state: SETTLEMENT_STATE.settled, reason: decision.nextState.reason, now });
    }
    const after = await findSettlement(trx, settlementId);
    const answered = [
      ...decision.changes.map((change) => after.accounts.get(change.accountId)),
      ...decision.refusals.map((refusal) => ({ ...settlement.accounts.get(refusal.accountId), accountId: refusal.accountId, participantId: refusal.participantId, error: refusal.detail })),
    ];
    const windows = await findWindows(trx, { ids: after.windowIds });
    return { id: after.id, state: after.state, createdDate: after.createdAt.toISOString(), settlementWindows: settlementView(after, windows).settlementWindows, participants: participantsView(answered) };
  });
}

async function resetPositions(trx, hubName, settlement, committing, now) {
  if (committing.length === 0) return;
  const counters = await settlementCounterAccounts(trx, { positionAccountIds: committing.map((change) => change.accountId), hubName });
  const changes = committing.flatMap((change) => {
    const counter = counters.get(change.accountId);
    if (!counter?.hubAccountId) throw new Error(`no settlement or hub multilateral settlement account for position account ${change.accountId}`);
    return settlementPositionChanges({ settlementId: settlement.id, account: settlement.accounts.get(change.accountId), ...counter });
  });
  const positions = await lockPositions(trx, changes.map((change) => change.accountId));
  await applyPositionPlan(trx, planPositionChanges(positions, changes), now);
}

export async function abortSettlement({ db, clock }, settlementId, body) {
  return db.transaction(async (trx) => {
    const settlement = await findSettlement(trx, settlementId, { forUpdate: true });
    if (!settlement) return settlementNotFound();
    const decision = decideAbort({ settlement });
    if (isFailure(decision)) return decision;
    const now = clock();
    if (!decision.again) {
      await abortSettlementAccounts(trx, { settlementId, accountIds: [...settlement.accounts.keys()], reason: body.reason, now });
      await finishSettlementWindows(trx, { settlementId, windowIds: settlement.windowIds, state: SETTLEMENT_STATE.aborted, reason: body.reason, now });
    }
    await recordSettlementState(trx, settlementId, SETTLEMENT_STATE.aborted, body.reason, now);
    return { id: settlementId, state: SETTLEMENT_STATE.aborted, reason: body.reason };
  });
}
