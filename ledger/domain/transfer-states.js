// Transfer states and every allowed transition, as data in one table. Anything not listed
// is rejected, so a redelivered or out-of-order message can never move a transfer backwards.
// Every state change the domain decides is built by `transition`, which asserts each step
// against the table: deciding an illegal change is a bug, never an expected failure.

export const TRANSFER_STATE = Object.freeze({
  receivedPrepare: 'RECEIVED_PREPARE',
  reserved: 'RESERVED',
  receivedFulfil: 'RECEIVED_FULFIL',
  // An fx transfer its FXP has fulfilled: it commits or aborts with its dependent transfer.
  receivedFulfilDependent: 'RECEIVED_FULFIL_DEPENDENT',
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
 * What a transfer is for: a DFSP's payment, the operator's funds in or out (admin API), or a
 * currency conversion by an FXP (POST /fxTransfers, whose commitRequestId is its transferId).
 * The payment a conversion is for (its dependent transfer) is a payment like any other.
 */
export const TRANSFER_KIND = Object.freeze({ payment: 'PAYMENT', fundsIn: 'FUNDS_IN', fundsOut: 'FUNDS_OUT', fxTransfer: 'FX_TRANSFER' });

/**
 * kind → from → [to, ...]; `null` is "no transfer yet", and a state a kind does not list has
 * no way out for that kind. Each kind has its own lifecycle, so the table itself refuses what
 * only another kind may do (a payment never commits straight from RESERVED).
 */
const TRANSITIONS = Object.freeze({
  [TRANSFER_KIND.payment]: Object.freeze({
    null: [S.receivedPrepare, S.invalid],
    // Reserved by the position handler, refused by it (net debit cap or liquidity cover), or
    // expired before reservation (position or timeout handler).
    [S.receivedPrepare]: [S.reserved, S.abortedRejected, S.expiredPrepared],
    // A reservation ends through the fulfil handler (fulfil or error) or the timeout handler;
    // the position handler then commits or releases it.
    [S.reserved]: [S.receivedFulfil, S.receivedError, S.reservedTimeout],
    // A fulfilled transfer commits; only if the switch cannot apply the commit at all (its
    // message is set aside as a dead letter) does the position handler release it instead.
    [S.receivedFulfil]: [S.committed, S.abortedError],
    [S.receivedError]: [S.abortedError],
    [S.reservedTimeout]: [S.expiredReserved],
  }),
  // The operator's deposit passes through RECEIVED_PREPARE and RESERVED in its one step.
  [TRANSFER_KIND.fundsIn]: Object.freeze({
    null: [S.receivedPrepare],
    [S.receivedPrepare]: [S.reserved],
    [S.reserved]: [S.committed],
  }),
  // A withdrawal is reserved (or refused as an overdraft) at once, then committed or aborted
  // by the operator once the money has (or has not) left the settlement bank.
  [TRANSFER_KIND.fundsOut]: Object.freeze({
    null: [S.receivedPrepare],
    [S.receivedPrepare]: [S.reserved, S.abortedRejected],
    [S.reserved]: [S.committed, S.abortedRejected],
  }),
  // A conversion reserves its payer in the source currency like a payment; its FXP's
  // fulfilment commits nothing, and from then on it ends with its dependent transfer: both
  // commit in one position transaction, or the transfer's end releases it. On its own it
  // expires only while no dependent transfer holds a reservation (ledger/domain/fx-expiry.js).
  [TRANSFER_KIND.fxTransfer]: Object.freeze({
    null: [S.receivedPrepare, S.invalid],
    [S.receivedPrepare]: [S.reserved, S.abortedRejected, S.expiredPrepared],
    [S.reserved]: [S.receivedFulfilDependent, S.receivedError, S.reservedTimeout],
    [S.receivedFulfilDependent]: [S.committed, S.abortedError, S.reservedTimeout],
    [S.receivedError]: [S.abortedError],
    [S.reservedTimeout]: [S.expiredReserved],
  }),
});

/** States with a way out for some kind; every other state is where a transfer ends. */
const STATES_WITH_EXITS = new Set(Object.values(TRANSITIONS).flatMap((table) => Object.keys(table)).filter((state) => state !== 'null'));

/**
 * What a DFSP sees in `transferState` for each internal state (FSPIOP TransferState); an fx
 * transfer's `conversionState` takes the same values.
 */
const FSPIOP_TRANSFER_STATE = Object.freeze({
  [S.receivedPrepare]: 'RECEIVED',
  [S.reserved]: 'RESERVED',
  [S.receivedFulfil]: 'RESERVED',
  [S.receivedFulfilDependent]: 'RESERVED',
  [S.receivedError]: 'RESERVED',
  [S.reservedTimeout]: 'RESERVED',
  [S.committed]: 'COMMITTED',
  [S.abortedRejected]: 'ABORTED',
  [S.abortedError]: 'ABORTED',
  [S.invalid]: 'ABORTED',
  [S.expiredPrepared]: 'ABORTED',
  [S.expiredReserved]: 'ABORTED',
});

const KNOWN_STATES = new Set(Object.values(TRANSFER_STATE));

/** Whether a transfer of `kind` may go from `from` (`null`: not stored yet) to `to`. */
export function canTransition(kind, from, to) {
  const table = TRANSITIONS[kind];
  if (!table) throw new Error(`unknown transfer kind ${kind}`);
  if (from !== null && !KNOWN_STATES.has(from)) throw new Error(`unknown transfer state ${from}`);
  return (table[from ?? 'null'] ?? []).includes(to);
}

/**
 * The state path of one decided change of a transfer of `kind`: from `fromState` (`null` for
 * a new transfer) through each of `toStates` in order, as stored in the transfer's state
 * journal (the starting state is not repeated). Throws if any step is not in the table: code that
 * decides an illegal change is wrong, and must not write it. The path is frozen: a decided
 * change is a value nobody edits on its way to the database, and a test can tell a path
 * built here from one written by hand.
 */
export function transition(kind, fromState, ...toStates) {
  // Only an explicit null means "new": a missing state is a caller's bug, not a new transfer.
  if (fromState === undefined) throw new Error('transfer transition from an undefined state');
  if (toStates.length === 0) throw new Error(`transfer transition from ${fromState} names no target state`);
  let current = fromState;
  for (const next of toStates) {
    if (!canTransition(kind, current, next)) throw new Error(`illegal transfer transition ${current} → ${next} (${kind})`);
    current = next;
  }
  return Object.freeze(toStates);
}

export function isFinal(state) {
  return KNOWN_STATES.has(state) && !STATES_WITH_EXITS.has(state);
}

export function fspiopTransferState(state) {
  const external = FSPIOP_TRANSFER_STATE[state];
  if (!external) throw new Error(`unknown transfer state ${state}`);
  return external;
}

export const ALL_TRANSFER_STATES = Object.freeze(Object.values(TRANSFER_STATE));
