// The /parties callbacks, sent by the account-lookup edge itself over HTTP once it has answered
// the DFSP that asked (202 to a GET, 200 to a PUT), as Mojaloop's account-lookup-service sends
// them: the forwarded GET to the payee, the payee's PUT (or PUT …/error) to the payer, and the
// hub's own errors. Discovery is a query that changes no money, and a payer that hears nothing
// asks again, so these calls do not need Kafka's durability; going without it saves two Kafka
// records and two notification-handler deliveries per discovery.
//
// The pieces are the notification handler's, shared in platform/delivery/ (handlers/README.md,
// "Notification events"), so a DFSP sees the same calls either way: the endpoint cache, the URL templates, the forward and
// hub headers, the hub's signature, the per-DFSP limiter, retries and circuit breaker, and the
// requester's 3201 or 2003 when a forward cannot be delivered. What this process holds is
// bounded: per DFSP by the limiter (calls in flight and queued), and in total by the bytes of
// the calls it holds; a call over either bound fails at once, and a lookup that fails so is
// answered to its payer with 2003, as any forward that gets no answer.
import { callbackBody, callbackUrl } from '../platform/delivery/callback-request.js';
import { prepareCallback } from '../platform/iso20022/egress.js';
import { createDfspVersions } from '../platform/delivery/dfsp-versions.js';
import { OUTCOME } from '../platform/delivery/deliver.js';
import { requesterErrorEvent, tellsRequester } from '../platform/delivery/requester-errors.js';
import { createCallbackMetrics } from '../platform/delivery/metrics.js';
import { metricOnce } from '../platform/metrics.js';
import { createThrottledWarn } from '../platform/throttled-log.js';

// What a call's headers and bookkeeping take beside its body, counted against the byte bound.
const CALL_OVERHEAD_BYTES = 2048;

/**
 * The metrics: the callback metrics every sender of callbacks shares (platform/delivery/metrics.js),
 * so that the dashboards and the DFSP callback-failure alert count discovery callbacks wherever
 * they are sent from, and the calls this process holds.
 */
export function createPartyCallbackMetrics(metrics) {
  return {
    ...createCallbackMetrics(metrics),
    held: metricOnce(metrics, metrics.client.Gauge, {
      name: 'account_lookup_callbacks_held',
      help: 'Callbacks the account-lookup edge holds: being sent, or waiting for a free slot of their DFSP.',
    }),
  };
}

/** Resolves the endpoint: `{ fsp, template, url }`, or `{ result }` for a call that cannot go. */
async function resolveTarget(context, event) {
  const { endpoints, throttledWarn, logger } = context;
  const { callback } = event;
  let known;
  let templates;
  let apiType;
  try {
    ({ known, endpoints: templates, apiType } = await endpoints.lookup(event.to));
  } catch (error) {
    throttledWarn(`lookup\u0000${event.to}`, { fsp: event.to, err: error }, 'DFSP endpoints could not be read; callback not sent');
    return { result: { outcome: OUTCOME.failed, reason: 'endpoint_lookup', fsp: 'unknown' } };
  }
  const fsp = known ? event.to : 'unknown';
  const template = templates.get(callback.endpointType);
  if (!template) {
    throttledWarn(`none\u0000${fsp}\u0000${callback.endpointType}`, { fsp: event.to, known, endpointType: callback.endpointType, id: event.id },
      known ? 'DFSP has no endpoint of this type; callback dropped' : 'DFSP is not known to the admin API; callback dropped');
    return { result: { outcome: OUTCOME.noEndpoint, fsp } };
  }
  try {
    return { fsp, template, apiType, url: callbackUrl(template, callback) };
  } catch (error) {
    logger.error({ id: event.id, to: event.to, endpointType: callback.endpointType, template, err: error }, 'callback URL cannot be rendered');
    return { result: { outcome: OUTCOME.failed, reason: 'bad_template', fsp } };
  }
}

/** The call in its receiver's API (platform/iso20022/egress.js) delivered: its outcome, or a conversion's failure. */
async function convertAndDeliver(context, event, target, deadline) {
  const { hubName, now, logger, signCallback, versions } = context;
  const { url, template, apiType } = target;
  const prepared = await prepareCallback({ event, url, apiType, hubName, signCallback, versions, now: now(), logger });
  // A body that cannot be converted into the receiver's API never will be: a failed call, as a DFSP's 4xx.
  if (prepared.failure) return { outcome: OUTCOME.failed, attempts: 0, ...prepared.failure };
  return context.deliverer.deliver({ fsp: event.to, endpoint: template, url, method: event.callback.method, ...prepared, deadline });
}

