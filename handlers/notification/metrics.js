// The notification handler's metrics, registered on the process registry (platform/metrics.js):
// the callback metrics every sender of callbacks shares (platform/delivery/metrics.js), and
// the handler's own, about its events, its retry topic and the end-to-end latency.
import { createCallbackMetrics } from '../../platform/delivery/metrics.js';

/**
 * Label cardinality: `fsp` is the receiving DFSP, bounded as in the callback metrics;
 * `outcome` by OUTCOME; `reason` by the two reasons an event is skipped.
 */
export function createNotificationMetrics({ registry, client }) {
  const registers = [registry];
  const metrics = {
    ...createCallbackMetrics({ registry, client }),
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
  };
  // Both reasons are exported from the start, so "none skipped" reads 0 rather than no data.
  for (const reason of ['malformed', 'invalid']) metrics.skippedEvents.inc({ reason }, 0);
  return metrics;
}
