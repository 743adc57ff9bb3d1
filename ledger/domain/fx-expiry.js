// The timeout handler's decision for a conversion (fx transfer) it claimed past its expiry.
// One never reserved ends at once and its payer is told; a reserved one goes to the position
// handler, which releases the payer's source currency and tells payer and FXP. A conversion
// its FXP has fulfilled does not expire on its own while its dependent transfer holds a
// reservation: it ends with that transfer, committed or released in the same position
// transaction. Without one (never sent, refused, or its reservation still on its way, which
// the position handler then refuses) the conversion expires like a reserved one.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { tellFx } from './outcomes.js';
import { TRANSFER_STATE, canTransition, transition } from './transfer-states.js';

const S = TRANSFER_STATE;

/** The states in which a payment holds a reservation it will commit or release itself. */
export const HOLDING_RESERVATION = new Set([S.reserved, S.receivedFulfil, S.receivedError, S.reservedTimeout]);

/** The position event that releases a reserved conversion whose time is up. */
export function fxReleaseEvent(conversion) {
  return {
    accountId: conversion.payerAccountId,
    action: 'fx-timeout-reserved',
    commitRequestId: conversion.transferId,
    message: { id: conversion.transferId, type: 'fxTransfer', action: 'timeout', from: conversion.payerFsp, to: conversion.payeeFsp, headers: {}, body: {} },
  };
}

/** Whether the conversion's dependent transfer holds a reservation (read locked with it). */
export function dependentHoldsReservation(conversion, dependent) {
  return dependent?.commitRequestId === conversion.transferId && HOLDING_RESERVATION.has(dependent.state);
}

/**
 * One claimed conversion: `dependent` is its determining transfer as stored, if any. Returns
 * `{ stateUpdate?, positionEvent?, outcomes }`; nothing for a conversion that waits for its
 * transfer. A conversion in a state the claim may not take is a bug: the transition asserts.
 */
export function decideFxExpiry(conversion, dependent, now) {
  if (conversion.expiresAt.getTime() > now.getTime()) throw new Error(`conversion ${conversion.transferId} claimed before its expiry`);
  if (canTransition(conversion.kind, conversion.state, S.expiredPrepared)) {
    const expired = failure(FAILURE.transferExpired, `conversion expired at ${conversion.expiresAt.toISOString()} before it was reserved`);
    return {
      stateUpdate: { transferId: conversion.transferId, kind: conversion.kind, statePath: transition(conversion.kind, conversion.state, S.expiredPrepared), failure: expired, completedAt: now },
      outcomes: [tellFx.error(conversion.transferId, conversion.payerFsp, expired)],
    };
  }
  if (conversion.state === S.receivedFulfilDependent && dependentHoldsReservation(conversion, dependent)) return { outcomes: [] };
  return {
    stateUpdate: { transferId: conversion.transferId, kind: conversion.kind, statePath: transition(conversion.kind, conversion.state, S.reservedTimeout) },
    positionEvent: fxReleaseEvent(conversion),
    outcomes: [],
  };
}
