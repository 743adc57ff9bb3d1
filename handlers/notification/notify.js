// One notification event becomes one callback: decode and check the event, look up the
// receiving DFSP's endpoint, render, sign and deliver. Shared by the main topic's batches
// (handler.js) and the retry topic's (retry.js).
import { decodeEvent, isMalformedEvent } from '../../platform/kafka/envelope.js';
import { callbackUrl, invalidNotificationReason } from '../../platform/delivery/callback-request.js';
import { OUTCOME } from '../../platform/delivery/deliver.js';
import { prepareCallback } from '../../platform/iso20022/egress.js';

/** Decodes the batch; malformed or unusable events are logged, counted and skipped as values. */
export function decodeNotifications(messages, { log, metrics }) {
  const events = [];
  for (const { topic, partition, offset, value } of messages) {
    let event;
    try {
      event = decodeEvent(value);
    } catch (error) {
      if (!isMalformedEvent(error)) throw error;
      metrics.skippedEvents.inc({ reason: 'malformed' });
      log.error({ topic, partition, offset, reason: error.reason, preview: error.preview }, 'malformed event skipped');
      continue;
    }
    const reason = invalidNotificationReason(event);
    if (reason) {
      metrics.skippedEvents.inc({ reason: 'invalid' });
      log.error({ topic, partition, offset, id: event.id, action: event.action, reason }, 'undeliverable notification event skipped');
      continue;
    }
    events.push(event);
  }
  return events;
}

/**
 * Sends one event's callback; resolves to its final outcome with `fsp`, the bounded metric
 * label of the receiver, or throws EndpointLookupError. `context` holds the endpoint cache,
 * the deliverer, the signer, metrics, the log and the throttled warning.
 */
export async function notify(context, event, deadline) {
  const { metrics, log, now } = context;
  const { callback } = event;
  const { known, endpoints, apiType } = await context.endpoints.lookup(event.to);
  const labels = { fsp: known ? event.to : 'unknown', endpoint_type: callback.endpointType };
  const template = endpoints.get(callback.endpointType);
  if (!template) return noEndpoint(context, event, labels, known);
  let url;
  try {
    url = callbackUrl(template, callback);
  } catch (error) {
    metrics.callbacks.inc({ ...labels, outcome: OUTCOME.failed });
    log.error({ id: event.id, to: event.to, endpointType: callback.endpointType, template, err: error }, 'callback URL cannot be rendered');
    return { outcome: OUTCOME.failed, reason: 'bad_template', fsp: labels.fsp, finishedAt: now() };
  }
  const started = performance.now();
  const prepared = await prepareCallback({
    event, url, apiType, hubName: context.hubName, signCallback: context.signCallback, versions: context.versions, now: now(), logger: log,
  });
  // A body that cannot be converted into the receiver's API never will be: failed, not retried (retry.js).
  const result = prepared.failure
    ? { outcome: OUTCOME.failed, attempts: 0, ...prepared.failure }
    : await context.deliverer.deliver({ fsp: event.to, endpoint: template, url, method: callback.method, ...prepared, deadline });
  metrics.callbacks.inc({ ...labels, outcome: result.outcome });
  metrics.callbackDuration.observe({ endpoint_type: callback.endpointType }, (performance.now() - started) / 1000);
  if (result.outcome === OUTCOME.failed) {
    context.throttledWarn(`failed\u0000${labels.fsp}\u0000${result.reason}`, {
      fsp: event.to, id: event.id, action: event.action, method: callback.method, url: url.href, status: result.status,
      reason: result.reason, detail: result.detail, attempts: result.attempts, retryAttempt: event.retry?.attempt ?? 0,
    }, 'callback failed');
  }
  return { ...result, fsp: labels.fsp, finishedAt: now() };
}

/** Mojaloop's 1001 case: nothing to call. The event is done; it must not hold the partition. */
function noEndpoint(context, event, labels, known) {
  context.metrics.callbacks.inc({ ...labels, outcome: OUTCOME.noEndpoint });
  context.throttledWarn(`none\u0000${labels.fsp}\u0000${labels.endpoint_type}`, {
    fsp: event.to, known, endpointType: labels.endpoint_type, id: event.id, action: event.action,
  }, known ? 'DFSP has no endpoint of this type; callback dropped' : 'DFSP is not known to the admin API; callback dropped');
  return { outcome: OUTCOME.noEndpoint, fsp: labels.fsp, finishedAt: context.now() };
}
