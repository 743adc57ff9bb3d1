// The timeout handler's decision for transfers it claimed past their expiry: one never
// reserved is finished at once and its payer told; a reserved one goes to the position
// handler, which releases the payer's position and tells both parties.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { tell } from './outcomes.js';
import { TRANSFER_STATE, canTransition, transition } from './transfer-states.js';

const S = TRANSFER_STATE;

/**
 * `transfers` were claimed locked in RECEIVED_PREPARE or RESERVED, so every one of them is
 * changed: one in any other state is a bug in the claim and fails the transition assertion.
 */
export function decideExpiries({ transfers, now }) {
  const result = { stateUpdates: [], positionEvents: [], outcomes: [] };
  for (const transfer of transfers) {
    if (transfer.expiresAt.getTime() > now.getTime()) throw new Error(`transfer ${transfer.transferId} claimed before its expiry`);
    if (canTransition(transfer.kind, transfer.state, S.expiredPrepared)) {
      const expired = failure(FAILURE.transferExpired, `transfer expired at ${transfer.expiresAt.toISOString()} before it was reserved`);
      result.stateUpdates.push({ transferId: transfer.transferId, statePath: transition(transfer.kind, transfer.state, S.expiredPrepared), failure: expired, completedAt: now });
      result.outcomes.push(tell.error(transfer.transferId, transfer.payerFsp, expired));
    } else {
      result.stateUpdates.push({ transferId: transfer.transferId, statePath: transition(transfer.kind, transfer.state, S.reservedTimeout) });
      result.positionEvents.push(releaseEvent(transfer));
    }
  }
  return result;
}

function releaseEvent(transfer) {
  return {
    accountId: transfer.payerAccountId,
    action: 'timeout-reserved',
    message: { id: transfer.transferId, type: 'transfer', action: 'timeout', from: transfer.payerFsp, to: transfer.payeeFsp, headers: {}, body: {} },
  };
}

/**
 * Transfers marked RESERVED_TIMEOUT long ago whose release may have been lost (the timeout
 * handler died between its commit and its produce): the release is sent again; the position
 * handler applies it at most once.
 */
export function releaseStaleTimeouts(transfers) {
  return transfers.filter((transfer) => canTransition(transfer.kind, transfer.state, S.expiredReserved)).map(releaseEvent);
}
