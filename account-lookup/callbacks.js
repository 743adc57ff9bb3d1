// The notification events of account lookup (handlers/README.md, "one event, one callback"):
// which DFSP is called, at which of its endpoints, with whose headers and body. The
// /participants ones are produced to Kafka for the notification handler; the /parties ones are
// sent by the edge itself (party-callbacks.js). Pure: every function builds a value from its
// arguments.
import { partyKey } from './domain/parties.js';
import { answerVersionOf } from '../platform/fspiop/versions.js';

const PARTY_ENDPOINTS = Object.freeze({
  get: ['FSPIOP_CALLBACK_URL_PARTIES_GET', 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET'],
  put: ['FSPIOP_CALLBACK_URL_PARTIES_PUT', 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT'],
  error: ['FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR', 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR'],
});

const PARTICIPANT_ENDPOINTS = Object.freeze({
  put: ['FSPIOP_CALLBACK_URL_PARTICIPANT_PUT', 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT'],
  error: ['FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR', 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT_ERROR'],
});

export const BATCH_ENDPOINTS = Object.freeze({
  put: 'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT',
  error: 'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR',
});

/** The values Mojaloop's endpoint templates name: `{{partyIdType}}`, `{{partyIdentifier}}`, ... */
export function partyTemplateParams(party) {
  const params = { partyIdType: party.type, partyIdentifier: party.id };
  if (party.subId) params.partySubIdOrType = party.subId;
  return params;
}

export function partyEndpoint(kind, party) {
  return PARTY_ENDPOINTS[kind][party.subId ? 1 : 0];
}

export function participantEndpoint(kind, party) {
  return PARTICIPANT_ENDPOINTS[kind][party.subId ? 1 : 0];
}

/**
 * A DFSP's request or callback passed on to another DFSP as it came: its headers and its body
 * bytes, so that an FSPIOP-Signature over them still verifies at the other end.
 */
export function forwardEvent({ accepted, party, action, to, endpointType, method, resource = 'parties' }) {
  const event = {
    id: partyKey(party),
    type: 'notification',
    action,
    from: accepted.headers['fspiop-source'],
    to,
    callback: { endpointType, templateParams: partyTemplateParams(party), method, resource },
    headers: accepted.headers,
    rawBody: accepted.rawBody,
    // A message that arrived in ISO 20022 has no FSPIOP text: its FSPIOP form is its body,
    // which a receiver of FSPIOP is sent (platform/iso20022/egress.js).
    ...(accepted.rawBody === undefined && accepted.body !== undefined ? { body: accepted.body } : {}),
    at: accepted.receivedAt,
  };
  // A lookup that cannot reach the payee is answered to the payer with the hub's PUT …/error
  // (party-callbacks.js, with platform/delivery/requester-errors.js's codes and words),
  // so the payer is never left waiting.
  if (action !== 'lookup') return event;
  return { ...event, ifUndeliverable: { to: event.from, callback: { ...event.callback, endpointType: partyEndpoint('error', party), method: 'PUT' } } };
}

/**
 * A call the hub makes in its own name (an answer or an error) to the sender of `accepted`, the
 * request it answers: no DFSP headers, so the sender sets the hub's, in the version the request
 * was sent in (platform/fspiop/versions.js answerVersionOf). `templateParams` fills the
 * endpoint's template.
 */
export function hubEvent({ id, action, hubName, accepted, endpointType, templateParams, resource, body }) {
  const callback = { endpointType, templateParams, method: 'PUT', resource };
  const version = answerVersionOf(accepted.headers, resource);
  if (version) callback.version = version;
  return {
    id,
    type: 'notification',
    action,
    from: hubName,
    to: accepted.headers['fspiop-source'],
    callback,
    headers: {},
    body,
    at: accepted.receivedAt,
  };
}

/** The hub's PUT …/error about a party to the sender of `accepted`, on a parties or a participants endpoint. */
export function partyErrorEvent({ party, resource, hubName, accepted, errorBody }) {
  const endpointType = resource === 'parties' ? partyEndpoint('error', party) : participantEndpoint('error', party);
  return hubEvent({
    id: partyKey(party), action: 'error', hubName, accepted, endpointType,
    templateParams: partyTemplateParams(party), resource, body: errorBody,
  });
}
