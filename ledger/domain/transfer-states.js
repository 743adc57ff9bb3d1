// Transfer states and every allowed transition, as data in one table. Anything not listed
// is rejected, so a redelivered or out-of-order message can never move a transfer backwards.
// Every state change the domain decides is built by `transition`, which asserts each step
// against the table: deciding an illegal change is a bug, never an expected failure.

export const TRANSFER_STATE = Object.freeze({
  receivedPrepare: 'RECEIVED_PREPARE',
  reserved: 'RESERVED',
  receivedFulfil: 'RECEIVED_FULFIL',
  receivedError: 'RECEIVED_ERROR',
  reservedTimeout: 'RESERVED_TIMEOUT',
  committed: 'COMMITTED',
  abortedRejected: 'ABORTED_REJECTED',
  abortedError: 'ABORTED_ERROR',
  invalid: 'INVALID',
  expiredPrepared: 'EXPIRED_PREPARED',
  expiredReserved: 'EXPIRED_RESERVED',
});

const S = TRANSFER_STATE;

/**
 * from → [to, ...]; `null` is "no transfer yet". One table for every kind of transfer:
 * payments (prepare, position, fulfil and timeout handlers) and the operator's funds in and
 * out (admin API), which pass through RECEIVED_PREPARE and RESERVED in a single step.
 */
const TRANSITIONS = Object.freeze({
  null: [S.receivedPrepare, S.invalid],
  // Reserved by the position handler, refused by it (limit or cover: ABORTED_REJECTED, also
  // an overdrawing funds out), or expired before reservation (position or timeout handler).
  [S.receivedPrepare]: [S.reserved, S.abortedRejected, S.expiredPrepared],
  // A payment's reservation ends through the fulfil handler (fulfil or error) or the
  // timeout handler. Funds in commits straight from RESERVED, and the operator commits or
  // aborts a funds-out reservation directly. The table cannot tell the kinds apart, so a
  // payment's commit is also guarded by its RECEIVED_FULFIL state (position-batch.js).
  [S.reserved]: [S.receivedFulfil, S.receivedError, S.reservedTimeout, S.committed, S.abortedRejected],
  [S.receivedFulfil]: [S.committed],
  [S.receivedError]: [S.abortedError],
  [S.reservedTimeout]: [S.expiredReserved],
  [S.committed]: [],
  [S.abortedRejected]: [],
  [S.abortedError]: [],
  [S.invalid]: [],
  [S.expiredPrepared]: [],
  [S.expiredReserved]: [],
});

/** What a DFSP sees in `transferState` for each internal state (FSPIOP TransferState). */
const FSPIOP_TRANSFER_STATE = Object.freeze({
  [S.receivedPrepare]: 'RECEIVED',
  [S.reserved]: 'RESERVED',
  [S.receivedFulfil]: 'RESERVED',
  [S.receivedError]: 'RESERVED',
  [S.reservedTimeout]: 'RESERVED',
  [S.committed]: 'COMMITTED',
  [S.abortedRejected]: 'ABORTED',
  [S.abortedError]: 'ABORTED',
  [S.invalid]: 'ABORTED',
  [S.expiredPrepared]: 'ABORTED',
  [S.expiredReserved]: 'ABORTED',
});

export function canTransition(from, to) {
  const allowed = TRANSITIONS[from ?? 'null'];
  if (!allowed) throw new Error(`unknown transfer state ${from}`);
  return allowed.includes(to);
}

/**
 * The state path of one decided change: from `fromState` (`null` for a new transfer)
 * through each of `toStates` in order, as stored in the transfer's state journal (the
 * starting state is not repeated). Throws if any step is not in the table: code that
 * decides an illegal change is wrong, and must not write it. The path is frozen: a decided
 * change is a value nobody edits on its way to the database, and a test can tell a path
 * built here from one written by hand.
 */
export function transition(fromState, ...toStates) {
  // Only an explicit null means "new": a missing state is a caller's bug, not a new transfer.
  if (fromState === undefined) throw new Error('transfer transition from an undefined state');
  if (toStates.length === 0) throw new Error(`transfer transition from ${fromState} names no target state`);
  let current = fromState;
  for (const next of toStates) {
    if (!canTransition(current, next)) throw new Error(`illegal transfer transition ${current} → ${next}`);
    current = next;
  }
  return Object.freeze(toStates);
}

export function isFinal(state) {
  return TRANSITIONS[state]?.length === 0;
}

export function fspiopTransferState(state) {
  const external = FSPIOP_TRANSFER_STATE[state];
  if (!external) throw new Error(`unknown transfer state ${state}`);
  return external;
}

export const ALL_TRANSFER_STATES = Object.freeze(Object.values(TRANSFER_STATE));
