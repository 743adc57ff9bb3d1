// Fx quotes for the quoting handler: the `fx_quote` table's relay records (relay-records.js),
// with the conversion's currencies kept beside a request for an operator's queries. The
// conversion's parties are read in the same round trip through the ledger's port
// (ledger/ports/participant-directory.js).
import { relayRecordRepository } from './relay-records.js';
import { fxParticipantFactsFromRows, participantStatesFromRows, selectFxParticipantFacts } from '../../ledger/ports/participant-directory.js';

const fxQuotes = relayRecordRepository({
  table: 'fx_quote',
  id: { field: 'conversionRequestId', column: 'conversion_request_id' },
  parties: [{ field: 'initiatingFsp', column: 'initiating_fsp' }, { field: 'counterPartyFsp', column: 'counter_party_fsp' }],
  requestColumns: (request) => ({
    source_currency: request?.sourceCurrency ?? null,
    target_currency: request?.targetCurrency ?? null,
  }),
});

/** Fx quotes by id (without the stored request); `forUpdate` locks them in id order. */
export const selectFxQuotes = fxQuotes.select;

/** conversionRequestId → fx quote, from selectFxQuotes's rows. */
export const fxQuotesFromRows = fxQuotes.fromRows;

/**
 * What the decisions read of the parties, in the fx quotes' round trip: the conversion facts
 * (states, active position currencies, currency pairs) of the DFSPs `names`, and the states of
 * both parties of the stored fx quotes `ids`. Returns the statements, in the order
 * fxPartiesFromRows takes their rows.
 */
export function selectFxParties(names, ids) {
  return [selectFxParticipantFacts(names), fxQuotes.participantStates([], ids)];
}

/** name → `{ isActive, activePositionCurrencies?, pairs? }` from selectFxParties's rows. */
export function fxPartiesFromRows(factRows, stateRows) {
  const parties = participantStatesFromRows(stateRows);
  for (const [name, facts] of fxParticipantFactsFromRows(factRows)) parties.set(name, facts);
  return parties;
}

/** New fx quotes in one statement (null when there are none). */
export const insertFxQuotes = fxQuotes.insert;

/** `[{ conversionRequestId, changes }]` as decided: one UPDATE per group changing the same columns. */
export const updateFxQuotes = fxQuotes.update;
