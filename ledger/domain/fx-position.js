// The position handler's decisions about conversions (fx transfers), on the same batch as
// payments (position-batch.js). A conversion reserves its payer in the source currency
// (fx-prepare); the FXP's error, a fulfilment not matching the condition, or its expiry
// releases that reservation (fx-abort, fx-timeout-reserved). Once its FXP has fulfilled it,
// a conversion moves only with its dependent transfer, in the same decision: the transfer's
// commit credits the FXP in the source currency (payer → FXP) while the transfer itself
// credits the payee in the target currency (FXP → payee); the transfer's refusal, abort or
// expiry releases the payer's source currency while the transfer releases the FXP's target
// currency. Either way both records and every position they move change in one transaction.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { formatAmount } from './money.js';
import { tellFx } from './outcomes.js';
import { assertAccount, assertLinked, reservationRefusal, update } from './position-steps.js';
import { TRANSFER_KIND, TRANSFER_STATE, canTransition, isFinal } from './transfer-states.js';

const S = TRANSFER_STATE;
const FX = TRANSFER_KIND.fxTransfer;

/** The actions that take new reservations: decided after everything that frees funds. */
export const RESERVING_ACTIONS = Object.freeze(new Set(['prepare', 'fx-prepare']));

/** The conversion an fx position event is about, when it is one. */
export function conversionOfEvent(event, records) {
  const record = records.get(event.commitRequestId);
  return record?.kind === FX ? record : undefined;
}

const release = (conversion, reason) => ({ accountId: conversion.payerAccountId, change: -conversion.amount, transferId: conversion.transferId, reason });
const ended = (completedAt, cause) => ({ state: S.abortedError, completedAt, failure: cause });

function reserveConversion(event, conversion, context) {
  if (!canTransition(FX, conversion.state, S.reserved)) return null;
  assertAccount(event, conversion.payerAccountId);
  const refused = reservationRefusal(conversion, context);
  if (refused) {
    const toState = refused.code === FAILURE.transferExpired ? S.expiredPrepared : S.abortedRejected;
    return { updates: [update(conversion, toState, { failure: refused, completedAt: context.now })], outcomes: [tellFx.error(conversion.transferId, conversion.payerFsp, refused)] };
  }
  return {
    changes: [{ accountId: conversion.payerAccountId, change: conversion.amount, transferId: conversion.transferId, reason: 'FX_PREPARE' }],
    updates: [update(conversion, S.reserved)],
    outcomes: [tellFx.forwardPrepare(conversion.transferId, conversion.payeeFsp, event.message)],
  };
}

/** Whether the payment a fulfilled conversion was for has ended without committing. */
function dependentEnded(conversion, records) {
  const dependent = records.get(conversion.determiningTransferId);
  return dependent !== undefined && dependent.commitRequestId === conversion.transferId && isFinal(dependent.state) && dependent.state !== S.committed;
}

/**
 * The FXP's error or a fulfilment not matching the condition (the fulfil handler made the
 * conversion RECEIVED_ERROR), or its dependent transfer refused at prepare (the conversion
 * is still fulfilled, the transfer, read with it, has ended): the payer's source currency
 * is released.
 */
function abortConversion(event, conversion, context) {
  if (conversion.state === S.receivedError) {
    assertAccount(event, conversion.payerAccountId);
    return {
      changes: [release(conversion, 'FX_ABORT')],
      updates: [update(conversion, S.abortedError, { completedAt: context.now, ...(event.failure ? { failure: event.failure } : {}) })],
      outcomes: fxAbortOutcomes(event, conversion, event.failure),
    };
  }
  if (conversion.state !== S.receivedFulfilDependent || !dependentEnded(conversion, context.transfers)) return null;
  assertAccount(event, conversion.payerAccountId);
  return {
    changes: [release(conversion, 'FX_ABORT')],
    updates: [update(conversion, S.abortedError, { completedAt: context.now, ...(event.failure ? { failure: event.failure } : {}) })],
    outcomes: [tellFx.patchFinalState(conversion.transferId, conversion.payeeFsp, ended(context.now, event.failure))],
  };
}

/** The FXP's own error goes to the payer as it sent it; a switch-found failure to both. */
function fxAbortOutcomes(event, conversion, told) {
  const { transferId: id, payerFsp, payeeFsp } = conversion;
  return told ? [tellFx.error(id, payerFsp, told), tellFx.error(id, payeeFsp, told)] : [tellFx.forwardError(id, payerFsp, event.message)];
}

function expireConversion(event, conversion, { now }) {
  if (!canTransition(FX, conversion.state, S.expiredReserved)) return null;
  assertAccount(event, conversion.payerAccountId);
  const expired = failure(FAILURE.transferExpired,
    `conversion expired at ${conversion.expiresAt.toISOString()}; ${formatAmount(conversion.amount)} ${conversion.currency} released`);
  return {
    changes: [release(conversion, 'FX_TIMEOUT')],
    updates: [update(conversion, S.expiredReserved, { failure: expired, completedAt: now })],
    outcomes: expiryOutcomes(conversion, { failure: expired, completedAt: now }),
  };
}

/**
 * The payer hears 3303. An FXP that had fulfilled waits for the outcome: it gets the PATCH
 * ABORTED (with the cause); one that had not answered gets 3303 as a payee would.
 */
