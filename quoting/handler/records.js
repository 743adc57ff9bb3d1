// Turns the quoting decisions' outcomes into notification events (handlers/README.md: one
// event, one callback), keyed by the record's id so that one record's callbacks stay in order.
// A quote callback goes to the DFSP's FSPIOP_CALLBACK_URL_QUOTES, an fx quote callback to its
// FSPIOP_CALLBACK_URL_FX_QUOTES, a bulk quote's to FSPIOP_CALLBACK_URL_BULK_QUOTES, a
// transaction request's to FSPIOP_CALLBACK_URL_TRX_REQ_SERVICE and an authorization's to
// FSPIOP_CALLBACK_URL_AUTHORIZATIONS: all are base URLs, plus the resource path.
import { carriedBody, encodeEvent } from '../../platform/kafka/envelope.js';
import { failureToFspiop } from '../../platform/fspiop/errors.js';
import { QUOTE_KIND, QUOTE_OUTCOME } from '../domain/quotes.js';
import { FX_QUOTE_KIND } from '../domain/fx-quotes.js';
import { TRANSACTION_REQUEST_KIND } from '../domain/transaction-requests.js';
import { AUTHORIZATION_KIND } from '../domain/authorizations.js';
import { BULK_QUOTE_KIND } from '../domain/bulk-quotes.js';
import { senderVersionsOf } from '../../platform/fspiop/versions.js';

/**
 * A relayed resource as its callbacks name it: `resource` names the path and media type, the
 * kind's id field (quoting/domain/relay.js) the record's id and template parameter;
 * `endpointType` is the DFSPs' callback endpoint and `version` the API version of every hub
 * answer about the resource, where it has one (/fxQuotes is served in 2.0 alone).
 */
const deliveredAs = (kind, delivery) => Object.freeze({
  resource: kind.resource, templateKey: kind.idField, idOf: (outcome) => outcome[kind.idField], ...delivery,
});

const RESOURCES = Object.freeze({
  quotes: deliveredAs(QUOTE_KIND, { endpointType: 'FSPIOP_CALLBACK_URL_QUOTES' }),
  fxQuotes: deliveredAs(FX_QUOTE_KIND, { endpointType: 'FSPIOP_CALLBACK_URL_FX_QUOTES', version: '2.0' }),
  transactionRequests: deliveredAs(TRANSACTION_REQUEST_KIND, { endpointType: 'FSPIOP_CALLBACK_URL_TRX_REQ_SERVICE' }),
  // The payer DFSP's ask is a GET /authorizations/{ID} with its query, forwarded as it was sent.
  authorizations: deliveredAs(AUTHORIZATION_KIND, {
    endpointType: 'FSPIOP_CALLBACK_URL_AUTHORIZATIONS', request: { method: 'GET', path: (resource, id, message) => `${itemPath(resource, id)}${message.search ?? ''}` },
  }),
  bulkQuotes: deliveredAs(BULK_QUOTE_KIND, { endpointType: 'FSPIOP_CALLBACK_URL_BULK_QUOTES' }),
});

/** `callback.version` of a hub call: the resource's own version, else the one its receiver sent in. */
const hubVersion = (resource, sentVersion) => {
  const version = resource.version ?? sentVersion;
  return version ? { version } : {};
};
const itemPath = (resource, id) => `/${resource}/${encodeURIComponent(id)}`;

const CALLBACKS = Object.freeze({
  [QUOTE_OUTCOME.forwardRequest]: { method: 'POST', action: 'request', path: (resource) => `/${resource}`, forward: true },
  [QUOTE_OUTCOME.forwardAnswer]: { method: 'PUT', action: 'response', path: itemPath, forward: true },
  [QUOTE_OUTCOME.forwardError]: { method: 'PUT', action: 'payee-error', path: (resource, id) => `${itemPath(resource, id)}/error`, forward: true },
  [QUOTE_OUTCOME.error]: { method: 'PUT', action: 'error', path: (resource, id) => `${itemPath(resource, id)}/error` },
});

