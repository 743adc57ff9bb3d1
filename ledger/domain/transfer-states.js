// Transfer states and every allowed transition, as data in one table. Anything not listed
// is rejected, so a redelivered or out-of-order message can never move a transfer backwards.

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

/** from → [to, ...]; `null` is "no transfer yet". */
const TRANSITIONS = Object.freeze({
  null: [S.receivedPrepare, S.invalid],
  [S.receivedPrepare]: [S.reserved, S.abortedRejected, S.expiredPrepared],
  // A payment's reservation ends through the fulfil handler (fulfil or error) or the
  // timeout handler; a funds-out reservation is committed or aborted by the operator.
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

export function isFinal(state) {
  return TRANSITIONS[state]?.length === 0;
}

export function fspiopTransferState(state) {
  const external = FSPIOP_TRANSFER_STATE[state];
  if (!external) throw new Error(`unknown transfer state ${state}`);
  return external;
}

export const ALL_TRANSFER_STATES = Object.freeze(Object.values(TRANSFER_STATE));
