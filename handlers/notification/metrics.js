// The notification handler's metrics, registered on the process registry (platform/metrics.js).

/**
 * Label cardinality: `fsp` is the receiving DFSP, so it is bounded by the number of onboarded
 * DFSPs (a name the admin API does not know is counted as "unknown", so junk in an event
 * cannot grow it); `endpoint_type` by Mojaloop's endpoint types; `outcome` by OUTCOME.
 */
export function createNotificationMetrics({ registry, client }) {
  const registers = [registry];
  const metrics = {
    callbacks: new client.Counter({
      name: 'callbacks_total',
      help: 'Callback delivery rounds that reached an outcome (delivered, failed after its attempts, no_endpoint, refused: a destination the hub may not call), by receiving DFSP and endpoint type; a failed round that can pass is followed by one from the retry topic.',
      labelNames: ['fsp', 'endpoint_type', 'outcome'],
      registers,
    }),
    callbackDuration: new client.Histogram({
      name: 'callback_duration_seconds',
      help: 'Time from dispatching a callback to its final outcome, queueing and retries included.',
      labelNames: ['endpoint_type'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    transferEndToEnd: new client.Histogram({
      name: 'transfer_end_to_end_seconds',
      help: 'Time from the edge accepting a request to the delivery of the final-state callback of its transfer.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    skippedEvents: new client.Counter({
      name: 'notification_events_skipped_total',
      help: 'Notification events that could not be delivered because they are malformed, by reason.',
      labelNames: ['reason'],
      registers,
    }),
    callbackRetriesScheduled: new client.Counter({
      name: 'callback_retries_scheduled_total',
      help: 'Callbacks produced to the retry topic after a failed delivery round (5xx, no answer, full queue, open circuit), by receiving DFSP.',
      labelNames: ['fsp'],
      registers,
    }),
    callbackRetries: new client.Counter({
      name: 'callback_retries_total',
      help: 'Delivery rounds of callbacks taken from the retry topic, by receiving DFSP and outcome.',
      labelNames: ['fsp', 'outcome'],
      registers,
    }),
    callbacksDropped: new client.Counter({
      name: 'callbacks_dropped_total',
      help: 'Callbacks given up undelivered at their give-up time (NOTIFICATION_RETRY_AGE_MAX_MS or the expiration their body states), by receiving DFSP.',
      labelNames: ['fsp'],
      registers,
    }),
    requesterErrors: new client.Counter({
      name: 'forwards_undeliverable_total',
      help: 'Forwards (GET /parties, quote requests, transfer prepares) that could not reach their DFSP and were answered to their requester with an error from the hub, by FSPIOP error code (3201, 2003).',
      labelNames: ['code'],
      registers,
    }),
  };
  // Both reasons are exported from the start, so "none skipped" reads 0 rather than no data.
  for (const reason of ['malformed', 'invalid']) metrics.skippedEvents.inc({ reason }, 0);
  return metrics;
}
