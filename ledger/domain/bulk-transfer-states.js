// Bulk transfer states and every allowed transition, as data in one table, in the style of
// transfer-states.js: a bulk's own lifecycle beside the lifecycles of its individual
// transfers, which stay ordinary transfers of kind PAYMENT. Every change the domain decides is
// built by `bulkTransition`, which asserts each step: deciding an illegal change is a bug.

export const BULK_STATE = Object.freeze({
  // Stored with its individual transfers; their reservations are being decided.
  received: 'RECEIVED',
  // Refused as a whole at prepare (an individual transfer's id is already taken).
  invalid: 'INVALID',
  // Every item has its prepare result and some reserved: forwarded to the payee.
  accepted: 'ACCEPTED',
  // The payee answered; its individual transfers are being committed or aborted.
  processing: 'PROCESSING',
  completed: 'COMPLETED',
  // No item reserved, or the payee refused the bulk.
  rejected: 'REJECTED',
  expired: 'EXPIRED',
  // One of its item results could not be processed and was set aside as a dead letter: the
  // bulk can no longer be settled by its items' results, so it ends here and its parties are
  // told that the switch failed (2001). Its reserved transfers expire as single ones.
  failed: 'FAILED',
});

const B = BULK_STATE;

/** from → [to, ...]; `null` is "no bulk yet". A state not listed has no way out. */
const BULK_TRANSITIONS = Object.freeze({
  null: [B.received, B.invalid],
  [B.received]: [B.accepted, B.rejected, B.expired, B.failed],
  [B.accepted]: [B.processing, B.rejected, B.expired, B.failed],
  // A bulk whose last transfers expired before the payee's answer committed them.
  [B.processing]: [B.completed, B.expired, B.failed],
});

/**
 * The states of a bulk that waits for its items' results. One still in them well past its
 * expiry, with none of its transfers left open, lost some results: it is swept to EXPIRED.
 */
export const OPEN_BULK_STATES = Object.freeze([B.received, B.accepted, B.processing]);

/** What a DFSP sees in `bulkTransferState` (FSPIOP BulkTransferState) for each state. */
const FSPIOP_BULK_STATE = Object.freeze({
  [B.received]: 'RECEIVED',
  [B.invalid]: 'REJECTED',
  [B.accepted]: 'ACCEPTED',
  [B.processing]: 'PROCESSING',
  [B.completed]: 'COMPLETED',
  [B.rejected]: 'REJECTED',
  [B.expired]: 'REJECTED',
  [B.failed]: 'REJECTED',
});

const KNOWN_BULK_STATES = new Set(Object.values(BULK_STATE));

/** Whether a bulk may go from `from` (`null`: not stored yet) to `to`. */
export function canBulkTransition(from, to) {
  if (from !== null && !KNOWN_BULK_STATES.has(from)) throw new Error(`unknown bulk transfer state ${from}`);
  return (BULK_TRANSITIONS[from ?? 'null'] ?? []).includes(to);
}

/** The state path of one decided change of a bulk; throws if a step is not in the table. */
export function bulkTransition(fromState, ...toStates) {
  if (fromState === undefined) throw new Error('bulk transfer transition from an undefined state');
  if (toStates.length === 0) throw new Error(`bulk transfer transition from ${fromState} names no target state`);
  let current = fromState;
  for (const next of toStates) {
    if (!canBulkTransition(current, next)) throw new Error(`illegal bulk transfer transition ${current} → ${next}`);
    current = next;
  }
  return Object.freeze(toStates);
}

export function isBulkFinal(state) {
  return KNOWN_BULK_STATES.has(state) && !Object.hasOwn(BULK_TRANSITIONS, state);
}

export function fspiopBulkTransferState(state) {
  const external = FSPIOP_BULK_STATE[state];
  if (!external) throw new Error(`unknown bulk transfer state ${state}`);
  return external;
}
