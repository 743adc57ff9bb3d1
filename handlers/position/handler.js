// The position-batch handler: reserves, commits and releases positions. Its topic is keyed
// by position account, so each account is moved by one consumer. A batch is two round trips
// to the database: its transfers (id order), positions with their net debit caps (account
// order) and, when it commits transfers, the open settlement window (shared) locked together;
// then every write sent with the COMMIT: one journal INSERT and one UPDATE for all positions,
// one UPDATE and one journal INSERT for all transfers, one INSERT recording the committed
// transfers in the window.
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { planPositionChanges } from '../../ledger/domain/position.js';
import { selectSettlementAccounts, settlementAccountsFromRows } from '../../ledger/repositories/statements/accounts.js';
import {
  positionPlanStatements, positionsWithNetDebitCapsFromRows, selectPositionsWithNetDebitCapsForUpdate,
} from '../../ledger/repositories/statements/positions.js';
import {
  insertSettlementWindowTransfers, openSettlementWindowFromRows, selectOpenSettlementWindowForShare,
} from '../../ledger/repositories/statements/settlement-windows.js';
import { selectTransfers, stateUpdateStatements, transfersFromRows } from '../../ledger/repositories/statements/transfers.js';
import { inTransaction } from '../../platform/db.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords } from '../transfer-records.js';
import { bulkItemResultRecords, bulkOfEvents, routeBulkOutcomes } from '../bulk-records.js';

/**
 * The events with their account as a number. An event without a valid account id can never
 * be applied: it fails here, before any statement, and is set aside as a dead letter.
 */
function positionEventsOf(events) {
  return events.map((event) => {
    const accountId = Number(event.accountId);
    if (!Number.isSafeInteger(accountId) || accountId <= 0) throw new Error(`position event ${event.id} has no valid account id (${event.accountId})`);
    const linkedAccountIds = (event.linkedAccountIds ?? []).map(Number);
    if (!linkedAccountIds.every((id) => Number.isSafeInteger(id) && id > 0)) throw new Error(`position event ${event.id} has an invalid linked account id`);
    return {
      action: event.action, accountId, fulfilAction: event.fulfilAction, failure: event.failure, message: event,
      ...(event.commitRequestId ? { commitRequestId: event.commitRequestId, linkedAccountIds } : {}),
    };
  });
}

// The events that reserve, whose settlement account (liquidity cover) is read with them.
const RESERVING = new Set(['prepare', 'fx-prepare']);

/**
 * positionAccountId → settlementAccountId, remembered: an account's participant, currency
 * and type never change, so the pair found once holds for the life of the process (a
 * query fewer per batch on the hot path).
 */
function createSettlementAccounts() {
  const known = new Map();
  return async function settlementAccountsOf(tx, positionIds) {
    const missing = positionIds.filter((id) => !known.has(id));
    if (missing.length > 0) {
      const [rows] = await tx.read(selectSettlementAccounts(missing));
      for (const [positionId, settlementId] of settlementAccountsFromRows(rows)) known.set(positionId, settlementId);
    }
    return new Map(positionIds.filter((id) => known.has(id)).map((id) => [id, known.get(id)]));
  };
}

/**
 * Prefetch under lock, in one round trip: transfers (id order; a conversion payment's
 * conversion with it, by `commitRequestId`), then every position involved (account order:
 * keyed and linked accounts) with its net debit cap. The positions are known from the events
 * alone: a prepare arrives on its payer's position account (checked by the decision), whose
 * settlement account holds its liquidity cover; an event of a conversion payment names the
 * accounts its conversion moves (handlers/README.md, "Keying").
 */
async function prefetchLocked(tx, events, settlementAccountsOf) {
  const settlementOf = await settlementAccountsOf(tx, events.filter((event) => RESERVING.has(event.action)).map((event) => event.accountId));
  const commits = events.some((event) => event.action === 'commit');
  const [transferRows, positionRows, windowRows] = await tx.read(
    selectTransfers(events.flatMap((event) => [event.message.id, event.commitRequestId]).filter(Boolean), { forUpdate: true }),
    selectPositionsWithNetDebitCapsForUpdate([
      ...events.flatMap((event) => [event.accountId, ...(event.linkedAccountIds ?? [])]), ...settlementOf.values(),
    ]),
    commits ? selectOpenSettlementWindowForShare() : null,
  );
  const { positions, limits } = positionsWithNetDebitCapsFromRows(positionRows);
  const settlements = new Map([...settlementOf].map(([positionId, settlementId]) => [positionId, positions.get(settlementId)]));
  const settlementWindowId = commits ? openSettlementWindowFromRows(windowRows) : null;
  return { transfers: transfersFromRows(transferRows), positions, settlements, limits, settlementWindowId };
}

/** The payee's own error code, for an abort the payee asked for (its PUT …/error). */
function payeeErrorCodes(events) {
  const codes = new Map();
  for (const event of events) {
    if (event.action === 'abort' && !event.failure) codes.set(event.message.id, event.message.body?.errorInformation?.errorCode);
  }
  return (update) => codes.get(update.transferId);
}

/** `pool`: the mysql2 pool of the hot path (platform/db.js createSqlPool). */
export function createPositionHandler({ pool, producer, topics, hubName, metrics, clock = () => new Date() }) {
  const transferMetrics = createTransferMetrics(metrics);
  const settlementAccountsOf = createSettlementAccounts();
  return async function handlePositions(rawEvents) {
    const events = positionEventsOf(rawEvents);
    const now = clock();
    const decision = await inTransaction(pool, async (tx) => {
      const state = await prefetchLocked(tx, events, settlementAccountsOf);
      const decided = decidePositionBatch({ events, ...state, now });
      tx.write(
        ...positionPlanStatements(planPositionChanges(state.positions, decided.positionChanges), now),
        ...stateUpdateStatements(decided.stateUpdates, now),
        insertSettlementWindowTransfers(state.settlementWindowId, decided.committedTransfers, now),
      );
      return decided;
    });
    transferMetrics.countPositionChanges(decision.positionChanges);
    transferMetrics.countFinished(decision.stateUpdates, payeeErrorCodes(events));
    // An individual transfer of a bulk has its result recorded by the bulk handler instead.
    const { bulkOf, finalOf } = bulkOfEvents(rawEvents);
    const routed = routeBulkOutcomes(decision.outcomes, bulkOf, finalOf);
    await producer.produce([...notificationRecords(topics, routed.outcomes, hubName, rawEvents), ...bulkItemResultRecords(topics, routed.itemResults, now)]);
  };
}
