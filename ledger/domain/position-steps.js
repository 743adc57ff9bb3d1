// The steps every position decision is made of, for payments and conversions alike: a state
// update asserted against the transition table, the record as the database will hold it
// once updated, whether a reservation may be taken, and the check that an event arrived on
// an account its batch locked.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { checkReservation } from './position.js';
import { transition } from './transfer-states.js';

/** A state update from the record's current state, asserted against the transition table. */
export function update(record, toState, extra = {}) {
  return { transferId: record.transferId, kind: record.kind, statePath: transition(record.kind, record.state, toState), ...extra };
}

/**
 * The record as the database will hold it once `decided` is applied: a duplicate of the
 * event later in the same batch is replayed from this, so it must carry the failure and
 * completion time just decided, exactly as a redelivery would read them back.
 */
export function afterUpdate(record, decided) {
  return {
    ...record,
    state: decided.statePath.at(-1),
    failure: decided.failure ?? record.failure,
    completedAt: decided.completedAt ?? record.completedAt,
  };
}

/**
 * Why `record` may not reserve its amount on its payer account now: it expired before it
 * was reserved (3303), or the account's liquidity cover or net debit cap refuses it (4001,
 * 4200); null when it may.
 */
export function reservationRefusal(record, { running, settlements, limits, now }) {
  if (record.expiresAt.getTime() <= now.getTime()) {
    return failure(FAILURE.transferExpired, `transfer expired at ${record.expiresAt.toISOString()} before it was reserved`);
  }
  const account = record.payerAccountId;
  return checkReservation({ positionValue: running.get(account), settlementValue: settlements.get(account), netDebitCap: limits.get(account), amount: record.amount });
}

/** A position event must arrive on the account it moves; anything else is a bug upstream. */
export function assertAccount(event, accountId) {
  if (event.accountId !== accountId) throw new Error(`position event for ${event.message.id} keyed by account ${event.accountId}, expected ${accountId}`);
}

/**
 * Another account a decision moves must have been named by its event (`linkedAccountIds`),
 * so that the handler read and locked it with the batch; anything else is a bug upstream.
 */
export function assertLinked(event, accountId, running) {
  if (!(event.linkedAccountIds ?? []).includes(accountId) || !running.has(accountId)) {
    throw new Error(`position event for ${event.message.id} moves account ${accountId}, which it did not name or was not locked`);
  }
}
