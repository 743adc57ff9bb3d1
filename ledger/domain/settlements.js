// Deferred net settlement, as central-settlement runs it: a settlement takes closed windows'
// content for one settlement model, nets every participant's position account over the
// transfers committed in them, and then moves every account, in lock-step with the
// settlement, through PS_TRANSFERS_RECORDED → PS_TRANSFERS_RESERVED → PS_TRANSFERS_COMMITTED
// → SETTLED. States and transitions are data; the decisions below are pure, and each change
// the settlement API makes is decided whole here (decideNewSettlement, decideSettlementUpdate,
// decideSettlementAbort) on what its route read, so the route only writes what was decided.
//
// Sign convention (central-settlement's): a net amount above zero is what the participant
// owes (it paid out more than it received), below zero what it is owed.
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { ACCOUNT_TYPE } from './participants.js';
import { WINDOW_STATE, decideSettlementWindows, decideWindowsAfterSettlement } from './settlement-windows.js';

export const SETTLEMENT_STATE = Object.freeze({
  pendingSettlement: 'PENDING_SETTLEMENT',
  recorded: 'PS_TRANSFERS_RECORDED',
  reserved: 'PS_TRANSFERS_RESERVED',
  committed: 'PS_TRANSFERS_COMMITTED',
  settling: 'SETTLING',
  settled: 'SETTLED',
  aborted: 'ABORTED',
});

const S = SETTLEMENT_STATE;

/** The account states an operator may ask for, in their order (central-settlement's enum). */
export const ACCOUNT_STATES = Object.freeze([S.pendingSettlement, S.recorded, S.reserved, S.committed, S.settled]);

/**
 * settlement state → the one state its accounts may move to next. Accounts move in lock-step:
 * a step is open to every account only once the settlement as a whole has reached the
 * previous one; SETTLED alone may be reached account by account.
 */
const NEXT_ACCOUNT_STATE = Object.freeze({
  [S.pendingSettlement]: S.recorded,
  [S.recorded]: S.reserved,
  [S.reserved]: S.committed,
  [S.committed]: S.settled,
  [S.settling]: S.settled,
});

/** Settlement states an abort is still possible from (nothing committed yet). */
const ABORTABLE = Object.freeze([S.pendingSettlement, S.recorded, S.reserved]);

/** The states a settlement ends in: it is pending (for the gauges) until it reaches one. */
export const SETTLEMENT_END_STATES = Object.freeze([S.settled, S.aborted]);

/** The window state a settlement's windows take when it ends in each of its end states. */
const WINDOWS_FOLLOW = Object.freeze({ [S.settled]: WINDOW_STATE.settled, [S.aborted]: WINDOW_STATE.aborted });

/**
 * How the settlement's own state follows its accounts' after an update, at most one step per
 * request: [from, condition over the account states, to, reason].
 */
const SETTLEMENT_PROGRESS = Object.freeze([
  [S.pendingSettlement, (states) => !states.includes(S.pendingSettlement), S.recorded, 'All settlement accounts are PS_TRANSFERS_RECORDED'],
  [S.recorded, (states) => !states.includes(S.recorded), S.reserved, 'All settlement accounts are PS_TRANSFERS_RESERVED'],
  [S.reserved, (states) => !states.includes(S.reserved), S.committed, 'All settlement accounts are PS_TRANSFERS_COMMITTED'],
  [S.committed, (states) => !states.includes(S.committed), S.settled, 'All settlement accounts are SETTLED'],
  [S.committed, (states) => states.includes(S.settled), S.settling, 'Some settlement accounts are SETTLED'],
  [S.settling, (states) => !states.includes(S.committed), S.settled, 'All settlement accounts are SETTLED'],
]);

