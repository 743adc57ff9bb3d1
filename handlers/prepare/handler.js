// The prepare handler: POST /transfers and POST /fxTransfers events → duplicate check and
// validation → stored RECEIVED_PREPARE (or INVALID) → the payer's position account (or an
// error to the payer). A payment that a conversion is for (its determiningTransferId) reserves
// the FXP's account in the target currency instead (handlers/README.md, "Currency
// conversion"). One batch is two round trips: the existing transfers, the conversions naming
// the batch's payments and the participants read together (a third read only for an FXP no
// message named), then the inserts sent with the COMMIT. A POST /bulkTransfers is expanded
// into its individual transfers, decided as payments, and stored with its bulk and items in
// the same transaction; the outcomes about its transfers go to the bulk handler
// (handlers/README.md, "Bulk transfers").
import { decidePrepareBatch } from '../../ledger/domain/prepare.js';
import { decideFxPrepareBatch } from '../../ledger/domain/fx-prepare.js';
import { decideBulkPrepareBatch, individualTransferMessages } from '../../ledger/domain/bulk-prepare.js';
import { bulkInsertStatements, bulkTransfersFromRows, selectBulkTransfers } from '../../ledger/repositories/statements/bulk-transfers.js';
import { bulkItemResultRecords, bulkStateRequestRecords, routeBulkOutcomes } from '../bulk-records.js';
import { TRANSFER_KIND } from '../../ledger/domain/transfer-states.js';
import {
  participantsFromRows, selectCurrencyPairs, selectParticipantsWithPositionAccounts, withCurrencyPairs,
} from '../../ledger/repositories/statements/accounts.js';
import {
  conversionsForFromRows, selectConversionsFor, selectTransfers, transferInsertStatements, transfersFromRows,
} from '../../ledger/repositories/statements/transfers.js';
import { inTransaction } from '../../platform/db.js';
import { createTransferMetrics } from '../transfer-metrics.js';
import { notificationRecords, positionRecords } from '../transfer-records.js';

const isFxPrepare = (event) => event.type === 'fxTransfer';
const isBulkPrepare = (event) => event.type === 'bulkTransfer';
const names = (values) => values.filter((name) => typeof name === 'string');

/** What the batch's decisions read: transfers, conversions and participants, in one round trip (two when a conversion's FXP was not named). */
async function readPrepareState(tx, payments, fxPrepares, bulks = []) {
  const determiningIds = names(fxPrepares.map((event) => event.body?.determiningTransferId));
  const fxpNames = names(fxPrepares.map((event) => event.body?.counterPartyFsp));
  const named = names([
    ...payments.flatMap((event) => [event.body?.payerFsp, event.body?.payeeFsp]),
    ...fxPrepares.map((event) => event.body?.initiatingFsp), ...fxpNames,
  ]);
  // The conversions are read for every payment, not only for those that look like part of a
  // conversion, because none can be told from its message: a POST /transfers names no
  // conversion, it is a conversion's dependent transfer only by having the id a stored
  // conversion names as its determiningTransferId (and a duplicate of a stored dependent
  // payment needs its conversion for its reservation). Skipping the read for a batch
  // without fx messages would prepare such a payment against its payer's account instead of
  // the FXP's. So the read is made as cheap as it can be instead: one statement for the whole
  // batch, a range read on the determining_transfer_id index (which only conversions fill,
  // so a plain payment's id finds no entry), sent in the same round trip as the transfers and
  // participants; selectConversionsFor leaves it out when no id can match (a batch of fx
  // prepares naming no determining transfer).
  const [transferRows, conversionRows, participantRows, pairRows, bulkRows] = await tx.read(
    selectTransfers([...payments, ...fxPrepares].map((event) => event.id).concat(determiningIds)),
    selectConversionsFor([...payments.map((event) => event.id), ...determiningIds]),
    selectParticipantsWithPositionAccounts(named),
    selectCurrencyPairs(fxpNames),
    selectBulkTransfers(bulks.map((event) => event.id)),
  );
  const transfers = transfersFromRows(transferRows);
  const conversionsFor = conversionsForFromRows(conversionRows);
  let participants = participantsFromRows(participantRows);
  const unnamedFxps = [...new Set(payments.map((event) => conversionsFor.get(event.id)?.payeeFsp).filter((name) => name && !participants.has(name)))];
  if (unnamedFxps.length > 0) {
    const [moreRows] = await tx.read(selectParticipantsWithPositionAccounts(unnamedFxps));
    participants = new Map([...participants, ...participantsFromRows(moreRows)]);
  }
  const preparedTransferIds = new Set(determiningIds.filter((id) => transfers.get(id)?.kind === TRANSFER_KIND.payment));
  return {
    transfers, conversionsFor, participants: withCurrencyPairs(participants, pairRows), preparedTransferIds, bulks: bulkTransfersFromRows(bulkRows),
  };
}

