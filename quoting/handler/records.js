// Turns the quote decisions' outcomes into notification events (handlers/README.md: one
// event, one callback), keyed by quoteId so that one quote's callbacks stay in order. Every
// quote callback goes to the DFSP's FSPIOP_CALLBACK_URL_QUOTES, a base URL, plus the
// resource path.
import { carriedBody, encodeEvent } from '../../platform/kafka/envelope.js';
import { failureToFspiop } from '../../platform/fspiop/errors.js';
import { QUOTE_OUTCOME } from '../domain/quotes.js';
import { senderVersionsOf } from '../../platform/fspiop/versions.js';

const ENDPOINT_TYPE = 'FSPIOP_CALLBACK_URL_QUOTES';
const quotePath = (quoteId) => `/quotes/${encodeURIComponent(quoteId)}`;

const CALLBACKS = Object.freeze({
  [QUOTE_OUTCOME.forwardRequest]: { method: 'POST', action: 'request', path: () => '/quotes', forward: true },
  [QUOTE_OUTCOME.forwardAnswer]: { method: 'PUT', action: 'response', path: quotePath, forward: true },
  [QUOTE_OUTCOME.forwardError]: { method: 'PUT', action: 'payee-error', path: (id) => `${quotePath(id)}/error`, forward: true },
  [QUOTE_OUTCOME.error]: { method: 'PUT', action: 'error', path: (id) => `${quotePath(id)}/error` },
});

/**
 * A quote request that cannot reach the payee is answered to the payer with the hub's
 * PUT /quotes/{ID}/error (platform/delivery/requester-errors.js).
 */
function payerErrorIfUndeliverable(forward) {
  const { quoteId } = forward.callback.templateParams;
  return { to: forward.from, callback: { ...forward.callback, method: 'PUT', path: `${quotePath(quoteId)}/error` } };
}

/**
 * The notification event for one outcome: a forward keeps the DFSP's headers and bytes; a hub
 * call names `version` when it answers a message its receiver sent in that version.
 */
export function quoteNotificationEvent(outcome, hubName, version) {
  const spec = CALLBACKS[outcome.type];
  if (!spec) throw new Error(`no callback for quote outcome ${outcome.type}`);
  const event = {
    id: outcome.quoteId,
    type: 'notification',
    action: spec.action,
    to: outcome.to,
    callback: {
      endpointType: ENDPOINT_TYPE, templateParams: { quoteId: outcome.quoteId }, method: spec.method, resource: 'quotes', path: spec.path(outcome.quoteId),
    },
  };
  if (spec.forward) {
    const { message } = outcome;
    const forward = { ...event, from: message.from, headers: message.headers ?? {}, ...carriedBody(message), at: message.at };
    return outcome.type === QUOTE_OUTCOME.forwardRequest ? { ...forward, ifUndeliverable: payerErrorIfUndeliverable(forward) } : forward;
  }
  if (version) event.callback.version = version;
  return { ...event, from: hubName, headers: {}, body: failureToFspiop(outcome.failure).body };
}

/** The outcomes' notification records; `events` are the batch's quote events they answer (transfer-records.js's rule). */
export function quoteNotificationRecords(topics, outcomes, hubName, events = []) {
  const versionOf = senderVersionsOf(events, 'quotes');
  return outcomes.map((outcome) => ({
    topic: topics.notificationEvent,
    key: outcome.quoteId,
    value: encodeEvent(quoteNotificationEvent(outcome, hubName, CALLBACKS[outcome.type]?.forward ? undefined : versionOf(outcome.quoteId, outcome.to))),
  }));
}
