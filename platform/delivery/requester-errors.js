// A forward that cannot reach its DFSP (a GET /parties to the payee, a quote request, a
// transfer prepare) would leave its requester waiting for an answer that never comes. The
// producing handler therefore names, on such a forward, the error callback that tells the
// requester (`ifUndeliverable: { to, callback }`), and when the forward ends undelivered the
// hub answers the requester with that error callback: the notification handler produces it
// as a notification event of its own (handlers/notification/requester-notifier.js), signed,
// delivered and retried like every other hub callback, and account-lookup sends it itself.
//
// The requester is told at once, and the forward is not retried afterwards: a lookup, quote
// request or prepare that reached its DFSP after the requester was told it failed would start
// something the requester has given up on (a transfer committed that its payer was told had
// failed). This is what Mojaloop does: its ALS and ml-api-adapter answer the requester with an
// error when the forward fails and do not send it again. A transfer stays reserved until its
// expiry, when the timeout handler releases it; Mojaloop does the same, and it keeps the payee
// that did receive a prepare whose answer was lost from fulfilling a transfer already aborted.
import { FAILURE, failure } from '../domain/failures.js';
import { failureToFspiop } from '../fspiop/errors.js';
import { OUTCOME } from './deliver.js';
import { answerVersionOf } from '../fspiop/versions.js';
import { CONVERSION_FAILED } from '../iso20022/egress.js';

/** True when the event is a forward whose requester must hear of it if it is not delivered. */
export function tellsRequester(event) {
  const spec = event.ifUndeliverable;
  return spec !== null && typeof spec === 'object' && typeof spec.to === 'string' && spec.to !== ''
    && spec.callback !== null && typeof spec.callback === 'object';
}

/**
 * Why the forward failed, as a domain failure: 3201 (destination FSP error) when there was
 * nowhere to send it (an unknown DFSP, no endpoint of the type, a template that does not
 * render, an endpoint the switch may not call, a body that cannot be converted into the API
 * the DFSP is registered with) or the DFSP answered with an HTTP error; 2003
 * (service unavailable) when the DFSP gave no answer at all (refused or reset connection,
 * timeout, open circuit, full queue). Where a refused endpoint points is the payee's
 * business, so the requester is not told the address.
 */
export function undeliverableFailure(event, result) {
  const target = `${event.callback.method} ${event.callback.endpointType} to ${event.to}`;
  if (result.outcome === OUTCOME.noEndpoint) {
    const why = result.fsp === 'unknown' ? `${event.to} is not a known DFSP` : `${event.to} has no ${event.callback.endpointType} endpoint`;
    return failure(FAILURE.destinationUnroutable, why);
  }
  if (result.reason === 'bad_template') return failure(FAILURE.destinationUnroutable, `the endpoint of the ${target} cannot be rendered`);
  if (result.reason === CONVERSION_FAILED) return failure(FAILURE.destinationUnroutable, `the ${target} cannot be converted into the API ${event.to} takes`);
  if (result.outcome === OUTCOME.refused) return failure(FAILURE.destinationUnroutable, `the endpoint of the ${target} is not allowed`);
  if (Number.isInteger(result.status)) return failure(FAILURE.destinationUnroutable, `the ${target} was answered HTTP ${result.status}`);
  return failure(FAILURE.destinationUnreachable, `the ${target} got no answer (${result.reason})`);
}

/**
 * The hub's error callback to the requester of a forward that ended with `result`, or null;
 * in the version of the requester's own message, which the forward carries.
 */
export function requesterErrorEvent(event, result, hubName) {
  if (!tellsRequester(event) || !result || result.outcome === OUTCOME.delivered) return null;
  const { to } = event.ifUndeliverable;
  const callback = { ...event.ifUndeliverable.callback, method: 'PUT' };
  const version = event.from === to ? answerVersionOf(event.headers, callback.resource) : null;
  if (version) callback.version = version;
  return {
    id: event.id,
    type: 'notification',
    action: 'error',
    from: hubName,
    to,
    callback,
    headers: {},
    body: failureToFspiop(undeliverableFailure(event, result)).body,
    at: event.at,
  };
}