/** A model POST /settlements accepts: deferred and net (central-settlement refuses the rest). */
export function decideSettlementModel(model, name) {
  if (!model || !model.isActive) return failure(FAILURE.settlementModelNotFound, `Settlement model not found: ${name}`);
  if (model.settlementGranularity === 'GROSS' || model.settlementDelay === 'IMMEDIATE') {
    return failure(FAILURE.validation, 'Settlement can not be created for GROSS or IMMEDIATE models');
  }
  return { ok: true };
}

/**
 * A new settlement, decided on the models and the requested windows (read under lock):
 * the model named must be an active deferred net one, and every window must hold content
 * closed under it (decideSettlementWindows). Returns the model, the windows and content
 * taken and the states they move to, or the failure to answer.
 */
export function decideNewSettlement({ models, modelName, requestedIds, windows }) {
  const model = models.find((candidate) => candidate.name === modelName);
  const accepted = decideSettlementModel(model, modelName);
  if (isFailure(accepted)) return accepted;
  const taken = decideSettlementWindows({ requestedIds, windows, settles: (content) => content.settlementModelId === model.id });
  if (isFailure(taken)) return taken;
  return { ok: true, model, state: S.pendingSettlement, taken };
}

/**
 * A new settlement's accounts: each net amount with the participant owning the account,
 * starting where the settlement starts. `participantOfAccount`: accountId → participantId.
 */
export function newSettlementAccounts({ nets, participantOfAccount }) {
  return nets.map((net) => ({ ...net, participantId: participantOfAccount.get(net.accountId), state: S.pendingSettlement }));
}

/**
 * The content a window's close records for deferred net settlement, from its totals of the
 * transfers not settled gross: one row per currency not settled gross (those are settled
 * already), under the model that governs the currency now. Every currency a participant
 * can pay in has a model (onboarding refuses one without), so a total without is a bug.
 */
export function closedWindowContent({ unsettledTotals, models }) {
  return unsettledTotals.filter((total) => !isGrossCurrency(models, total.currency)).map((total) => {
    const model = modelOfCurrency(models, total.currency);
    if (!model) throw new Error(`no settlement model governs ${total.currency}, which window content was committed in`);
    return { ...total, settlementModelId: model.id, ledgerAccountType: ACCOUNT_TYPE.position, state: WINDOW_STATE.closed };
  });
}

/**
 * The settlement model that governs a currency: the active model of that currency, else the
 * active default one (central-ledger's rule); undefined when neither exists.
 */
export function modelOfCurrency(models, currency) {
  const active = models.filter((model) => model.isActive);
  return active.find((model) => model.currency === currency) ?? active.find((model) => !model.currency);
}

/** Whether transfers in `currency` are settled one by one as they commit (continuous gross). */
export function isGrossCurrency(models, currency) {
  const model = modelOfCurrency(models, currency);
  return Boolean(model) && (model.settlementGranularity === 'GROSS' || model.settlementDelay === 'IMMEDIATE');
}

/**
 * Net amounts per position account from the committed transfers' sums per payer, payee and
 * currency: the payer's position rose by each amount, the payee's fell. Accounts whose
 * transfers cancel out stay in the settlement at zero, as central-settlement keeps them.
 * Returns [{ accountId, currency, netAmount }] in account order.
 */
export function netSettlementAmounts(pairSums) {
  const nets = new Map();
  const add = (accountId, currency, amount) => {
    const key = `${accountId}`;
    const entry = nets.get(key) ?? { accountId, currency, netAmount: 0n };
    if (entry.currency !== currency) throw new Error(`position account ${accountId} carries both ${entry.currency} and ${currency}`);
    entry.netAmount += amount;
    nets.set(key, entry);
  };
  for (const { payerAccountId, payeeAccountId, currency, amount } of pairSums) {
    add(payerAccountId, currency, amount);
    add(payeeAccountId, currency, -amount);
  }
  return [...nets.values()].sort((a, b) => a.accountId - b.accountId);
}

