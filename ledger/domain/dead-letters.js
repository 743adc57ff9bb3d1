// What becomes of a transfer when the switch had to set one of its messages aside as a dead
// letter: nothing may stay open. A transfer never stored is unknown to all but its sender,
// who is told. One waiting for its reservation is refused. One the payee has been told of
// (reserved, or fulfilled but not yet committed) is released through the payer's position
// account, and the position handler tells payer and payee. The failure (2001) says that the
// switch, not a DFSP, was at fault. A conversion payment's release names its conversion, so
// both are released together; a conversion set aside ends as a payment would, on the
// payer's source currency, unless its FXP has fulfilled it: then it ends with its payment.
import { conversionRelease, conversionToRelease, withConversion } from './conversions.js';
import { tell, tellFx } from './outcomes.js';
import { TRANSFER_KIND, TRANSFER_STATE, transition } from './transfer-states.js';

const S = TRANSFER_STATE;
const NOTHING = Object.freeze({ stateUpdates: [], positionEvents: [], outcomes: [] });

/**
 * Whether `event` may end `transfer`: the switch's own position events may; a DFSP's message
 * only if it comes from the party whose step it is (the payer's prepare, the payee's
 * completion), so that nobody can end someone else's transfer by sending a bad message for it.
 */
function mayEnd(event, transfer) {
  if (event.type === 'position') return true;
  if (event.type !== 'transfer') return false;
  if (event.action === 'prepare') return event.from === transfer.payerFsp;
  return event.action !== 'get' && event.from === transfer.payeeFsp;
}

/** As `mayEnd`, for a conversion: the payer's fx prepare, or the FXP's answer. */
function mayEndConversion(event, conversion) {
  if (event.type === 'position') return true;
  if (event.type !== 'fxTransfer') return false;
  if (event.action === 'fx-prepare') return event.from === conversion.payerFsp;
  return event.action !== 'fx-get' && event.from === conversion.payeeFsp;
}

function tellSender(event, failure, teller = tell) {
  if (typeof event.from !== 'string' || event.from === '') return NOTHING;
  return { ...NOTHING, outcomes: [teller.error(event.id, event.from, failure)] };
}

/**
 * `event`: the dead-lettered event (a DFSP's transfer or fx transfer message, or a position
 * event). `transfer`: the stored transfer or conversion, locked, or undefined. `linked`: the
 * conversion of a payment that has one (by commitRequestId), read locked with it. Returns
 * state updates, position events and outcomes, as the handlers' own decisions do.
 */
export function decideDeadLetteredTransfer({ event, transfer, failure, now, linked = new Map() }) {
  if (!transfer) return event.type === 'position' ? NOTHING : tellSender(event, failure, event.type === 'fxTransfer' ? tellFx : tell);
  if (transfer.kind === TRANSFER_KIND.fxTransfer) return decideDeadLetteredConversion({ event, conversion: transfer, failure, now });
  if (transfer.kind !== TRANSFER_KIND.payment || !mayEnd(event, transfer)) {
    // A GET, someone else's message, or the operator's funds movement: only the sender hears.
    return event.type === 'position' ? NOTHING : tellSender(event, failure);
  }
  const transferId = transfer.transferId;
  if (transfer.state === S.receivedPrepare) {
    const conversion = conversionToRelease(transfer, linked);
    return {
      ...NOTHING,
      stateUpdates: [{ transferId, kind: transfer.kind, statePath: transition(transfer.kind, transfer.state, S.abortedRejected), failure, completedAt: now }],
      positionEvents: conversion ? [conversionRelease(conversion, event, failure)] : [],
      outcomes: [tell.error(transferId, transfer.payerFsp, failure)],
    };
  }
  const release = withConversion({ accountId: transfer.payerAccountId, action: 'abort', message: event, failure }, transfer, linked);
  if (transfer.state === S.reserved) {
    // As for an invalid fulfilment: marked in error here, released by the position handler.
    return {
      ...NOTHING,
      stateUpdates: [{ transferId, kind: transfer.kind, statePath: transition(transfer.kind, transfer.state, S.receivedError), failure }],
      positionEvents: [release],
    };
  }
  // The commit could not be applied: the position handler releases the payer's funds instead.
  if (transfer.state === S.receivedFulfil) return { ...NOTHING, positionEvents: [release] };
  // Final, or already on its way to a final state by an event of its own (an abort, an expiry).
  return NOTHING;
}

/**
 * A conversion set aside: one waiting for its reservation is refused, a reserved one is
 * marked in error and released on the payer's source currency (the position handler tells
 * payer and FXP). One its FXP has fulfilled waits for its payment, which commits or releases
 * it, or expires without one; anything further along is already ending.
 */
function decideDeadLetteredConversion({ event, conversion, failure, now }) {
  if (!mayEndConversion(event, conversion)) return event.type === 'position' ? NOTHING : tellSender(event, failure, tellFx);
  const { transferId } = conversion;
  if (conversion.state === S.receivedPrepare) {
    return {
      ...NOTHING,
      stateUpdates: [{ transferId, kind: conversion.kind, statePath: transition(conversion.kind, conversion.state, S.abortedRejected), failure, completedAt: now }],
      outcomes: [tellFx.error(transferId, conversion.payerFsp, failure)],
    };
  }
  if (conversion.state !== S.reserved) return NOTHING;
  return {
    ...NOTHING,
    stateUpdates: [{ transferId, kind: conversion.kind, statePath: transition(conversion.kind, conversion.state, S.receivedError), failure }],
    positionEvents: [{ accountId: conversion.payerAccountId, action: 'fx-abort', message: event, commitRequestId: transferId, failure }],
  };
}