/**
 * A request that cannot reach the answering DFSP is answered to its requester with the hub's
 * PUT …/{ID}/error (platform/delivery/requester-errors.js).
 */
function requesterErrorIfUndeliverable(forward, id, resource) {
  const callback = { ...forward.callback, ...hubVersion(resource), method: 'PUT', path: `${itemPath(resource.resource, id)}/error` };
  return { to: forward.from, callback };
}

/**
 * The notification event for one outcome about `resource`: a forward keeps the DFSP's headers
 * and bytes; a hub call names `version` when it answers a message its receiver sent in that
 * version, and an fx quote's is always 2.0, the one version /fxQuotes is served in.
 */
function notificationEvent(outcome, hubName, resource, version) {
  const spec = outcome.type === QUOTE_OUTCOME.forwardRequest && resource.request ? { ...CALLBACKS[outcome.type], ...resource.request } : CALLBACKS[outcome.type];
  if (!spec) throw new Error(`no callback for quote outcome ${outcome.type}`);
  const id = resource.idOf(outcome);
  const event = {
    id,
    type: 'notification',
    action: spec.action,
    to: outcome.to,
    callback: {
      endpointType: resource.endpointType, templateParams: { [resource.templateKey]: id }, method: spec.method, resource: resource.resource, path: spec.path(resource.resource, id, outcome.message ?? {}),
    },
  };
  if (spec.forward) {
    const { message } = outcome;
    const forward = { ...event, from: message.from, headers: message.headers ?? {}, ...carriedBody(message), at: message.at };
    return outcome.type === QUOTE_OUTCOME.forwardRequest ? { ...forward, ifUndeliverable: requesterErrorIfUndeliverable(forward, id, resource) } : forward;
  }
  return { ...event, callback: { ...event.callback, ...hubVersion(resource, version) }, from: hubName, headers: {}, body: failureToFspiop(outcome.failure).body };
}

/** The notification event for one quote outcome (`version` as notificationEvent takes it). */
export const quoteNotificationEvent = (outcome, hubName, version) => notificationEvent(outcome, hubName, RESOURCES.quotes, version);

/** The notification event for one fx quote outcome. */
export const fxQuoteNotificationEvent = (outcome, hubName) => notificationEvent(outcome, hubName, RESOURCES.fxQuotes);

/** The notification event for one bulk quote outcome (`version` as notificationEvent takes it). */
export const bulkQuoteNotificationEvent = (outcome, hubName, version) => notificationEvent(outcome, hubName, RESOURCES.bulkQuotes, version);

/**
 * The outcomes' notification records; `events` are the batch's events they answer
 * (transfer-records.js's rule: a hub call to a DFSP that sent one goes out in its version).
 */
const recordsOf = (toEvent, { resource, idOf }) => (topics, outcomes, hubName, events = []) => {
  const versionOf = senderVersionsOf(events, resource);
  return outcomes.map((outcome) => ({
    topic: topics.notificationEvent,
    key: idOf(outcome),
    value: encodeEvent(toEvent(outcome, hubName, CALLBACKS[outcome.type]?.forward ? undefined : versionOf(idOf(outcome), outcome.to))),
  }));
};

export const quoteNotificationRecords = recordsOf(quoteNotificationEvent, RESOURCES.quotes);
export const fxQuoteNotificationRecords = recordsOf(fxQuoteNotificationEvent, RESOURCES.fxQuotes);
export const transactionRequestNotificationRecords = recordsOf(
  (outcome, hubName, version) => notificationEvent(outcome, hubName, RESOURCES.transactionRequests, version), RESOURCES.transactionRequests,
);
export const authorizationNotificationRecords = recordsOf(
  (outcome, hubName, version) => notificationEvent(outcome, hubName, RESOURCES.authorizations, version), RESOURCES.authorizations,
);
export const bulkQuoteNotificationRecords = recordsOf(bulkQuoteNotificationEvent, RESOURCES.bulkQuotes);
