// What judging a fulfilment takes, the same for a payee's fulfil of a transfer (fulfil.js)
// and an FXP's of a conversion (fx-fulfil.js): whether it fulfils the condition, whether it
// came in time, and the completion time it reports.
import { fulfilmentMatchesCondition } from './ilp.js';
import { receivedAtOf } from './received-at.js';
import { TRANSFER_STATE } from './transfer-states.js';

const S = TRANSFER_STATE;
// The timeout handler has taken the transfer (RESERVED_TIMEOUT) or released it: its payer
// is told, or about to be told, that it was aborted.
const TIMED_OUT = new Set([S.reservedTimeout, S.expiredReserved]);

/**
 * What is wrong with a fulfilment, in central-ledger's words (its error's detail and the
 * cause DFSPs' tooling matches), or null when it fulfils the condition. A fulfil without one
 * is accepted at the edge, as Mojaloop accepts it (the API makes the element optional), and
 * aborts the transfer here like a wrong one.
 */
export function fulfilmentProblem(fulfilment, condition) {
  if (fulfilment === undefined) return 'missing fulfilment';
  return fulfilmentMatchesCondition(fulfilment, condition) ? null : 'invalid fulfilment';
}

/**
 * Whether a fulfilment (not the answerer's error, which is never too late: it only releases
 * the payer sooner) comes too late: 3303, with no state change. It is in time when the edge
 * received it before the expiry, however late the handler gets to it, as long as the
 * transfer is still RESERVED. Once the timeout handler has taken the transfer it is too late
 * whenever it was received: the two handlers lock the transfer row, the first to lock it
 * decides, and the transition table lets neither a fulfilled state nor RESERVED_TIMEOUT
 * become the other, so a transfer whose payer is told ABORTED never commits. Expiry is
 * reported before the state, so a fulfil that comes too late gets 3303 whether or not the
 * timeout handler has released the transfer yet.
 */
export function fulfilTooLate(event, transfer, now) {
  if (TIMED_OUT.has(transfer.state)) return true;
  return transfer.state === S.reserved && transfer.expiresAt.getTime() <= receivedAtOf(event, now).getTime();
}

/** The completion time a fulfilment reports, or `now` when it reports none that parses. */
export function completedAtOf(timestamp, now) {
  const ms = Date.parse(timestamp);
  return Number.isNaN(ms) ? now : new Date(ms);
}
