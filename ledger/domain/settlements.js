// Deferred net settlement, as central-settlement runs it: a settlement takes closed windows'
// content for one settlement model, nets every participant's position account over the
// transfers committed in them, and then moves every account, in lock-step with the
// settlement, through PS_TRANSFERS_RECORDED → PS_TRANSFERS_RESERVED → PS_TRANSFERS_COMMITTED
// → SETTLED. States and transitions are data; the decisions below are pure.
//
// Sign convention (central-settlement's): a net amount above zero is what the participant
// owes (it paid out more than it received), below zero what it is owed.
import { FAILURE, failure } from '../../platform/domain/failures.js';

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