/**
 * One PUT's account changes. `settlement`: { state, accounts: Map(accountId → { participantId,
 * state }) }; `requested`: [{ participantId, accountId, state, reason, externalReference }].
 * Refused accounts are answered in the 200 with central-settlement's per-account 3000 and
 * change nothing. Returns { changes, refusals, nextState } where nextState is the
 * settlement's state after the accepted changes (with its reason) or null.
 */
export function decideAccountUpdates({ settlement, requested }) {
  const seen = new Set();
  const changes = [];
  const refusals = [];
  const allowed = NEXT_ACCOUNT_STATE[settlement.state];
  for (const request of requested) {
    const account = settlement.accounts.get(request.accountId);
    const refuse = (detail) => refusals.push({ ...request, detail });
    if (!account) refuse('Account not found');
    else if (account.participantId !== request.participantId) refuse('Participant and account mismatch');
    else if (seen.has(request.accountId)) refuse('Account already processed once');
    else if (request.state !== account.state && request.state !== allowed) refuse('State change not allowed');
    else changes.push({ ...request, fromState: account.state, moves: request.state !== account.state });
    seen.add(request.accountId);
  }
  const statesAfter = new Map([...settlement.accounts].map(([id, account]) => [id, account.state]));
  for (const change of changes) statesAfter.set(change.accountId, change.state);
  return { changes, refusals, nextState: settlementProgress(settlement.state, [...statesAfter.values()]) };
}

/**
 * One PUT's whole decision: decideAccountUpdates, the accounts whose positions are reset
 * (those that reach PS_TRANSFERS_COMMITTED now, under a model with autoPositionReset) and,
 * when the settlement reaches SETTLED, how its windows follow (decideWindowsAfterSettlement).
 * `models`: every settlement model (the settlement's own is among them); `windows`: the
 * settlement's windows with their content.
 */
export function decideSettlementUpdate({ settlement, requested, models, windows }) {
  const model = models.find((candidate) => candidate.id === settlement.modelId);
  if (!model) throw new Error(`settlement ${settlement.id} names settlement model ${settlement.modelId}, which does not exist`);
  const decision = decideAccountUpdates({ settlement, requested });
  const resetAccountIds = model.autoPositionReset
    ? decision.changes.filter((change) => change.moves && change.state === S.committed).map((change) => change.accountId) : [];
  const ends = decision.nextState && WINDOWS_FOLLOW[decision.nextState.state];
  const windowsAfter = ends ? decideWindowsAfterSettlement({ settlementId: settlement.id, windows, state: ends }) : null;
  return { ...decision, resetAccountIds, windowsAfter };
}

function settlementProgress(state, accountStates) {
  const step = SETTLEMENT_PROGRESS.find(([from, holds]) => from === state && holds(accountStates));
  return step ? { state: step[2], reason: step[3] } : null;
}

/**
 * Whether the settlement may be aborted: not once anything was committed. Aborting an
 * aborted settlement only records the request again.
 */
export function decideAbort({ settlement }) {
  if (settlement.state === S.aborted) return { ok: true, again: true };
  if (!ABORTABLE.includes(settlement.state)) {
    return failure(FAILURE.settlementStateChangeRefused, `State change is not allowed for settlement ${settlement.id} in state ${settlement.state}`);
  }
  if ([...settlement.accounts.values()].some((account) => account.state === S.committed)) {
    return failure(FAILURE.settlementStateChangeRefused, 'At least one settlement transfer is committed');
  }
  return { ok: true, again: false };
}

/**
 * An abort's whole decision (decideAbort): unless the settlement is aborted already, every
 * account moves to ABORTED and the windows follow (decideWindowsAfterSettlement); either way
 * the settlement records the request in ABORTED. Returns the failure to answer otherwise.
 */
export function decideSettlementAbort({ settlement, windows }) {
  const decision = decideAbort({ settlement });
  if (isFailure(decision)) return decision;
  if (decision.again) return { ok: true, state: S.aborted, accountIds: [], windowsAfter: null };
  return {
    ok: true,
    state: S.aborted,
    accountIds: [...settlement.accounts.keys()],
    windowsAfter: decideWindowsAfterSettlement({ settlementId: settlement.id, windows, state: WINDOWS_FOLLOW[S.aborted] }),
  };
}

