// Bulk quotes for the quoting handler: the `bulk_quote` table's relay records
// (relay-records.js), with the ids of the individual quotes kept on every record (the payee's
// answer is checked against them) and, beside a kept request, how many individual quotes it
// holds and in which currencies, for an operator's queries. The parties' position currencies
// are read in the same round trip through the ledger's port, as for fx quotes.
import { relayRecordRepository } from './relay-records.js';
import { fxPartiesFromRows } from './fx-quotes.js';
import { selectFxParticipantFacts } from '../../ledger/ports/participant-directory.js';

const bulkQuotes = relayRecordRepository({
  table: 'bulk_quote',
  id: { field: 'bulkQuoteId', column: 'bulk_quote_id' },
  parties: [{ field: 'payerFsp', column: 'payer_fsp' }, { field: 'payeeFsp', column: 'payee_fsp' }],
  decisionFields: {
    quoteIds: { column: 'quote_ids', toColumn: (ids) => JSON.stringify(ids ?? []), fromColumn: (text) => JSON.parse(text ?? '[]') },
  },
  requestColumns: (request) => ({
    item_count: request?.itemCount ?? null,
    currencies: request ? request.currencies.join(',') : null,
  }),
});

/** Bulk quotes by id (without the stored request); `forUpdate` locks them in id order. */
export const selectBulkQuotes = bulkQuotes.select;

/** bulkQuoteId → bulk quote, from selectBulkQuotes's rows. */
export const bulkQuotesFromRows = bulkQuotes.fromRows;

/**
 * What the decisions read of the parties, in the bulk quotes' round trip: the states and
 * active position currencies of the DFSPs `names` (the ledger's conversion facts, whose pairs
 * a bulk quote ignores), and the states of both parties of the stored bulk quotes `ids`.
 * Returns the statements, in the order bulkPartiesFromRows takes their rows.
 */
export function selectBulkParties(names, ids) {
  return [selectFxParticipantFacts(names), bulkQuotes.participantStates([], ids)];
}

/** name → `{ isActive, activePositionCurrencies? }` from selectBulkParties's rows. */
export const bulkPartiesFromRows = fxPartiesFromRows;

/** New bulk quotes in one statement (null when there are none). */
export const insertBulkQuotes = bulkQuotes.insert;

/** `[{ bulkQuoteId, changes }]` as decided: one UPDATE per group changing the same columns. */
export const updateBulkQuotes = bulkQuotes.update;
