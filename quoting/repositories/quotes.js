// Quotes for the quoting handler: the `quote` table's relay records (relay-records.js), with
// what a kept quote request adds (its transaction, amount and expiry) and the payee's ILP
// condition beside its answer. A batch reads its quotes and their DFSPs in one round trip
// and writes with its COMMIT in another.
import { relayRecordRepository } from './relay-records.js';

const quotes = relayRecordRepository({
  table: 'quote',
  id: { field: 'quoteId', column: 'quote_id' },
  parties: [{ field: 'payerFsp', column: 'payer_fsp' }, { field: 'payeeFsp', column: 'payee_fsp' }],
  requestColumns: (request) => ({
    transaction_id: request?.transactionId ?? null,
    amount: request?.amount ?? null,
    currency: request?.currency ?? null,
    expires_at: request?.expiresAt ?? null,
  }),
  answerFields: { condition: 'ilp_condition' },
});

/** Quotes by id (without the stored request, which no decision reads); `forUpdate` locks them in id order. */
export const selectQuotes = quotes.select;

/** quoteId → quote, from selectQuotes's rows. */
export const quotesFromRows = quotes.fromRows;

/**
 * The states of the participants `names` and of both DFSPs of the quotes `quoteIds`: what a
 * decision may check, read in the same round trip as the quotes. Names that cannot be a
 * participant are left out; read them with participantStatesFromRows (the port's).
 */
export const selectParticipantStates = (names, quoteIds = []) => quotes.participantStates(names, quoteIds);

/** New quotes in one statement (null when there are none). */
export const insertQuotes = quotes.insert;

/** `[{ quoteId, changes }]` as decided: one UPDATE per group of quotes changing the same columns. */
export const updateQuotes = quotes.update;
