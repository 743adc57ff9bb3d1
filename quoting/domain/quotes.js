// The quoting handler's decisions for a batch of quote events (POST /quotes, GET /quotes/{ID},
// PUT /quotes/{ID} and PUT /quotes/{ID}/error): a payer asks the payee it names for a quote,
// and only that payee answers, only to that payer. The rules (duplicates by the hash of the
// request or answer, who may answer, GET from the stored quote) are every relayed resource's
// (relay.js); what is a quote's own is here: which DFSPs are checked and what is kept.
import { keptMessage } from './batch.js';
import {
  QUOTE_ACTION, QUOTE_OUTCOME, QUOTE_STATE, decideRelayBatch, relayKind,
} from './relay.js';
import { checkParties, payeeRole, payerRole } from './parties.js';
import { linkQuoteFailure } from './transaction-requests.js';

export { QUOTE_ACTION, QUOTE_OUTCOME, QUOTE_STATE };

function requestRecord(event) {
  const { body } = event;
  const expiresAtMs = Date.parse(body.expiration);
  return {
    ...keptMessage(event),
    transactionId: body.transactionId ?? null,
    amount: body.amount?.amount ?? null,
    currency: body.amount?.currency ?? null,
    expiresAt: Number.isNaN(expiresAtMs) ? null : new Date(expiresAtMs),
  };
}

/** A quote: requested by its payer (FSPIOP-Source) of its payee (FSPIOP-Destination), both active. */
export const QUOTE_KIND = relayKind({
  idField: 'quoteId',
  requesterField: 'payerFsp',
  answererField: 'payeeFsp',
  noun: 'quote',
  resource: 'quotes',
  requesterRole: 'payer',
  requestFailure: (event, participants, context) => checkParties(participants, [payerRole(event.from), payeeRole(event.to)])
    ?? linkFailure(event, context?.transactionRequests),
  answerPartiesFailure: (participants, payee, payer) => checkParties(participants, [payeeRole(payee), payerRole(payer)]),
  requestRecord,
});

/** A quote naming a transaction request must pay that request: it is asked by the DFSP the request went to, of the DFSP that sent it. */
function linkFailure(event, transactionRequests) {
  const id = event.body.transactionRequestId;
  return id === undefined ? null : linkQuoteFailure(id, { payerFsp: event.from, payeeFsp: event.to }, transactionRequests);
}

/**
 * The transaction request ids the quote requests among `events` name: the transaction
 * requests to read with the quotes (decideQuoteBatch's `transactionRequests`).
 */
export const linkedTransactionRequestIds = (events) => events
  .filter((event) => event.action === QUOTE_ACTION.request && typeof event.body?.transactionRequestId === 'string')
  .map((event) => event.body.transactionRequestId);

/**
 * The links from transaction requests to the quotes `decision` relayed for the first time
 * (its inserts): `{ transactionRequestId, changes: { quoteId, transactionId } }`, from the
 * request that created each quote. A later quote for the same transaction request (a payer
 * quoting again after the first expired) replaces the link: the latest quote is the payment.
 */
export function transactionRequestLinks(decision, events) {
  const links = [];
  for (const { quoteId } of decision.inserts) {
    const request = events.find((event) => event.id === quoteId && event.action === QUOTE_ACTION.request);
    const transactionRequestId = request?.body.transactionRequestId;
    if (typeof transactionRequestId === 'string') {
      links.push({ transactionRequestId, changes: { quoteId, transactionId: request.body.transactionId ?? null } });
    }
  }
  return links;
}

/**
 * `events`: decoded quote events in consumption order. `quotes`: quoteId → stored quote (see
 * quoting/repositories/quotes.js). `participants`: name → { isActive }. `persist`: whether the
 * quote's request and answer are kept, or only what duplicate detection needs.
 * `transactionRequests`: id → stored transaction request, for the ids the requests name
 * (linkedTransactionRequestIds). Returns quotes to insert, `{ quoteId, changes }` to apply to
 * stored ones, outcomes, and events with an unknown action (which the handler logs and skips);
 * transactionRequestLinks gives what to write on the transaction requests the new quotes pay.
 */
export function decideQuoteBatch({ events, quotes, participants, persist, transactionRequests = new Map() }) {
  return decideRelayBatch(QUOTE_KIND, { events, records: quotes, participants, persist, transactionRequests });
}
