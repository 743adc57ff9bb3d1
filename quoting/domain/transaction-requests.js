// The quoting handler's decisions for a batch of transaction request events (POST
// /transactionRequests, GET /transactionRequests/{ID}, PUT /transactionRequests/{ID} and PUT
// …/{ID}/error): a payee's DFSP (a merchant's) asks the payer's DFSP to pay, and only that
// payer DFSP answers (RECEIVED or REJECTED), only to that payee DFSP. The rules are every
// relayed resource's (relay.js); what is a transaction request's own is here: its parties
// are the payee's DFSP asking and the payer's DFSP answering, and its link to the quote the
// payer's DFSP then asks for (linkQuoteFailure).
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { keptMessage } from './batch.js';
import { decideRelayBatch, relayKind } from './relay.js';
import { checkParties, payeeRole, payerRole } from './parties.js';

/** The event type the /transactionRequests routes produce (quoting/routes.js). */
export const TRANSACTION_REQUEST_EVENT = 'transactionRequest';

/**
 * Why the body's parties contradict the headers, or null: the payee's fspId, when named, is
 * the sender's, and the payer's fspId, when named, the destination's.
 */
function namedPartiesFailure(body, { from, to }) {
  const payeeFsp = body.payee?.partyIdInfo?.fspId;
  if (payeeFsp !== undefined && payeeFsp !== from) return failure(FAILURE.validation, `payee.partyIdInfo.fspId ${payeeFsp} is not the sender ${from}`);
  const payerFsp = body.payer?.fspId;
  if (payerFsp !== undefined && payerFsp !== to) return failure(FAILURE.validation, `payer.fspId ${payerFsp} is not the FSPIOP-Destination ${to}`);
  return null;
}

function requestRecord(event) {
  return { ...keptMessage(event), amount: event.body.amount?.amount ?? null, currency: event.body.amount?.currency ?? null };
}

/**
 * A transaction request: asked by the payee's DFSP (FSPIOP-Source, 3203 when unknown or
 * inactive) of the payer's DFSP (FSPIOP-Destination, 3202), as the quote rules name them.
 */
export const TRANSACTION_REQUEST_KIND = relayKind({
  idField: 'transactionRequestId',
  requesterField: 'payeeFsp',
  answererField: 'payerFsp',
  noun: 'transaction request',
  resource: 'transactionRequests',
  requesterRole: 'payee',
  requestFailure: (event, participants) => namedPartiesFailure(event.body, event)
    ?? checkParties(participants, [payeeRole(event.from), payerRole(event.to)]),
  answerPartiesFailure: (participants, payer, payee) => checkParties(participants, [payerRole(payer), payeeRole(payee)]),
  requestRecord,
});

/**
 * Why a quote asked by `payerFsp` of `payeeFsp` cannot be the one that pays the transaction
 * request `id`, or null: the switch must have relayed that request from this payee DFSP to
 * this payer DFSP. `transactionRequests`: id → stored transaction request.
 */
export function linkQuoteFailure(id, { payerFsp, payeeFsp }, transactionRequests) {
  const request = transactionRequests?.get(id);
  if (!request) return failure(FAILURE.transactionRequestNotFound, `transaction request ${id} was not relayed through this switch`);
  if (request.payeeFsp !== payeeFsp || request.payerFsp !== payerFsp) {
    return failure(FAILURE.validation, `transaction request ${id} was sent by ${request.payeeFsp} to ${request.payerFsp}; a quote from ${payerFsp} to ${payeeFsp} cannot pay it`);
  }
  return null;
}

/**
 * `events`: decoded transaction request events in consumption order (`id`: the
 * transactionRequestId). `transactionRequests`: id → stored transaction request
 * (quoting/repositories/transaction-requests.js). `participants`: name → `{ isActive }`.
 * Returns transaction requests to insert, `{ transactionRequestId, changes }` to apply,
 * outcomes, and events with an unknown action.
 */
export function decideTransactionRequestBatch({ events, transactionRequests, participants, persist }) {
  return decideRelayBatch(TRANSACTION_REQUEST_KIND, { events, records: transactionRequests, participants, persist });
}