/** One call to its final outcome, `{ outcome, status?, reason?, attempts?, fsp }`; never rejects. */
async function deliverOne(context, event, deadline) {
  const { metrics } = context;
  const { callback } = event;
  const started = performance.now();
  const target = await resolveTarget(context, event);
  let result = target.result;
  if (!result) {
    result = { ...await convertAndDeliver(context, event, target, deadline), fsp: target.fsp };
    metrics.callbackDuration.observe({ endpoint_type: callback.endpointType }, (performance.now() - started) / 1000);
  }
  metrics.callbacks.inc({ fsp: result.fsp, endpoint_type: callback.endpointType, outcome: result.outcome });
  if (result.outcome === OUTCOME.failed) {
    context.throttledWarn(`failed\u0000${result.fsp}\u0000${result.reason}`, {
      fsp: event.to, id: event.id, action: event.action, method: callback.method, status: result.status, reason: result.reason,
      detail: result.detail, attempts: result.attempts,
    }, 'callback failed');
  }
  return result;
}

/**
 * A forward that did not reach its DFSP is answered to its requester by the hub (3201 or
 * 2003, requester-errors.js) and not sent again. The error is small and goes past the byte
 * bound (the requester's own limiter still bounds it), so a payer hears even when the bound
 * is what refused its lookup.
 */
async function tellRequester(context, event, result) {
  const error = requesterErrorEvent(event, result, context.hubName);
  if (!error) return;
  context.metrics.requesterErrors.inc({ code: error.body.errorInformation.errorCode });
  await deliverOne(context, error, context.now() + context.deadlineMs);
}

async function sendAndTell(context, event, deadline) {
  const result = await deliverOne(context, event, deadline);
  if (tellsRequester(event)) await tellRequester(context, event, result);
}

/**
 * Creates the sender. `endpoints` is the endpoint cache (platform/delivery/endpoints.js),
 * `deliverer` a deliverer (deliver.js), `signCallback` the hub's signer (hub-signature.js),
 * `metrics` from createPartyCallbackMetrics; `deadlineMs` bounds one call from the moment it
 * is handed over, waiting for a slot included; `bytesHeldMax` bounds the calls held at once;
 * `versions` (platform/delivery/dfsp-versions.js) says which version a hub call goes out in.
 * `send(event)` takes a notification event (callbacks.js) and returns at once; `drain()`
 * resolves when every call handed over has ended.
 */
export function createPartyCallbackSender({
  endpoints, deliverer, signCallback, hubName, metrics, logger, deadlineMs, bytesHeldMax, versions = createDfspVersions(), now = Date.now,
}) {
  const context = {
    endpoints, deliverer, signCallback, hubName, metrics, logger, deadlineMs, versions, now, throttledWarn: createThrottledWarn(logger, { now }),
  };
  const inFlight = new Set();
  let bytesHeld = 0;

  function track(promise, bytes) {
    bytesHeld += bytes;
    metrics.held.inc();
    const settled = promise.catch((error) => logger.error({ err: error }, 'party callback failed unexpectedly')).finally(() => {
      bytesHeld -= bytes;
      metrics.held.dec();
      inFlight.delete(settled);
    });
    inFlight.add(settled);
  }

  function refuse(event) {
    const refused = { outcome: OUTCOME.failed, reason: 'queue_full', fsp: 'unknown', attempts: 0 };
    metrics.callbacks.inc({ fsp: refused.fsp, endpoint_type: event.callback.endpointType, outcome: refused.outcome });
    context.throttledWarn('bytes-held', { bytesHeld, bytesHeldMax, id: event.id, to: event.to }, 'too many callback bytes held; callback refused');
    if (tellsRequester(event)) track(tellRequester(context, event, refused), 0);
  }

  function send(event) {
    const body = callbackBody(event);
    const bytes = body.length + CALL_OVERHEAD_BYTES;
    if (bytesHeld + bytes > bytesHeldMax) refuse(event);
    else track(sendAndTell(context, event, now() + deadlineMs), bytes);
  }

  return {
    send,
    /** Waits for every call handed over so far (each ends by its deadline). */
    async drain() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    held: () => ({ calls: inFlight.size, bytes: bytesHeld }),
  };
}