/**
 * The bulks of a batch, decided after its single transfers, so that an individual transfer
 * meets a single transfer of the same batch as one already stored.
 */
function withBulks(decided, { bulks, state, now, onUsAllowed }) {
  if (bulks.length === 0) return { ...decided, bulkInserts: [], itemInserts: [], bulkOf: new Map(), stateRequests: [] };
  const existing = new Map([...state.transfers, ...decided.inserts.map((row) => [row.transferId, row])]);
  const bulked = decideBulkPrepareBatch({ messages: bulks, existingBulks: state.bulks, existing, participants: state.participants, now, onUsAllowed });
  return {
    ...bulked,
    inserts: [...decided.inserts, ...bulked.inserts],
    positionEvents: [...decided.positionEvents, ...bulked.positionEvents],
    outcomes: [...decided.outcomes, ...bulked.outcomes],
  };
}

/** Both decisions of one batch as one: rows to insert, position events and outcomes. */
function decidePrepares({ payments, fxPrepares, state, now, onUsAllowed }) {
  const paymentIds = new Set(payments.map((event) => event.id));
  const paid = decidePrepareBatch({
    messages: payments, existing: state.transfers, participants: state.participants, now, onUsAllowed,
    conversions: new Map([...state.conversionsFor].filter(([transferId]) => paymentIds.has(transferId))),
  });
  if (fxPrepares.length === 0) return paid;
  const converted = decideFxPrepareBatch({
    messages: fxPrepares, existing: state.transfers, participants: state.participants, now,
    conversionsFor: state.conversionsFor, preparedTransferIds: state.preparedTransferIds,
  });
  return {
    inserts: [...paid.inserts, ...converted.inserts],
    positionEvents: [...paid.positionEvents, ...converted.positionEvents],
    outcomes: [...paid.outcomes, ...converted.outcomes],
  };
}

/** `pool`: the mysql2 pool of the hot path (platform/db.js createSqlPool). */
export function createPrepareHandler({ pool, producer, topics, hubName, metrics, config, clock = () => new Date() }) {
  const transferMetrics = createTransferMetrics(metrics);
  const onUsAllowed = config?.transfers?.onUsAllowed ?? false;
  return async function handlePrepares(events) {
    const now = clock();
    const payments = events.filter((event) => !isFxPrepare(event) && !isBulkPrepare(event));
    const fxPrepares = events.filter(isFxPrepare);
    const bulks = events.filter(isBulkPrepare);
    const bulkItems = bulks.flatMap(individualTransferMessages);
    const decision = await inTransaction(pool, async (tx) => {
      const state = await readPrepareState(tx, [...payments, ...bulkItems], fxPrepares, bulks);
      const decided = withBulks(decidePrepares({ payments, fxPrepares, state, now, onUsAllowed }), { bulks, state, now, onUsAllowed });
      tx.write(...bulkInsertStatements(decided.bulkInserts, decided.itemInserts, now), ...transferInsertStatements(decided.inserts, now));
      return decided;
    });
    transferMetrics.countFinished(decision.inserts);
    const routed = routeBulkOutcomes(decision.outcomes, decision.bulkOf);
    await producer.produce([
      ...positionRecords(topics, decision.positionEvents), ...notificationRecords(topics, routed.outcomes, hubName, events),
      ...bulkItemResultRecords(topics, routed.itemResults, now), ...bulkStateRequestRecords(topics, decision.stateRequests),
    ]);
  };
}
