// What becomes of a transfer when the switch had to set one of its messages aside as a dead
// letter: nothing may stay open. A transfer never stored is unknown to all but its sender,
// who is told. One waiting for its reservation is refused. One the payee has been told of
// (reserved, or fulfilled but not yet committed) is released through the payer's position
// account, and the position handler tells payer and payee. The failure (2001) says that the
// switch, not a DFSP, was at fault.
import { tell } from './outcomes.js';
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

function tellSender(event, failure) {
  if (typeof event.from !== 'string' || event.from === '') return NOTHING;
  return { ...NOTHING, outcomes: [tell.error(event.id, event.from, failure)] };
}

/**
 * `event`: the dead-lettered event (a DFSP's transfer message or a position event).
 * `transfer`: the stored transfer, locked, or undefined. Returns state updates, position
 * events and outcomes, as the handlers' own decisions do.
 */
export function decideDeadLetteredTransfer({ event, transfer, failure, now }) {
  if (!transfer) return event.type === 'position' ? NOTHING : tellSender(event, failure);
  if (transfer.kind !== TRANSFER_KIND.payment || !mayEnd(event, transfer)) {
    // A GET, someone else's message, or the operator's funds movement: only the sender hears.
    return event.type === 'position' ? NOTHING : tellSender(event, failure);
  }
  const transferId = transfer.transferId;
  if (transfer.state === S.receivedPrepare) {
    return {
      ...NOTHING,
      stateUpdates: [{ transferId, statePath: transition(transfer.kind, transfer.state, S.abortedRejected), failure, completedAt: now }],
      outcomes: [tell.error(transferId, transfer.payerFsp, failure)],
    };
  }
  const release = { accountId: transfer.payerAccountId, action: 'abort', message: event, failure };
  if (transfer.state === S.reserved) {
    // As for an invalid fulfilment: marked in error here, released by the position handler.
    return {
      ...NOTHING,
      stateUpdates: [{ transferId, statePath: transition(transfer.kind, transfer.state, S.receivedError), failure }],
      positionEvents: [release],
    };
  }
  // The commit could not be applied: the position handler releases the payer's funds instead.
  if (transfer.state === S.receivedFulfil) return { ...NOTHING, positionEvents: [release] };
  // Final, or already on its way to a final state by an event of its own (an abort, an expiry).
  return NOTHING;
}
