// The resources the quoting handler relays, one entry per event type: what the batch reads
// for them in the locking round trip, the pure decision, the writes and the notification
// records. The handler and the dead letters run every kind through this one table, so a
// resource is added by adding its entry.
import { participantStatesFromRows } from '../../ledger/ports/participant-directory.js';
import { QUOTE_KIND, decideQuoteBatch } from '../domain/quotes.js';
import { FX_QUOTE_EVENT, FX_QUOTE_KIND, decideFxQuoteBatch } from '../domain/fx-quotes.js';
import {
  insertQuotes, quotesFromRows, selectParticipantStates, selectQuotes, updateQuotes,
} from '../repositories/quotes.js';
import {
  fxPartiesFromRows, fxQuotesFromRows, insertFxQuotes, selectFxParties, selectFxQuotes, updateFxQuotes,
} from '../repositories/fx-quotes.js';
import { fxQuoteNotificationRecords, quoteNotificationRecords } from './records.js';

const namesOf = (events) => events.flatMap((event) => [event.from, event.to]);

/**
 * Each kind: `kind` (its id and party fields, domain/relay.js); `select` and `fromRows`, its
 * stored records by id; `reads(events, ids)`, the statements its decision reads (its records
 * locked first); `decide(events, rows, persist)`, with those statements' rows in order;
 * `writes(decision, now)`; `records`, its notification records.
 */
const QUOTE = Object.freeze({
  type: 'quote',
  kind: QUOTE_KIND,
  select: selectQuotes,
  fromRows: quotesFromRows,
  reads: (events, ids) => [selectQuotes(ids, { forUpdate: true }), selectParticipantStates(namesOf(events), ids)],
  decide: (events, [quoteRows, participantRows], persist) => decideQuoteBatch({
    events, quotes: quotesFromRows(quoteRows), participants: participantStatesFromRows(participantRows), persist,
  }),
  writes: (decision, now) => [insertQuotes(decision.inserts, now), ...updateQuotes(decision.updates, now)],
  records: quoteNotificationRecords,
});

const FX_QUOTE = Object.freeze({
  type: FX_QUOTE_EVENT,
  kind: FX_QUOTE_KIND,
  select: selectFxQuotes,
  fromRows: fxQuotesFromRows,
  reads: (events, ids) => [selectFxQuotes(ids, { forUpdate: true }), ...selectFxParties(namesOf(events), ids)],
  decide: (events, [fxQuoteRows, factRows, stateRows], persist) => decideFxQuoteBatch({
    events, fxQuotes: fxQuotesFromRows(fxQuoteRows), participants: fxPartiesFromRows(factRows, stateRows), persist,
  }),
  writes: (decision, now) => [insertFxQuotes(decision.inserts, now), ...updateFxQuotes(decision.updates, now)],
  records: fxQuoteNotificationRecords,
});

/** The relayed kinds in the order their tables are locked (the same order in every batch). */
export const RELAYED_KINDS = Object.freeze([QUOTE, FX_QUOTE]);

const BY_TYPE = new Map(RELAYED_KINDS.map((relayed) => [relayed.type, relayed]));

/**
 * The relayed kind of an event. The quoting edge types every event it produces; an event of
 * another type is taken for a quote, the resource the topics were first made for.
 */
export const relayedKindOf = (event) => BY_TYPE.get(event.type) ?? QUOTE;
