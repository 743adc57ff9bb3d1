// The notification handler's batch function (DESIGN.md, "Processing contract"; handlers/README.md,
// "one event, one callback"): decode the batch, send every callback concurrently (in order
// within a lane, see lanes.js), and resolve once every callback has a final outcome —
// delivered, failed after its retries, or no endpoint. Only then may the consumer commit the
// batch, so a crash before that sends its callbacks again: at least once, which FSPIOP
// callbacks tolerate because they are idempotent for the receiver. A callback that failed
// for a reason that can pass is first produced to the retry topic (retry.js), and the batch
// resolves only once the broker has it, so it is never dropped. The consumer runs in
// pipelined mode: later batches are delivered while a slow DFSP holds up an earlier one, so
// one dead DFSP delays nobody else; their offsets wait for the slow batch.
import { OUTCOME } from '../../platform/delivery/deliver.js';
import { createLaneScheduler, runInLanes } from './lanes.js';
import { createThrottledWarn } from '../../platform/throttled-log.js';
import { unsignedCallbacks } from '../../platform/delivery/hub-signature.js';
import { decodeNotifications, notify } from './notify.js';
import { isRetryable } from './retry.js';
import { tellsRequester } from '../../platform/delivery/requester-errors.js';
import { createDfspVersions } from '../../platform/delivery/dfsp-versions.js';

// Callbacks that tell the payer how its transfer ended: the end of the end-to-end latency.
const FINAL_TRANSFER_ACTIONS = new Set(['commit', 'abort', 'error', 'timeout']);

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
 * The collaborators notify() needs (notify.js), shared by the main and the retry topic's
 * batches; `versions` (platform/delivery/dfsp-versions.js) remembers which version each DFSP speaks.
 */
export function createNotifyContext({
  endpoints, deliverer, metrics, logger, hubName, signCallback = unsignedCallbacks, versions = createDfspVersions(), now = Date.now,
}) {
  const log = logger.child({ component: 'notification' });
  const throttledWarn = createThrottledWarn(log, { now });
  return { endpoints, deliverer, metrics, log, throttledWarn, hubName, signCallback, versions, now };
}

/**
 * Creates `handleBatch(messages)`. `endpoints` is the endpoint cache, `deliverer` the
 * deliverer (platform/delivery/deliver.js); `batchDeadlineMs` bounds how long one batch may take;
 * `signCallback` signs the hub's own callbacks (platform/delivery/hub-signature.js); `scheduleRetries`
 * (retry.js) takes the callbacks that failed for a reason that can pass, and without it
 * they are only counted as failed; `tellRequesters` (requester-notifier.js) takes the outcomes
 * of forwards whose requester must hear when they are not delivered, which are then never
 * retried. A `context` from createNotifyContext may be given instead.
 */
export function createNotificationHandler({ batchDeadlineMs, scheduleRetries = null, tellRequesters = null, context: given, ...collaborators }) {
  const context = given ?? createNotifyContext(collaborators);
  const { metrics, now } = context;
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
    // A forward whose requester is told it failed is not sent again (platform/delivery/requester-errors.js says why).
    const toldRequesters = outcomes.filter((outcome) => tellsRequester(outcome.item));
    if (tellRequesters && toldRequesters.length > 0) await tellRequesters(toldRequesters);
    // A retried callback may reach its DFSP after a later one of the same transfer; retry.js says why that is safe.
    const retryable = outcomes.filter((outcome) => isRetryable(outcome.result) && !(tellRequesters && tellsRequester(outcome.item)));
    if (scheduleRetries && retryable.length > 0) await scheduleRetries(retryable);
  };
}
