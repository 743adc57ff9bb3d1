// The resources the quoting handler relays, one entry per event type: what the batch reads
// for them in the locking round trip, the pure decision, the writes and the notification
// records. The handler and the dead letters run every kind through this one table, so a
// resource is added by adding its entry.
import { participantStatesFromRows } from '../../ledger/ports/participant-directory.js';
import {
  QUOTE_ACTION, QUOTE_KIND, decideQuoteBatch, linkedTransactionRequestIds, transactionRequestLinks,
} from '../domain/quotes.js';
import { FX_QUOTE_EVENT, FX_QUOTE_KIND, decideFxQuoteBatch } from '../domain/fx-quotes.js';
import { TRANSACTION_REQUEST_EVENT, TRANSACTION_REQUEST_KIND, decideTransactionRequestBatch } from '../domain/transaction-requests.js';
import { AUTHORIZATION_EVENT, AUTHORIZATION_KIND, decideAuthorizationBatch } from '../domain/authorizations.js';
import { BULK_QUOTE_EVENT, BULK_QUOTE_KIND, decideBulkQuoteBatch } from '../domain/bulk-quotes.js';
import {
  insertQuotes, quotesFromRows, selectParticipantStates, selectQuotes, updateQuotes,
} from '../repositories/quotes.js';
import {
  fxPartiesFromRows, fxQuotesFromRows, insertFxQuotes, selectFxParties, selectFxQuotes, updateFxQuotes,
} from '../repositories/fx-quotes.js';
import {
  insertTransactionRequests, selectTransactionRequestParties, selectTransactionRequests, transactionRequestsFromRows, updateTransactionRequests,
} from '../repositories/transaction-requests.js';
import {
  authorizationsFromRows, insertAuthorizations, selectAuthorizationParties, selectAuthorizations, updateAuthorizations,
} from '../repositories/authorizations.js';
import {
  bulkPartiesFromRows, bulkQuotesFromRows, insertBulkQuotes, selectBulkParties, selectBulkQuotes, updateBulkQuotes,
} from '../repositories/bulk-quotes.js';
import {
  authorizationNotificationRecords, bulkQuoteNotificationRecords, fxQuoteNotificationRecords, quoteNotificationRecords,
  transactionRequestNotificationRecords,
} from './records.js';

const namesOf = (events) => events.flatMap((event) => [event.from, event.to]);

/**
 * Each kind: `kind` (its id and party fields, domain/relay.js); `select` and `fromRows`, its
 * stored records by id; `reads(events, ids, linked)`, the statements its decision reads (its
 * records locked first); `decide(events, rows, persist, shared)`, with those statements' rows
 * in order and what every kind may read of another (`shared.transactionRequests`);
 * `writes(decision, now)`; `records`, its notification records; optionally `linkedIds(events)`,
 * the transaction requests its decisions read (`linked`: all the batch's kinds name).
 */
const QUOTE = Object.freeze({
  type: 'quote',
  kind: QUOTE_KIND,
  select: selectQuotes,
  fromRows: quotesFromRows,
  linkedIds: linkedTransactionRequestIds,
  reads: (events, ids) => [selectQuotes(ids, { forUpdate: true }), selectParticipantStates(namesOf(events), ids)],
  decide: (events, [quoteRows, participantRows], persist, { transactionRequests }) => {
    const decision = decideQuoteBatch({
      events, quotes: quotesFromRows(quoteRows), participants: participantStatesFromRows(participantRows), persist, transactionRequests,
    });
    return { ...decision, links: transactionRequestLinks(decision, events) };
  },
  // A quote paying a transaction request is written on that request, for an operator's queries.
  writes: (decision, now) => [insertQuotes(decision.inserts, now), ...updateQuotes(decision.updates, now), ...updateTransactionRequests(decision.links, now)],
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

const BULK_QUOTE = Object.freeze({
  type: BULK_QUOTE_EVENT,
  kind: BULK_QUOTE_KIND,
  select: selectBulkQuotes,
  fromRows: bulkQuotesFromRows,
  reads: (events, ids) => [selectBulkQuotes(ids, { forUpdate: true }), ...selectBulkParties(namesOf(events), ids)],
  decide: (events, [bulkQuoteRows, factRows, stateRows], persist) => decideBulkQuoteBatch({
    events, bulkQuotes: bulkQuotesFromRows(bulkQuoteRows), participants: bulkPartiesFromRows(factRows, stateRows), persist,
  }),
  writes: (decision, now) => [insertBulkQuotes(decision.inserts, now), ...updateBulkQuotes(decision.updates, now)],
  records: bulkQuoteNotificationRecords,
});

// The transaction requests every kind reads are locked in one statement, its own events' and
// those the other kinds name together, in id order: two consumers locking them in two
// statements could each hold a row the other waits for.
const TRANSACTION_REQUEST = Object.freeze({
  type: TRANSACTION_REQUEST_EVENT,
  kind: TRANSACTION_REQUEST_KIND,
  select: selectTransactionRequests,
  fromRows: transactionRequestsFromRows,
  reads: (events, ids, linked) => [selectTransactionRequests([...ids, ...linked], { forUpdate: true }), selectTransactionRequestParties(namesOf(events), ids)],
  decide: (events, [, participantRows], persist, { transactionRequests }) => decideTransactionRequestBatch({
    events, transactionRequests, participants: participantStatesFromRows(participantRows), persist,
  }),
  writes: (decision, now) => [insertTransactionRequests(decision.inserts, now), ...updateTransactionRequests(decision.updates, now)],
  records: transactionRequestNotificationRecords,
});

const AUTHORIZATION = Object.freeze({
  type: AUTHORIZATION_EVENT,
  kind: AUTHORIZATION_KIND,
  select: selectAuthorizations,
  fromRows: authorizationsFromRows,
  // Every ask is checked against its transaction request.
  linkedIds: (events) => events.filter((event) => event.action === QUOTE_ACTION.request).map((event) => event.id),
  reads: (events, ids) => [selectAuthorizations(ids, { forUpdate: true }), selectAuthorizationParties(namesOf(events), ids)],
  decide: (events, [authorizationRows, participantRows], persist, { transactionRequests }) => decideAuthorizationBatch({
    events, authorizations: authorizationsFromRows(authorizationRows), transactionRequests, participants: participantStatesFromRows(participantRows), persist,
  }),
  writes: (decision, now) => [insertAuthorizations(decision.inserts, now), ...updateAuthorizations(decision.updates, now)],
  records: authorizationNotificationRecords,
});

/** The relayed kinds in the order their tables are locked (the same order in every batch). */
export const RELAYED_KINDS = Object.freeze([QUOTE, FX_QUOTE, BULK_QUOTE, TRANSACTION_REQUEST, AUTHORIZATION]);

/** What every kind's decision may read of another's records, from the rows of the batch's reads (in RELAYED_KINDS's order). */
export function sharedRecordsOf(rowsByKind) {
  const [transactionRequestRows] = rowsByKind[RELAYED_KINDS.indexOf(TRANSACTION_REQUEST)];
  return { transactionRequests: transactionRequestsFromRows(transactionRequestRows) };
}

const BY_TYPE = new Map(RELAYED_KINDS.map((relayed) => [relayed.type, relayed]));

/**
 * The relayed kind of an event. The quoting edge types every event it produces; an event of
 * another type is taken for a quote, the resource the topics were first made for.
 */
export const relayedKindOf = (event) => BY_TYPE.get(event.type) ?? QUOTE;
