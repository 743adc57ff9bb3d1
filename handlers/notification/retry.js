// Callbacks that could not be delivered are not dropped: they go to the retry topic with their
// attempt count and a not-before time, and this process consumes that topic too, waits until
// each record is due, delivers it again, and on failure produces it again with a longer
// back-off, until its give-up time (NOTIFICATION_RETRY_AGE_MAX_MS after the first failure, or
// the expiration its body states, after which delivering it is pointless) when it is counted
// as dropped and logged.
//
// Ordering: a retried callback may reach its DFSP after a later callback of the same transfer
// (a PATCH after the PUT that is still waiting here). FSPIOP callbacks are idempotent for the
// receiver and what counts is the final state, which a late PUT repeats and a DFSP can always
// learn by GET; delaying every later callback behind a failed one would instead let one dead
// endpoint hold up the rest of that transfer's calls.
import { copyForRelay, encodeEvent, isMalformedEvent } from '../../platform/kafka/envelope.js';
import { OUTCOME, isRetryableStatus } from '../../platform/delivery/deliver.js';
import { EndpointLookupError } from '../../platform/delivery/endpoints.js';
import { createLaneScheduler, runInLanes } from './lanes.js';
import { decodeNotifications, notify } from './notify.js';
import { CONVERSION_FAILED } from '../../platform/iso20022/egress.js';

/** A waiting retry was cut short because the process is stopping; its batch is not committed. */
export class RetryWaitStoppedError extends Error {
  constructor() {
    super('stopping: the retry is left on its topic');
    this.name = 'RetryWaitStoppedError';
  }
}

// Failures that the same event meets again on every attempt.
const PERMANENT_REASONS = new Set(['bad_template', CONVERSION_FAILED]);

/**
 * Whether a failed callback can succeed later: a 5xx, no answer, a refused connection, a full
 * queue or an open circuit can; a 4xx or a 501 (not implemented) is the DFSP's final word, an
 * unrenderable URL never renders and a body that cannot be converted into its receiver's API
 * never converts, so those are not retried. Nor is a callback whose destination the switch
 * refused (OUTCOME.refused, platform/delivery/deliver.js says why).
 */
export function isRetryable(result) {
  if (result?.outcome !== OUTCOME.failed || PERMANENT_REASONS.has(result.reason)) return false;
  // The last HTTP answer, if any, decides, by the same rule as the attempts in platform/delivery/deliver.js.
  return result.status === undefined || isRetryableStatus(result.status);
}

/**
 * The `expiration` the callback's body states (a transfer or quote request), as epoch ms. A
 * forwarded body is parsed here, on the retry path only; one that is not JSON states none
 * and is still retried until NOTIFICATION_RETRY_AGE_MAX_MS, its bytes sent as they came.
 */
function expirationMs(event) {
  let stated;
  try {
    stated = event.body?.expiration;
  } catch (error) {
    if (!isMalformedEvent(error)) throw error;
  }
  const ms = typeof stated === 'string' ? Date.parse(stated) : NaN;
  return Number.isFinite(ms) ? ms : Infinity;
}

/**
 * The next retry of `event` failed at `nowMs`: `{ attempt, notBefore, firstFailedAt, giveUpAt }`,
 * or null once its give-up time has come. The wait doubles per attempt from `backoffMs` up to
 * `backoffMaxMs`, and the last attempt is made at the give-up time itself.
 */
export function nextRetry(event, { nowMs, backoffMs, backoffMaxMs, ageMaxMs }) {
  const attempt = (event.retry?.attempt ?? 0) + 1;
  const firstFailedAt = event.retry?.firstFailedAt ?? nowMs;
  const giveUpAt = Math.min(firstFailedAt + ageMaxMs, expirationMs(event));
  if (nowMs >= giveUpAt) return null;
  const waitMs = Math.min(backoffMaxMs, backoffMs * 2 ** Math.min(attempt - 1, 40));
  return { attempt, notBefore: Math.min(nowMs + waitMs, giveUpAt), firstFailedAt, giveUpAt };
}

