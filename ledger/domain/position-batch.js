// The position handler's decision for one batch. Messages are keyed by the position account
// they reserve or settle, which orders each account's events; every account a batch moves is
// read locked with it, so a conversion payment's commit or release may also move the
// accounts of its conversion, named by its event (fx-position.js, handlers/README.md). Work
// in flight is finished first (commits, aborts, expiries free or settle funds), then new
// reservations are taken, each one lowering the headroom left for the next (central-ledger's
// batch raises it instead).
// A redelivered event whose effect is already stored (the process died after its database
// commit, before its output was produced) changes nothing and produces its output again.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { conversionOf } from './conversions.js';
import {
  FX_DECIDERS, RESERVING_ACTIONS, commitWithTransfer, conversionOfEvent, conversionRefusal, releaseWithTransfer, replayConversion, replayWithTransfer,
} from './fx-position.js';
import { formatAmount } from './money.js';
import { tell } from './outcomes.js';
import { afterUpdate, assertAccount, reservationRefusal, update } from './position-steps.js';
import { TRANSFER_KIND, TRANSFER_STATE, canTransition } from './transfer-states.js';

const S = TRANSFER_STATE;

/**
 * `events`: { action, accountId, message, fulfilAction?, failure?, commitRequestId?,
 * linkedAccountIds? } in consumption order. `transfers`: transferId → transfer (locked),
 * conversions (fx transfers, by commitRequestId) among them. `positions`: accountId → value
 * (locked; every account the events name, linked ones too). `settlements` / `limits`:
 * reserving position accountId → settlement value / net debit cap.
 * Returns position changes, state updates, outcomes and the transfers committed (which the
 * open settlement window records in the same transaction); anything already applied (a
 * redelivered event) is skipped because its transfer is no longer in the expected state.
 */
export function decidePositionBatch({ events, transfers, positions, settlements, limits, now }) {
  const context = { transfers: new Map(transfers), running: new Map(positions), settlements, limits, now };
  const result = { positionChanges: [], stateUpdates: [], outcomes: [], committedTransfers: [] };
  const ordered = [...events.filter((event) => !RESERVING_ACTIONS.has(event.action)), ...events.filter((event) => RESERVING_ACTIONS.has(event.action))];
  for (const event of ordered) {
    const decision = decideEvent(event, context);
    if (!decision) continue;
    result.outcomes.push(...decision.outcomes);
    if (decision.replayed) continue;
    for (const decided of decision.updates) {
      context.transfers.set(decided.transferId, afterUpdate(context.transfers.get(decided.transferId), decided));
      result.stateUpdates.push(decided);
    }
    for (const change of decision.changes ?? []) {
      result.positionChanges.push(change);
      context.running.set(change.accountId, context.running.get(change.accountId) + change.change);
    }
    result.committedTransfers.push(...(decision.committed ?? []));
  }
  return result;
}

/**
 * The decision for one event, or its replay, or null when it no longer applies. Payment
 * events are about the transfer their message names, fx events about the conversion they
 * name; neither kind's event moves the other kind's record on its own.
 */
function decideEvent(event, context) {
  if (FX_DECIDERS[event.action]) {
    const conversion = conversionOfEvent(event, context.transfers);
    if (!conversion) return null;
    return FX_DECIDERS[event.action](event, conversion, context) ?? replayConversion(event, conversion, context.transfers);
  }
  const transfer = context.transfers.get(event.message.id);
  const decide = DECIDERS[event.action];
  if (!transfer || transfer.kind === TRANSFER_KIND.fxTransfer || !decide) return null;
  return decide(event, transfer, context) ?? replay(event, transfer, context.transfers);
}

/** One decision made of several: every change, update and outcome, in order. */
function combine(...decisions) {
  const parts = decisions.filter(Boolean);
  const all = (field) => parts.flatMap((part) => part[field] ?? []);
  return { changes: all('changes'), updates: all('updates'), outcomes: all('outcomes'), committed: all('committed') };
}

/**
 * Each decider first asks whether its event still applies; one that no longer does (the
 * transfer moved on: a redelivery, or a stale event) returns null and is replayed or
 * ignored, never asserted. Only a change it goes on to apply is asserted by `update`.
 * A payment a conversion is for reserves its FXP (its payer account), and is refused if the
 * conversion is no longer waiting for it; a refusal releases the conversion with it.
 */
