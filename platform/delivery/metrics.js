// The metrics of callback delivery, declared once for every process that calls DFSPs (the
// notification handler, account-lookup's /parties calls), so that the dashboards and the DFSP
// callback-failure alert count callbacks wherever they are sent from, under one name and help.
import { metricOnce } from '../metrics.js';

/**
 * Registers the callback metrics on the process registry (platform/metrics.js), or returns
 * those already there. Label cardinality: `fsp` is the receiving DFSP, so it is bounded by the
 * number of onboarded DFSPs (a name the admin API does not know is counted as "unknown", so
 * junk in an event or a header cannot grow it); `endpoint_type` by Mojaloop's endpoint types;
 * `outcome` by OUTCOME (deliver.js); `code` by the two requester errors; `from` and `to` by
 * the two APIs.
 */
export function createCallbackMetrics(metrics) {
  const { Counter, Histogram } = metrics.client;
  const once = (Type, spec) => metricOnce(metrics, Type, spec);
  return {
    callbacks: once(Counter, {
      name: 'callbacks_total',
      help: 'Callback delivery rounds that reached an outcome (delivered, failed after its attempts, no_endpoint, refused: a destination the hub may not call), by receiving DFSP and endpoint type; in the notification handler a failed round that can pass is followed by one from the retry topic.',
      labelNames: ['fsp', 'endpoint_type', 'outcome'],
    }),
    callbackDuration: once(Histogram, {
      name: 'callback_duration_seconds',
      help: 'Time from dispatching a callback to its final outcome, queueing and retries included.',
      labelNames: ['endpoint_type'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    }),
    conversions: once(Counter, {
      name: 'callback_conversions_total',
      help: 'Callbacks whose body was converted between FSPIOP and ISO 20022 for a receiver of the other API (platform/iso20022/egress.js), by the API of the original and of the receiver, and whether it could be converted (converted) or not (failed: not sent, its requester told 3201).',
      labelNames: ['from', 'to', 'outcome'],
    }),
    requesterErrors: once(Counter, {
      name: 'forwards_undeliverable_total',
      help: 'Forwards (GET /parties, quote requests, transfer prepares) that could not reach their DFSP and were answered to their requester with an error from the hub, by FSPIOP error code (3201, 2003).',
      labelNames: ['code'],
    }),
  };
}

/** Counts a callback's conversion between APIs, if it had one (platform/iso20022/egress.js prepareCallback's result). */
export function countConversion(metrics, prepared) {
  if (!prepared.conversion) return;
  metrics.conversions.inc({ ...prepared.conversion, outcome: prepared.failure ? 'failed' : 'converted' });
}
