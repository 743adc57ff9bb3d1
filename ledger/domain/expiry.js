// The timeout handler's decision for transfers it claimed past their expiry: one never
// reserved is finished at once and its payer told; a reserved one goes to the position
// handler, which releases the payer's position and tells both parties.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { conversionRelease, conversionToRelease, withConversion } from './conversions.js';
import { decideFxExpiry, fxReleaseEvent } from './fx-expiry.js';
import { tell } from './outcomes.js';
import { TRANSFER_KIND, TRANSFER_STATE, canTransition, transition } from './transfer-states.js';

const S = TRANSFER_STATE;

/**
 * `transfers` were claimed locked in RECEIVED_PREPARE or RESERVED (a conversion also in
 * RECEIVED_FULFIL_DEPENDENT), so every one of them is changed, a conversion waiting for its
 * dependent transfer apart: one in any other state is a bug in the claim and fails the
 * transition assertion. `linked`: id → record, read locked with them: the conversion of a
 * claimed payment that has one (by commitRequestId), the dependent transfer of a claimed
 * conversion (by its determiningTransferId).
 */
export function decideExpiries({ transfers, now, linked = new Map() }) {
  const result = { stateUpdates: [], positionEvents: [], outcomes: [] };
  for (const transfer of transfers) {
    const decided = transfer.kind === TRANSFER_KIND.fxTransfer
      ? decideFxExpiry(transfer, linked.get(transfer.determiningTransferId), now)
      : decidePaymentExpiry(transfer, linked, now);
    if (decided.stateUpdate) result.stateUpdates.push(decided.stateUpdate);
    if (decided.positionEvent) result.positionEvents.push(decided.positionEvent);
    result.outcomes.push(...decided.outcomes);
  }
  return result;
}

/**
 * A payment never reserved ends here; its conversion, if its FXP had fulfilled it, is
 * released on the payer's source currency at once rather than when it expires itself.
 */
function decidePaymentExpiry(transfer, linked, now) {
  if (transfer.expiresAt.getTime() > now.getTime()) throw new Error(`transfer ${transfer.transferId} claimed before its expiry`);
  if (canTransition(transfer.kind, transfer.state, S.expiredPrepared)) {
    const expired = failure(FAILURE.transferExpired, `transfer expired at ${transfer.expiresAt.toISOString()} before it was reserved`);
    const conversion = conversionToRelease(transfer, linked);
    return {
      stateUpdate: { transferId: transfer.transferId, kind: transfer.kind, statePath: transition(transfer.kind, transfer.state, S.expiredPrepared), failure: expired, completedAt: now },
      outcomes: [tell.error(transfer.transferId, transfer.payerFsp, expired)],
      ...(conversion ? { positionEvent: conversionRelease(conversion, timeoutMessage(transfer), expired) } : {}),
    };
  }
  return {
    stateUpdate: { transferId: transfer.transferId, kind: transfer.kind, statePath: transition(transfer.kind, transfer.state, S.reservedTimeout) },
    positionEvent: withConversion(releaseEvent(transfer), transfer, linked),
    outcomes: [],
  };
}

/** The message of a release the timeout handler decides: no DFSP sent it. */
function timeoutMessage(transfer) {
  return { id: transfer.transferId, type: 'transfer', action: 'timeout', from: transfer.payerFsp, to: transfer.payeeFsp, headers: {}, body: {} };
}

function releaseEvent(transfer) {
  return {
    accountId: transfer.payerAccountId,
    action: 'timeout-reserved',
    message: timeoutMessage(transfer),
  };
}

/**
 * Transfers marked RESERVED_TIMEOUT long ago whose release may have been lost (the timeout
 * handler died between its commit and its produce): the release is sent again; the position
 * handler applies it at most once. `linked`: the conversions of the payments among them.
 */
export function releaseStaleTimeouts(transfers, linked = new Map()) {
  return transfers.filter((transfer) => canTransition(transfer.kind, transfer.state, S.expiredReserved)).map((transfer) => (
    transfer.kind === TRANSFER_KIND.fxTransfer ? fxReleaseEvent(transfer) : withConversion(releaseEvent(transfer), transfer, linked)));
}
