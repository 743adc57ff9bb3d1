// The quoting handler's decisions for a batch of authorization events (GET
// /authorizations/{transactionRequestId}, PUT /authorizations/{ID} and PUT …/{ID}/error):
// the payer's DFSP a transaction request went to asks the payee's DFSP that sent it to have
// the payer approve (an OTP entered on the payee's device), and only that payee DFSP answers,
// only to that payer DFSP. The relay's rules apply (relay.js) with three of an authorization's
// own: it exists only for a transaction request the switch relayed, between that request's
// two DFSPs (checked on every ask); the ask is a GET whose query is its content; and it may be
// asked again once answered (an OTP retry, a resend of the OTP), each ask a new round.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { decideRelayBatch, relayKind } from './relay.js';
import { checkParties, payeeRole, payerRole } from './parties.js';

/** The event type the /authorizations routes produce (quoting/routes.js). */
export const AUTHORIZATION_EVENT = 'authorization';

/**
 * Why `from` may not ask `to` for the authorization of transaction request `id`, or null:
 * the switch relayed that request (3206 otherwise), `from` is the payer DFSP it went to and
 * `to` the payee DFSP that sent it (3100 otherwise).
 */
export function askFailure({ id, from, to }, { transactionRequests }) {
  const request = transactionRequests?.get(id);
  if (!request) return failure(FAILURE.transactionRequestNotFound, `transaction request ${id} was not relayed through this switch`);
  if (request.payerFsp !== from) return failure(FAILURE.validation, `transaction request ${id} went to ${request.payerFsp}; ${from} cannot ask for its authorization`);
  if (request.payeeFsp !== to) return failure(FAILURE.validation, `transaction request ${id} came from ${request.payeeFsp}; its authorization cannot be asked of ${to}`);
  return null;
}

/** The query of a GET /authorizations, as the edge carries it on the event (quoting/routes.js). */
const queryOf = (event) => event.query ?? {};

// A GET has no body: what the payer's DFSP asks (the authentication type, the retries left,
// the amount) is in its query, so the query is what a resend repeats and a new round changes.
function requestRecord(event) {
  const query = queryOf(event);
  return {
    headers: event.headers ?? {},
    rawBody: null,
    authenticationType: query.authenticationType ?? null,
    retriesLeft: query.retriesLeft ?? null,
    amount: query.amount ?? null,
    currency: query.currency ?? null,
  };
}

/** An authorization, keyed by its transaction request's id: asked by the payer DFSP (3202) of the payee DFSP (3203). */
export const AUTHORIZATION_KIND = relayKind({
  idField: 'transactionRequestId',
  requesterField: 'payerFsp',
  answererField: 'payeeFsp',
  noun: 'authorization',
  resource: 'authorizations',
  requesterRole: 'payer',
  askFailure,
  asksAgain: true,
  requestHashOf: (event) => requestHash(queryOf(event)),
  requestFailure: (event, participants) => checkParties(participants, [payerRole(event.from), payeeRole(event.to)]),
  answerPartiesFailure: (participants, payee, payer) => checkParties(participants, [payeeRole(payee), payerRole(payer)]),
  requestRecord,
});

/**
 * `events`: decoded authorization events in consumption order (`id`: the transactionRequestId).
 * `authorizations`: id → stored authorization (quoting/repositories/authorizations.js).
 * `transactionRequests`: id → stored transaction request, for the events' ids.
 * `participants`: name → `{ isActive }`. Returns authorizations to insert,
 * `{ transactionRequestId, changes }` to apply, outcomes, and events with an unknown action.
 */
export function decideAuthorizationBatch({ events, authorizations, transactionRequests, participants, persist }) {
  return decideRelayBatch(AUTHORIZATION_KIND, { events, records: authorizations, transactionRequests, participants, persist });
}
