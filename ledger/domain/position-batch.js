// The position handler's decision for one batch. Messages are keyed by position account,
// so this handler alone moves those accounts' positions. Work in flight is finished first
// (commits, aborts, expiries free or settle funds), then new reservations are taken, each
// one lowering the headroom left for the next (central-ledger's batch raises it instead).
// A redelivered event whose effect is already stored (the process died after its database
// commit, before its output was produced) changes nothing and produces its output again.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { formatAmount } from './money.js';
import { tell } from './outcomes.js';
import { checkReservation } from './position.js';
import { TRANSFER_STATE, canTransition, transition } from './transfer-states.js';

const S = TRANSFER_STATE;

/**
 * `events`: { action, accountId, message, fulfilAction?, failure? } in consumption order.
 * `transfers`: transferId → transfer (locked). `positions`: accountId → value (locked).
 * `settlements` / `limits`: payer position accountId → settlement value / net debit cap.
 * Returns position changes, state updates, outcomes and the transfers committed (which the
 * open settlement window records in the same transaction); anything already applied (a
 * redelivered event) is skipped because its transfer is no longer in the expected state.
 */
export function decidePositionBatch({ events, transfers, positions, settlements, limits, now }) {
  const context = { transfers: new Map(transfers), running: new Map(positions), settlements, limits, now };
  const result = { positionChanges: [], stateUpdates: [], outcomes: [], committedTransfers: [] };
  const ordered = [...events.filter((event) => event.action !== 'prepare'), ...events.filter((event) => event.action === 'prepare')];
  for (const event of ordered) {
    const transfer = context.transfers.get(event.message.id);
    const decide = DECIDERS[event.action];
    if (!transfer || !decide) continue;
    const decision = decide(event, transfer, context) ?? replay(event, transfer);
    if (!decision) continue;
    if (decision.replayed) {
      result.outcomes.push(...decision.outcomes);
      continue;
    }
    context.transfers.set(transfer.transferId, afterUpdate(transfer, decision.update));
    if (decision.change) {
      result.positionChanges.push(decision.change);
      context.running.set(decision.change.accountId, context.running.get(decision.change.accountId) + decision.change.change);
    }
    result.stateUpdates.push(decision.update);
    result.outcomes.push(...decision.outcomes);
    if (decision.committed) result.committedTransfers.push(decision.committed);
  }
  return result;
}

/**
 * The transfer as the database will hold it once `update` is applied: a duplicate of the
 * event later in the same batch is replayed from this, so it must carry the failure and
 * completion time just decided, exactly as a redelivery would read them back.
 */
function afterUpdate(transfer, update) {
  return {
    ...transfer,
    state: update.statePath.at(-1),
    failure: update.failure ?? transfer.failure,
    completedAt: update.completedAt ?? transfer.completedAt,
  };
}

/** A state update from the transfer's current state, asserted against the transition table. */
function update(transfer, toState, extra = {}) {
  return { transferId: transfer.transferId, statePath: transition(transfer.kind, transfer.state, toState), ...extra };
}

/**
 * Each decider first asks whether its event still applies; one that no longer does (the
 * transfer moved on: a redelivery, or a stale event) returns null and is replayed or
 * ignored, never asserted. Only a change it goes on to apply is asserted by `update`.
 */
function reserve(event, transfer, { running, settlements, limits, now }) {
  if (!canTransition(transfer.kind, transfer.state, S.reserved)) return null;
  // The handler locks the positions the events name, so a reservation must arrive on its payer's account.
  assertAccount(event, transfer.payerAccountId);
  const payer = transfer.payerAccountId;
  if (transfer.expiresAt.getTime() <= now.getTime()) {
    const expired = failure(FAILURE.transferExpired, `transfer expired at ${transfer.expiresAt.toISOString()} before it was reserved`);
    return { update: update(transfer, S.expiredPrepared, { failure: expired, completedAt: now }), outcomes: [tell.error(transfer.transferId, transfer.payerFsp, expired)] };
  }
  const refused = checkReservation({
    positionValue: running.get(payer), settlementValue: settlements.get(payer), netDebitCap: limits.get(payer), amount: transfer.amount,
  });
  if (refused) {
    return { update: update(transfer, S.abortedRejected, { failure: refused, completedAt: now }), outcomes: [tell.error(transfer.transferId, transfer.payerFsp, refused)] };
  }
  return {
    change: { accountId: payer, change: transfer.amount, transferId: transfer.transferId, reason: 'PREPARE' },
    update: update(transfer, S.reserved),
    outcomes: [tell.forwardPrepare(transfer.transferId, transfer.payeeFsp, event.message)],
  };
}

function commit(event, transfer, { now }) {
  if (!canTransition(transfer.kind, transfer.state, S.committed)) return null;
  assertAccount(event, transfer.payeeAccountId);
  const view = { state: S.committed, completedAt: transfer.completedAt ?? now, fulfilment: transfer.fulfilment };
  const outcomes = commitOutcomes(event, transfer, view);
  return {
    change: { accountId: transfer.payeeAccountId, change: -transfer.amount, transferId: transfer.transferId, reason: 'COMMIT' },
    // The fulfil handler stored the payee's completion time; only a missing one is filled in.
    update: update(transfer, S.committed, transfer.completedAt ? {} : { completedAt: now }),
    outcomes,
    committed: {
      transferId: transfer.transferId, payerAccountId: transfer.payerAccountId, payeeAccountId: transfer.payeeAccountId,
      currency: transfer.currency, amount: transfer.amount,
    },
  };
}

