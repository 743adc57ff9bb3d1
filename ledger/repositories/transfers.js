// Every transfer the ledger keeps (payments, funds in and funds out), for the callers that
// hold a knex instance or transaction rather than the hot path's mysql2 transaction: the
// timeout sweeper, the dead-letter finisher and the admin API. Each function runs the
// statements of statements/transfers.js, the ones the prepare, position and fulfil handlers
// send, so a column is written in one place whichever client writes it.
import { runStatement, runStatements } from '../../platform/db.js';
import { TRANSFER_STATE } from '../domain/transfer-states.js';
import {
  selectExpiredTransfersForUpdate, selectExpiredWaitingConversions, selectStaleTimeouts, selectTransfers, stateUpdateStatements, transferInsertStatements,
  transferListFromRows, transfersFromRows,
} from './statements/transfers.js';

/** transferId → transfer; `forUpdate` locks them in id order (so writers never deadlock). */
export async function findTransfers(db, transferIds, options) {
  return transfersFromRows(await runStatement(db, selectTransfers(transferIds, options)));
}

/** Stores new transfers, each already in the last state of its `statePath`, journaling every step. */
export async function insertTransfers(trx, rows, now) {
  await runStatements(trx, transferInsertStatements(rows, now));
}

/** Applies decided state updates to their transfers and journals them. */
export async function applyStateUpdates(trx, updates, now) {
  await runStatements(trx, stateUpdateStatements(updates, now));
}

/**
 * Claims transfers past their expiry that are still waiting, skipping rows another replica
 * or handler holds, so several timeout replicas never take the same transfer. One read per
 * state, oldest first; reserved transfers come first, since they hold the payer's position.
 */
export async function claimExpiredTransfers(trx, now, limit) {
  const claimed = [];
  for (const state of [TRANSFER_STATE.reserved, TRANSFER_STATE.receivedPrepare]) {
    if (claimed.length >= limit) break;
    claimed.push(...transferListFromRows(await runStatement(trx, selectExpiredTransfersForUpdate(state, now, limit - claimed.length))));
  }
  if (claimed.length < limit) claimed.push(...await claimWaitingConversions(trx, now, limit - claimed.length));
  return claimed;
}

/**
 * Expired conversions waiting for their payment, locked by id with SKIP LOCKED; each is
 * checked again under its lock, since a batch may have moved it since the plain read.
 */
async function claimWaitingConversions(trx, now, limit) {
  const found = transferListFromRows(await runStatement(trx, selectExpiredWaitingConversions(now, limit)));
  if (found.length === 0) return [];
  const locked = await findTransfers(trx, found.map((conversion) => conversion.transferId), { forUpdate: true, skipLocked: true });
  return [...locked.values()].filter((conversion) => conversion.state === TRANSFER_STATE.receivedFulfilDependent && conversion.expiresAt <= now);
}

/** The id of the record each of `transfers` is linked to: a payment's conversion, a conversion's payment. */
const partnerIdOf = (transfer) => transfer.commitRequestId ?? transfer.determiningTransferId;

/**
 * The records linked to claimed transfers, locked with SKIP LOCKED as the claim is, and the
 * claimed transfers that may be decided now: one whose partner exists but is held by another
 * transaction (a batch moving it) is left for a later round, so the timeout never waits while
 * holding a lock. Returns `{ transfers, linked }` for decideExpiries.
 */
export async function lockLinkedTransfers(trx, claimed) {
  const partnerIds = claimed.map(partnerIdOf).filter(Boolean);
  if (partnerIds.length === 0) return { transfers: claimed, linked: new Map() };
  const existing = await findTransfers(trx, partnerIds);
  const linked = await findTransfers(trx, [...existing.keys()], { forUpdate: true, skipLocked: true });
  const decidable = claimed.filter((transfer) => !existing.has(partnerIdOf(transfer)) || linked.has(partnerIdOf(transfer)));
  return { transfers: decidable, linked };
}

/** Reserved transfers marked for expiry whose release may not have reached the position handler. */
export async function findStaleTimeouts(db, olderThan, limit) {
  return transferListFromRows(await runStatement(db, selectStaleTimeouts(olderThan, limit)));
}