function expiryOutcomes(conversion, { failure: told, completedAt }) {
  const { transferId: id, payerFsp, payeeFsp } = conversion;
  const toFxp = conversion.fulfilment ? tellFx.patchFinalState(id, payeeFsp, { state: S.expiredReserved, completedAt, failure: told }) : tellFx.error(id, payeeFsp, told);
  return [tellFx.error(id, payerFsp, told), toFxp];
}

export const FX_DECIDERS = Object.freeze({ 'fx-prepare': reserveConversion, 'fx-abort': abortConversion, 'fx-timeout-reserved': expireConversion });

/** The output of an fx event whose change is already stored: the same callbacks, no position change. */
export function replayConversion(event, conversion, records) {
  const { transferId: id, payerFsp } = conversion;
  const stored = conversion.failure;
  const byAction = {
    'fx-prepare': {
      [S.reserved]: () => [tellFx.forwardPrepare(id, conversion.payeeFsp, event.message)],
      [S.abortedRejected]: () => [tellFx.error(id, payerFsp, stored)],
      [S.expiredPrepared]: () => [tellFx.error(id, payerFsp, stored)],
    },
    'fx-abort': {
      [S.abortedError]: () => (dependentEnded(conversion, records)
        ? [tellFx.patchFinalState(id, conversion.payeeFsp, ended(conversion.completedAt, stored))]
        : fxAbortOutcomes(event, conversion, stored)),
    },
    'fx-timeout-reserved': { [S.expiredReserved]: () => expiryOutcomes(conversion, { failure: stored, completedAt: conversion.completedAt }) },
  };
  const outcomes = byAction[event.action]?.[conversion.state];
  return outcomes ? { replayed: true, outcomes: outcomes() } : null;
}

/**
 * Why a dependent transfer may not reserve its FXP: its conversion is no longer fulfilled
 * and waiting for it (it expired, or ended otherwise, while the transfer's reservation was
 * on its way). Checked under the lock of both records.
 */
export function conversionRefusal(conversion) {
  if (!conversion || conversion.state === S.receivedFulfilDependent) return null;
  if (conversion.state === S.reservedTimeout || conversion.state === S.expiredReserved) {
    return failure(FAILURE.transferExpired, `conversion ${conversion.transferId} expired at ${conversion.expiresAt.toISOString()}`);
  }
  return failure(FAILURE.validation, `conversion ${conversion.transferId} is ${conversion.state}, not reserved by its FXP`);
}

/**
 * The conversion's half of its dependent transfer's commit: the FXP is credited the source
 * amount, the conversion commits with the transfer's completion time, and the FXP gets the
 * PATCH COMMITTED. A dependent transfer being committed holds a reservation, so its
 * conversion cannot have ended: anything else is a bug, not an expected failure.
 */
export function commitWithTransfer(event, conversion, completedAt, { running }) {
  if (conversion.state !== S.receivedFulfilDependent) throw new Error(`conversion ${conversion.transferId} is ${conversion.state} while its transfer commits`);
  assertLinked(event, conversion.payeeAccountId, running);
  const view = { state: S.committed, completedAt, fulfilment: conversion.fulfilment };
  return {
    changes: [{ accountId: conversion.payeeAccountId, change: -conversion.amount, transferId: conversion.transferId, reason: 'FX_COMMIT' }],
    updates: [update(conversion, S.committed, { completedAt })],
    outcomes: [tellFx.patchFinalState(conversion.transferId, conversion.payeeFsp, view)],
    committed: [{
      transferId: conversion.transferId, payerAccountId: conversion.payerAccountId, payeeAccountId: conversion.payeeAccountId,
      currency: conversion.currency, amount: conversion.amount,
    }],
  };
}

/**
 * The conversion's half of its dependent transfer's end without a commit (refused, aborted,
 * expired): the payer's source currency is released and the FXP gets the PATCH ABORTED. A
 * conversion that already ended on its own (it expired first) has nothing left to release.
 */
export function releaseWithTransfer(event, conversion, { cause, completedAt }, { running }) {
  if (conversion.state !== S.receivedFulfilDependent) return {};
  assertLinked(event, conversion.payerAccountId, running);
  return {
    changes: [release(conversion, 'FX_ABORT')],
    updates: [update(conversion, S.abortedError, { completedAt, ...(cause ? { failure: cause } : {}) })],
    outcomes: [tellFx.patchFinalState(conversion.transferId, conversion.payeeFsp, ended(completedAt, cause))],
  };
}

/** The PATCH its FXP is owed again when a dependent transfer's finished event is replayed. */
export function replayWithTransfer(event, conversion) {
  if (!conversion) return [];
  if (event.action === 'commit' && conversion.state === S.committed) {
    return [tellFx.patchFinalState(conversion.transferId, conversion.payeeFsp, { state: S.committed, completedAt: conversion.completedAt, fulfilment: conversion.fulfilment })];
  }
  if (event.action !== 'commit' && conversion.state === S.abortedError) {
    return [tellFx.patchFinalState(conversion.transferId, conversion.payeeFsp, ended(conversion.completedAt, conversion.failure))];
  }
  return [];
}
