// Changes of settlements: a new one over closed windows, its accounts moving through
// central-settlement's states (one PUT form, or its per-participant and per-account
// variants) and its abort. Each is one transaction in four steps: read what the decision
// needs (the settlement row and the windows locked), decide in ledger/domain, write what was
// decided, and read back what the answer shows. An account's position is reset when it
// reaches PS_TRANSFERS_COMMITTED (models with autoPositionReset), in the same transaction and
// through the same position journal as payments.
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { planPositionChanges } from '../domain/position.js';
import {
  decideNewSettlement, decideSettlementAbort, decideSettlementUpdate, netSettlementAmounts, newSettlementAccounts, settlementResetChanges,
} from '../domain/settlements.js';
import { listSettlementModels } from '../repositories/onboarding.js';
import { applyPositionPlan, lockPositions } from '../repositories/positions.js';
import {
  assignContentToSettlement, findSettlement, findWindows, insertSettlement, insertSettlementAccounts, participantsOfAccounts, recordAccountsState,
  recordSettlementProgress, recordSettlementState, recordWindowState, recordWindowsAfterSettlement, settlementCounterAccounts, transferSumsOfContent,
} from '../repositories/settlements.js';
import { participantsView, settlementView } from './views.js';

export const settlementNotFound = () => failure(FAILURE.settlementNotFound, 'Settlement not found');

/** A settlement's windows (with their content) by id, read under lock: the decisions below are taken on them. */
async function lockedWindows(trx, ids) {
  return findWindows(trx, { ids }, { forUpdate: true });
}

/**
 * POST /settlements: a settlement over the requested windows' content for one deferred net
 * model, with every participant's net amount; answers it with its windows, or the failure.
 */
export async function createSettlement({ db, clock }, { settlementModel, reason, settlementWindows }) {
  return db.transaction(async (trx) => {
    const requestedIds = settlementWindows.map((window) => Number(window.id));
    const models = await listSettlementModels(trx);
    const windows = new Map((await lockedWindows(trx, requestedIds)).map((window) => [window.id, window]));
    const decision = decideNewSettlement({ models, modelName: settlementModel, requestedIds, windows });
    if (isFailure(decision)) return decision;
    const { taken } = decision;
    const nets = netSettlementAmounts(await transferSumsOfContent(trx, taken.content.map((content) => content.id)));
    const accounts = newSettlementAccounts({ nets, participantOfAccount: await participantsOfAccounts(trx, nets.map((net) => net.accountId)) });

    const now = clock();
    const id = await insertSettlement(trx, { modelId: decision.model.id, state: decision.state, reason, windowIds: taken.windowIds, now });
    await assignContentToSettlement(trx, { contentIds: taken.content.map((content) => content.id), settlementId: id, state: taken.state, now });
    await recordWindowState(trx, { windowIds: taken.movingWindowIds, state: taken.state, reason, now });
    await insertSettlementAccounts(trx, { settlementId: id, accounts, reason, now });

    const settlement = await findSettlement(trx, id);
    return settlementView(settlement, await findWindows(trx, { ids: settlement.windowIds }), { modelName: decision.model.name });
  });
}

/** The one place every PUT form ends: accepted account changes, resets, the settlement's progress. */
export async function updateAccounts({ db, config, clock }, settlementId, requested) {
  return db.transaction(async (trx) => {
    const settlement = await findSettlement(trx, settlementId, { forUpdate: true });
    if (!settlement) return settlementNotFound();
    const models = await listSettlementModels(trx);
    const windows = await lockedWindows(trx, settlement.windowIds);
    const decision = decideSettlementUpdate({ settlement, requested, models, windows });

    const now = clock();
    await resetPositions(trx, config.hubName, settlement, decision.resetAccountIds, now);
    await recordSettlementProgress(trx, { settlementId, changes: decision.changes, nextState: decision.nextState, now });
    if (decision.windowsAfter) await recordWindowsAfterSettlement(trx, { windowsAfter: decision.windowsAfter, reason: decision.nextState.reason, now });

    const after = await findSettlement(trx, settlementId);
    const answered = [
      ...decision.changes.map((change) => after.accounts.get(change.accountId)),
      ...decision.refusals.map((refusal) => ({ ...settlement.accounts.get(refusal.accountId), accountId: refusal.accountId, participantId: refusal.participantId, error: refusal.detail })),
    ];
    const windowsAfter = await findWindows(trx, { ids: after.windowIds });
    return { id: after.id, state: after.state, createdDate: after.createdAt.toISOString(), settlementWindows: settlementView(after, windowsAfter).settlementWindows, participants: participantsView(answered) };
  });
}

/** Locks the positions the resets of `accountIds` move and applies them (positions.js, as payments do). */
async function resetPositions(trx, hubName, settlement, accountIds, now) {
  if (accountIds.length === 0) return;
  const counters = await settlementCounterAccounts(trx, { positionAccountIds: accountIds, hubName });
  const changes = settlementResetChanges({ settlement, accountIds, counters });
  const positions = await lockPositions(trx, changes.map((change) => change.accountId));
  await applyPositionPlan(trx, planPositionChanges(positions, changes), now);
}

export async function abortSettlement({ db, clock }, settlementId, body) {
  return db.transaction(async (trx) => {
    const settlement = await findSettlement(trx, settlementId, { forUpdate: true });
    if (!settlement) return settlementNotFound();
    const windows = await lockedWindows(trx, settlement.windowIds);
    const decision = decideSettlementAbort({ settlement, windows });
    if (isFailure(decision)) return decision;

    const now = clock();
    await recordAccountsState(trx, { settlementId, accountIds: decision.accountIds, state: decision.state, reason: body.reason, now });
    if (decision.windowsAfter) await recordWindowsAfterSettlement(trx, { windowsAfter: decision.windowsAfter, reason: body.reason, now });
    await recordSettlementState(trx, { settlementId, state: decision.state, reason: body.reason, now });
    return { id: settlementId, state: decision.state, reason: body.reason };
  });
}