function abort(event, transfer, { now }) {
  if (!canTransition(transfer.kind, transfer.state, S.abortedError)) return null;
  assertAccount(event, transfer.payerAccountId);
  const outcomes = event.failure
    ? abortOutcomes(event, transfer, { failure: event.failure, completedAt: now })
    : [tell.forwardError(transfer.transferId, transfer.payerFsp, event.message)];
  return {
    change: { accountId: transfer.payerAccountId, change: -transfer.amount, transferId: transfer.transferId, reason: 'ABORT' },
    // A failure decided by the switch is stored with the abort, so a redelivery tells the same.
    update: update(transfer, S.abortedError, { completedAt: now, ...(event.failure ? { failure: event.failure } : {}) }),
    outcomes,
  };
}

function expireReserved(event, transfer, { now }) {
  if (!canTransition(transfer.kind, transfer.state, S.expiredReserved)) return null;
  assertAccount(event, transfer.payerAccountId);
  const expired = failure(FAILURE.transferExpired, `transfer expired at ${transfer.expiresAt.toISOString()}; ${formatAmount(transfer.amount)} ${transfer.currency} released`);
  return {
    change: { accountId: transfer.payerAccountId, change: -transfer.amount, transferId: transfer.transferId, reason: 'TIMEOUT' },
    update: update(transfer, S.expiredReserved, { failure: expired, completedAt: now }),
    outcomes: [tell.error(transfer.transferId, transfer.payerFsp, expired), tell.error(transfer.transferId, transfer.payeeFsp, expired)],
  };
}

/**
 * The output of an event whose state change is already stored: the same callbacks again
 * (at least once), and never a second position change. Anything else is stale: ignored.
 */
function replay(event, transfer) {
  const stored = transfer.failure;
  const both = () => [tell.error(transfer.transferId, transfer.payerFsp, stored), tell.error(transfer.transferId, transfer.payeeFsp, stored)];
  const byAction = {
    prepare: {
      [S.reserved]: () => [tell.forwardPrepare(transfer.transferId, transfer.payeeFsp, event.message)],
      [S.abortedRejected]: () => [tell.error(transfer.transferId, transfer.payerFsp, stored)],
      // Expired before it could be reserved: the payer was told 3303 and must be told again.
      [S.expiredPrepared]: () => [tell.error(transfer.transferId, transfer.payerFsp, stored)],
    },
    commit: {
      [S.committed]: () => commitOutcomes(event, transfer, { state: S.committed, completedAt: transfer.completedAt, fulfilment: transfer.fulfilment }),
    },
    abort: {
      [S.abortedError]: () => (stored ? abortOutcomes(event, transfer, { failure: stored, completedAt: transfer.completedAt }) : [tell.forwardError(transfer.transferId, transfer.payerFsp, event.message)]),
    },
    'timeout-reserved': { [S.expiredReserved]: both },
  };
  const outcomes = byAction[event.action]?.[transfer.state];
  return outcomes ? { replayed: true, outcomes: outcomes() } : null;
}

/**
 * A commit tells the payer with the payee's own fulfil. A payee that fulfilled with
 * transferState RESERVED asked the switch to decide: then the payer hears the final state
 * from the hub (the payee's RESERVED is not an outcome) and the payee gets a PATCH.
 */
function commitOutcomes(event, transfer, view) {
  if (event.fulfilAction !== 'reserve') return [tell.forwardFulfil(transfer.transferId, transfer.payerFsp, event.message)];
  return [tell.state(transfer.transferId, transfer.payerFsp, view), tell.patchFinalState(transfer.transferId, transfer.payeeFsp, view)];
}

/**
 * A switch-decided abort (a wrong or missing fulfilment) tells both parties the failure; a
 * payee that fulfilled with transferState RESERVED is also sent the final state as a PATCH, as
 * it would be after a commit, since it holds the funds until it hears the outcome, and why.
 */
function abortOutcomes(event, transfer, { failure: told, completedAt }) {
  const outcomes = [tell.error(transfer.transferId, transfer.payerFsp, told), tell.error(transfer.transferId, transfer.payeeFsp, told)];
  if (event.fulfilAction === 'reserve') outcomes.push(tell.patchFinalState(transfer.transferId, transfer.payeeFsp, { state: S.abortedError, completedAt, failure: told }));
  return outcomes;
}

/** A position event must arrive on the account it moves; anything else is a bug upstream. */
function assertAccount(event, accountId) {
  if (event.accountId !== accountId) throw new Error(`position event for ${event.message.id} keyed by account ${event.accountId}, expected ${accountId}`);
}

const DECIDERS = Object.freeze({ prepare: reserve, commit, abort, 'timeout-reserved': expireReserved });
