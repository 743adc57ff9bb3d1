// The notification handler's batch function (DESIGN.md, "Processing contract"; handlers/README.md,
// "one event, one callback"): decode the batch, send every callback concurrently (in order
// within a lane, see lanes.js), and resolve once every callback has a final outcome —
// delivered, failed after its retries, or no endpoint. Only then may the consumer commit the
// batch, so a crash before that sends its callbacks again: at least once, which FSPIOP
// callbacks tolerate because they are idempotent for the receiver. The consumer runs in
// pipelined mode: later batches are delivered while a slow DFSP holds up an earlier one, so
// one dead DFSP delays nobody else; their offsets wait for the slow batch.
import { decodeEvent, isMalformedEvent } from '../../platform/kafka/envelope.js';
import { buildCallbackHeaders, callbackBody, callbackUrl, invalidNotificationReason } from './callback-request.js';
import { OUTCOME } from './deliver.js';
import { createLaneScheduler, runInLanes } from './lanes.js';
import { createThrottledWarn } from '../../platform/throttled-log.js';
import { unsignedCallbacks } from './hub-signature.js';

// Callbacks that tell the payer how its transfer ended: the end of the end-to-end latency.
const FINAL_TRANSFER_ACTIONS = new Set(['commit', 'abort', 'error', 'timeout']);

/** Decodes the batch; malformed or unusable events are logged, counted and skipped as values. */
function decodeNotifications(messages, { log, metrics }) {
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

function epochMs(at) {
  const ms = typeof at === 'number' ? at : Date.parse(at);
  return Number.isFinite(ms) ? ms : null;
}

function isFinalTransferCallback(event) {
  const { callback } = event;
  return callback.resource === 'transfers' && callback.method === 'PUT' && FINAL_TRANSFER_ACTIONS.has(event.action);
}

/**
 * Observes the end-to-end latency once per transfer per batch: an expiry sends the final
 * state to both payer and payee, and the two land in the same batch (same key, same
 * partition), so counting the first delivery keeps one observation per transfer.
 */
function observeEndToEnd(outcomes, metrics) {
  const seen = new Set();
  for (const { item: event, result } of outcomes) {
    if (result?.outcome !== OUTCOME.delivered || !isFinalTransferCallback(event) || seen.has(event.id)) continue;
    const at = epochMs(event.at);
    if (at === null) continue;
    seen.add(event.id);
    metrics.transferEndToEnd.observe(Math.max(0, result.finishedAt - at) / 1000);
  }
}

/**
 * Creates `handleBatch(messages)`. `endpoints` is the endpoint cache, `deliverer` the
 * deliverer (deliver.js); `batchDeadlineMs` bounds how long one batch may take;
 * `signCallback` signs the hub's own callbacks (hub-signature.js).
 */
export function createNotificationHandler({
  endpoints, deliverer, metrics, logger, hubName, batchDeadlineMs, signCallback = unsignedCallbacks, now = Date.now,
}) {
  const log = logger.child({ component: 'notification' });
  const throttledWarn = createThrottledWarn(log, { now });
  const context = { endpoints, deliverer, metrics, log, throttledWarn, hubName, signCallback, now };
  // A callback's deadline starts when its lane lets it go, not when its batch arrived.
  const run = createLaneScheduler((event) => notify(context, event, now() + batchDeadlineMs));

  return async function handleBatch(messages) {
    const events = decodeNotifications(messages, context);
    if (events.length === 0) return;
    const outcomes = await runInLanes(events, run);
    observeEndToEnd(outcomes, metrics);
    const errors = outcomes.filter((outcome) => outcome.error).map((outcome) => outcome.error);
    // An endpoint lookup the admin API could not answer is the one failure that retrying the
    // batch can cure; the consumer rewinds and backs off. Callbacks already sent go again.
    if (errors.length > 0) {
      throw new AggregateError(errors, `${errors.length} callback(s) could not be resolved: ${errors[0].message}`);
    }
  };
}

/** Sends one event's callback; resolves to its final outcome, or throws EndpointLookupError. */
async function notify(context, event, deadline) {
  const { metrics, log, now } = context;
  const { callback } = event;
  const { known, endpoints } = await context.endpoints.lookup(event.to);
  const labels = { fsp: known ? event.to : 'unknown', endpoint_type: callback.endpointType };
  const template = endpoints.get(callback.endpointType);
  if (!template) return noEndpoint(context, event, labels, known);
  let url;
  try {
    url = callbackUrl(template, callback);
  } catch (error) {
    metrics.callbacks.inc({ ...labels, outcome: OUTCOME.failed });
    log.error({ id: event.id, to: event.to, endpointType: callback.endpointType, template, err: error }, 'callback URL cannot be rendered');
    return { outcome: OUTCOME.failed, reason: 'bad_template', finishedAt: now() };
  }
  const started = performance.now();
  const body = callbackBody(event);
  const unsigned = buildCallbackHeaders({ event, url, hubName: context.hubName, now: new Date(now()) });
  const headers = await context.signCallback({ event, method: callback.method, url, headers: unsigned, body });
  const result = await context.deliverer.deliver({ fsp: event.to, url, method: callback.method, headers, body, deadline });
  metrics.callbacks.inc({ ...labels, outcome: result.outcome });
  metrics.callbackDuration.observe({ endpoint_type: callback.endpointType }, (performance.now() - started) / 1000);
  if (result.outcome === OUTCOME.failed) {
    context.throttledWarn(`failed\u0000${labels.fsp}\u0000${result.reason}`, {
      fsp: event.to, id: event.id, action: event.action, method: callback.method, url: url.href,
      status: result.status, reason: result.reason, attempts: result.attempts,
    }, 'callback failed');
  }
  return { ...result, finishedAt: now() };
}

/** Mojaloop's 1001 case: nothing to call. The event is done; it must not hold the partition. */
function noEndpoint(context, event, labels, known) {
  context.metrics.callbacks.inc({ ...labels, outcome: OUTCOME.noEndpoint });
  context.throttledWarn(`none\u0000${labels.fsp}\u0000${labels.endpoint_type}`, {
    fsp: event.to, known, endpointType: labels.endpoint_type, id: event.id, action: event.action,
  }, known ? 'DFSP has no endpoint of this type; callback dropped' : 'DFSP is not known to the admin API; callback dropped');
  return { outcome: OUTCOME.noEndpoint, finishedAt: context.now() };
}