/**
 * The position changes that reset the accounts `accountIds` of a settlement (each reaching
 * PS_TRANSFERS_COMMITTED): settlementPositionChanges for each. `counters`: position account
 * id → { settlementAccountId, hubAccountId }; an account without them is a bug of onboarding
 * and throws.
 */
export function settlementResetChanges({ settlement, accountIds, counters }) {
  return accountIds.flatMap((accountId) => {
    const counter = counters.get(accountId);
    if (!counter?.hubAccountId) throw new Error(`no settlement or hub multilateral settlement account for position account ${accountId}`);
    return settlementPositionChanges({ settlementId: settlement.id, account: settlement.accounts.get(accountId), ...counter });
  });
}

/**
 * The ledger's side of an account reaching PS_TRANSFERS_COMMITTED under a model that resets
 * positions: its position falls by the net amount (a debtor's obligation is paid, a
 * creditor's claim is met) and its settlement account moves the opposite way (the money left
 * the debtor's and reached the creditor's). The hub's multilateral settlement account is the
 * other side of both, so each pair of changes sums to zero and, once every account of a
 * multilateral settlement is committed, the hub's account is back where it was.
 */
export function settlementPositionChanges({ settlementId, account, settlementAccountId, hubAccountId }) {
  const transferId = settlementTransferId(settlementId, account.accountId);
  const net = account.netAmount;
  return [
    { accountId: account.accountId, change: -net, transferId, reason: 'SETTLEMENT_POSITION' },
    { accountId: hubAccountId, change: net, transferId, reason: 'SETTLEMENT_POSITION' },
    { accountId: settlementAccountId, change: net, transferId, reason: 'SETTLEMENT_FUNDS' },
    { accountId: hubAccountId, change: -net, transferId, reason: 'SETTLEMENT_FUNDS' },
  ];
}

/** The id the settlement's journal entries of one account carry (at most 36 characters). */
export function settlementTransferId(settlementId, accountId) {
  return `settlement-${settlementId}-${accountId}`;
}

/**
 * A transfer settled gross as it commits (continuous gross settlement): each position is
 * returned to where it was before the transfer, and the amount moves between the two
 * settlement accounts instead, as if the payer had paid the payee from its deposit at once.
 */
export function grossSettlementPositionChanges({ transfer, payerSettlementAccountId, payeeSettlementAccountId }) {
  const { transferId, amount } = transfer;
  return [
    { accountId: transfer.payerAccountId, change: -amount, transferId, reason: 'GROSS_SETTLEMENT' },
    { accountId: payerSettlementAccountId, change: amount, transferId, reason: 'GROSS_SETTLEMENT' },
    { accountId: transfer.payeeAccountId, change: amount, transferId, reason: 'GROSS_SETTLEMENT' },
    { accountId: payeeSettlementAccountId, change: -amount, transferId, reason: 'GROSS_SETTLEMENT' },
  ];
}

/**
 * The position changes of a batch of transfers settled gross (grossSettlementPositionChanges
 * for each). `counters`: position account id → { settlementAccountId }; a position account
 * without a settlement account is a bug of onboarding and throws.
 */
export function grossSettlementChanges({ transfers, counters }) {
  const settlementAccountOf = (accountId) => {
    const counter = counters.get(accountId);
    if (!counter) throw new Error(`position account ${accountId} has no settlement account`);
    return counter.settlementAccountId;
  };
  return transfers.flatMap((transfer) => grossSettlementPositionChanges({
    transfer, payerSettlementAccountId: settlementAccountOf(transfer.payerAccountId), payeeSettlementAccountId: settlementAccountOf(transfer.payeeAccountId),
  }));
}