/**
 * Produces failed callbacks to the retry topic, or gives them up. `schedule(failures)` takes
 * `[{ item: event, result }]` and resolves once every record is acknowledged by the broker
 * (acks=all), so the caller may then commit the offsets it came from; it rejects if any
 * record failed, and the caller's batch is then consumed again.
 */
export function createRetryScheduler({ producer, topic, settings, metrics, throttledWarn, now = Date.now }) {
  return async function schedule(failures) {
    const records = [];
    const scheduledFsps = [];
    for (const { item: event, result } of failures) {
      const retry = nextRetry(event, { nowMs: now(), ...settings });
      if (retry) {
        records.push({ topic, key: event.id, value: encodeEvent(copyForRelay(event, { retry })) });
        scheduledFsps.push(result.fsp);
        continue;
      }
      metrics.callbacksDropped.inc({ fsp: result.fsp });
      throttledWarn(`dropped\u0000${result.fsp}`, {
        fsp: event.to, id: event.id, action: event.action, reason: result.reason, attempts: event.retry?.attempt ?? 0,
        firstFailedAt: event.retry?.firstFailedAt,
      }, 'callback given up: still undelivered at its give-up time');
    }
    await producer.produce(records);
    for (const fsp of scheduledFsps) metrics.callbackRetriesScheduled.inc({ fsp });
  };
}

/**
 * Waits until a time, on a timer per waiting record, so a record not yet due holds up no
 * other partition or topic. `stop()` rejects every wait with RetryWaitStoppedError, so a
 * stopping process does not sit out back-offs, and leaves those records uncommitted.
 */
export function createRetryWaiter({ now = Date.now } = {}) {
  const waiting = new Set();
  let stopped = false;
  return {
    until(atMs) {
      if (stopped) return Promise.reject(new RetryWaitStoppedError());
      const waitMs = atMs - now();
      if (!(waitMs > 0)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const entry = { reject, timer: setTimeout(() => { waiting.delete(entry); resolve(); }, waitMs) };
        waiting.add(entry);
      });
    },
    stop() {
      stopped = true;
      for (const entry of waiting) {
        clearTimeout(entry.timer);
        entry.reject(new RetryWaitStoppedError());
      }
      waiting.clear();
    },
  };
}

/**
 * Creates the retry topic's batch function: each record waits for its not-before time (in
 * order within its lane, see lanes.js), is delivered as on the main topic, and if it fails
 * again goes back to the retry topic (or is given up) before the batch resolves.
 */
export function createRetryHandler({ context, schedule, waiter, batchDeadlineMs }) {
  const { metrics, now } = context;
  const run = createLaneScheduler(async (event) => {
    await waiter.until(event.retry?.notBefore ?? 0);
    let result;
    try {
      result = await notify(context, event, now() + batchDeadlineMs);
    } catch (error) {
      // The admin API is out of reach: on this topic that is one more failed round, not a
      // reason to stop every other retry.
      if (!(error instanceof EndpointLookupError)) throw error;
      result = { outcome: OUTCOME.failed, reason: 'endpoint_lookup', fsp: 'unknown' };
    }
    metrics.callbackRetries.inc({ fsp: result.fsp, outcome: result.outcome });
    return result;
  });

  return async function handleRetryBatch(messages) {
    const events = decodeNotifications(messages, context);
    if (events.length === 0) return;
    const outcomes = await runInLanes(events, run);
    const errors = outcomes.filter((outcome) => outcome.error).map((outcome) => outcome.error);
    if (errors.length > 0) throw new AggregateError(errors, `${errors.length} retried callback(s) did not finish: ${errors[0].message}`);
    await schedule(outcomes.filter((outcome) => isRetryable(outcome.result)));
  };
}