function reserve(event, transfer, context) {
  if (!canTransition(transfer.kind, transfer.state, S.reserved)) return null;
  // The handler locks the positions the events name, so a reservation must arrive on its payer's account.
  assertAccount(event, transfer.payerAccountId);
  const conversion = conversionOf(transfer, context.transfers);
  const ownRefusal = reservationRefusal(transfer, context);
  const refused = conversionRefusal(conversion) ?? ownRefusal;
  if (refused) {
    const toState = refused === ownRefusal && refused.code === FAILURE.transferExpired ? S.expiredPrepared : S.abortedRejected;
    return combine(
      { updates: [update(transfer, toState, { failure: refused, completedAt: context.now })], outcomes: [tell.error(transfer.transferId, transfer.payerFsp, refused)] },
      conversion && releaseWithTransfer(event, conversion, { cause: refused, completedAt: context.now }, context),
    );
  }
  return {
    changes: [{ accountId: transfer.payerAccountId, change: transfer.amount, transferId: transfer.transferId, reason: 'PREPARE' }],
    updates: [update(transfer, S.reserved)],
    outcomes: [tell.forwardPrepare(transfer.transferId, transfer.payeeFsp, event.message)],
  };
}

/** A commit credits the payee; a payment's conversion commits with it, in the same decision. */
function commit(event, transfer, context) {
  if (!canTransition(transfer.kind, transfer.state, S.committed)) return null;
  assertAccount(event, transfer.payeeAccountId);
  const completedAt = transfer.completedAt ?? context.now;
  const view = { state: S.committed, completedAt, fulfilment: transfer.fulfilment };
  const conversion = conversionOf(transfer, context.transfers);
  return combine({
    changes: [{ accountId: transfer.payeeAccountId, change: -transfer.amount, transferId: transfer.transferId, reason: 'COMMIT' }],
    // The fulfil handler stored the payee's completion time; only a missing one is filled in.
    updates: [update(transfer, S.committed, transfer.completedAt ? {} : { completedAt: context.now })],
    outcomes: commitOutcomes(event, transfer, view),
    committed: [{
      transferId: transfer.transferId, payerAccountId: transfer.payerAccountId, payeeAccountId: transfer.payeeAccountId,
      currency: transfer.currency, amount: transfer.amount,
    }],
  }, conversion && commitWithTransfer(event, conversion, completedAt, context));
}

function abort(event, transfer, context) {
  if (!canTransition(transfer.kind, transfer.state, S.abortedError)) return null;
  assertAccount(event, transfer.payerAccountId);
  const { now } = context;
  const outcomes = event.failure
    ? abortOutcomes(event, transfer, { failure: event.failure, completedAt: now })
    : [tell.forwardError(transfer.transferId, transfer.payerFsp, event.message)];
  const conversion = conversionOf(transfer, context.transfers);
  return combine({
    changes: [{ accountId: transfer.payerAccountId, change: -transfer.amount, transferId: transfer.transferId, reason: 'ABORT' }],
    // A failure decided by the switch is stored with the abort, so a redelivery tells the same.
    updates: [update(transfer, S.abortedError, { completedAt: now, ...(event.failure ? { failure: event.failure } : {}) })],
    outcomes,
  }, conversion && releaseWithTransfer(event, conversion, { cause: event.failure, completedAt: now }, context));
}

function expireReserved(event, transfer, context) {
  if (!canTransition(transfer.kind, transfer.state, S.expiredReserved)) return null;
  assertAccount(event, transfer.payerAccountId);
  const { now } = context;
  const expired = failure(FAILURE.transferExpired, `transfer expired at ${transfer.expiresAt.toISOString()}; ${formatAmount(transfer.amount)} ${transfer.currency} released`);
  const conversion = conversionOf(transfer, context.transfers);
  return combine({
    changes: [{ accountId: transfer.payerAccountId, change: -transfer.amount, transferId: transfer.transferId, reason: 'TIMEOUT' }],
    updates: [update(transfer, S.expiredReserved, { failure: expired, completedAt: now })],
    outcomes: [tell.error(transfer.transferId, transfer.payerFsp, expired), tell.error(transfer.transferId, transfer.payeeFsp, expired)],
  }, conversion && releaseWithTransfer(event, conversion, { cause: expired, completedAt: now }, context));
}

/**
 * The output of an event whose state change is already stored: the same callbacks again
 * (at least once), and never a second position change. Anything else is stale: ignored.
 */
function replay(event, transfer, records) {
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
  if (!outcomes) return null;
  const conversion = transfer.commitRequestId ? records.get(transfer.commitRequestId) : undefined;
  return { replayed: true, outcomes: [...outcomes(), ...replayWithTransfer(event, conversion)] };
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

const DECIDERS = Object.freeze({ prepare: reserve, commit, abort, 'timeout-reserved': expireReserved });
