/* global __ENV */
// One iteration = one bulk payment of BULK_SIZE items from a weighted payer to its payee: the
// bulk quote (POST /bulkQuotes → PUT) and the bulk transfer of the quoted items (POST
// /bulkTransfers → the hub's aggregated PUT), in one call to the payer bridge (perf/simulators:
// POST /bulkPayments), which answers with each phase's time and how many items committed. k6
// times the whole bulk itself. constant-arrival-rate at BULK_RATE bulks a second (fractions
// allowed) for ceil(BULKS / BULK_RATE) seconds.
// A bulk is counted completed (bulk_completed) when the payer was told COMPLETED with every item
// fulfilled, failed (bulk_failed, tagged with the phase) otherwise; bulk_items_committed counts
// the items fulfilled in every bulk. So that the report (perf/report.js) and the validity gate
// read a bulk run as they read a run of single transfers, completed_transactions and
// failed_transactions count the items committed and not committed, and e2e_time is the bulk's
// end-to-end time (as bulk_e2e_time).
// Env: BULK_RATE, BULKS, BULK_SIZE, BULK_E2E_P95_MS (the chart's load test runs this after
// perf/k6/transfers.js with both thresholds in its env), E2E_P95_MS, PAIRS_JSON ([{payer, payee, weight, msisdnFrom,
// msisdnCount}]), BRIDGE_HOST, BRIDGE_PORT, PAYER_WORKERS_JSON, AMOUNT, CURRENCY, PROFILE,
// SUMMARY_PATH, TRANSFER_EXPIRATION_MS, CALLBACK_WAIT_MS.
import http from 'k6/http';
import { check } from 'k6';
import { Counter, Rate, Trend } from 'k6/metrics';

const BULK_RATE = Number(__ENV.BULK_RATE || 1);
const BULKS = Number(__ENV.BULKS || 10);
const BULK_SIZE = Number(__ENV.BULK_SIZE || 100);
const PAIRS = JSON.parse(__ENV.PAIRS_JSON || '[]');
const PAYER_WORKERS = JSON.parse(__ENV.PAYER_WORKERS_JSON || '{}');
const BRIDGE_HOST = __ENV.BRIDGE_HOST || '127.0.0.1';
const BRIDGE_PORT = Number(__ENV.BRIDGE_PORT || 7100);
const AMOUNT = __ENV.AMOUNT || '1';
const CURRENCY = __ENV.CURRENCY || 'USD';
const DURATION_S = Math.max(1, Math.ceil(BULKS / BULK_RATE));
// A bulk's target: its end-to-end p95 under BULK_E2E_P95_MS, else E2E_P95_MS (10 s by default: a bulk of 100 is a
// hundred payments' quotes, reservations and commits).
const E2E_P95_MS = Number(__ENV.BULK_E2E_P95_MS || __ENV.E2E_P95_MS || 10000);
// The bridge waits for the bulk quote for CALLBACK_WAIT_MS and for the bulk's outcome until its
// expiry and a grace (perf/simulators/bulk.js), longer than k6's default 60-s request timeout.
const BULK_TIMEOUT = `${Math.ceil((Number(__ENV.TRANSFER_EXPIRATION_MS || 60000) + 2 * Number(__ENV.CALLBACK_WAIT_MS || 30000)) / 1000) + 60}s`;
const TOTAL_WEIGHT = PAIRS.reduce((sum, pair) => sum + (pair.weight || 1), 0);

const bulkCompleted = new Counter('bulk_completed');
const bulkFailed = new Counter('bulk_failed');
const bulkItemsCommitted = new Counter('bulk_items_committed');
const bulkE2eTime = new Trend('bulk_e2e_time', true);
const bulkQuoteTime = new Trend('bulk_quote_time', true);
const bulkTransferTime = new Trend('bulk_transfer_time', true);
const completedItems = new Counter('completed_transactions');
const failedItems = new Counter('failed_transactions');
const e2eTime = new Trend('e2e_time', true);
const successRate = new Rate('success_rate');

export const options = {
  discardResponseBodies: false,
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  scenarios: {
    bulks: {
      // Bulks a minute, so that a rate under one a second still starts its bulks evenly.
      executor: 'constant-arrival-rate', rate: Math.max(1, Math.round(BULK_RATE * 60)), timeUnit: '1m', duration: `${DURATION_S}s`,
      preAllocatedVUs: Math.max(10, Math.ceil(BULK_RATE * 20)), maxVUs: Math.max(50, Math.ceil(BULK_RATE * 100)),
      // A bulk still waiting when the run ends may be one the switch will complete: it is
      // given as long as the payer may wait.
      gracefulStop: BULK_TIMEOUT,
    },
  },
  thresholds: {
    success_rate: ['rate>0.9999'],
    bulk_e2e_time: [`p(95)<${E2E_P95_MS}`],
  },
};

function pickPair() {
  let point = Math.random() * TOTAL_WEIGHT;
  for (const pair of PAIRS) {
    point -= pair.weight || 1;
    if (point <= 0) return pair;
  }
  return PAIRS[PAIRS.length - 1];
}

/** A field of the bridge's JSON answer, or undefined when the answer is not JSON (a k6 timeout). */
function answerField(response, name) {
  try {
    return response.json(name);
  } catch (error) {
    return undefined;
  }
}

let failuresLogged = 0;

/** Counts a bulk that did not complete whole: its committed items apart from the rest. */
function fail(phase, response, committed) {
  if (failuresLogged < 2) {
    failuresLogged += 1;
    console.warn(`bulk ${phase} failed: HTTP ${response.status} ${String(response.body).slice(0, 300)}`);
  }
  bulkFailed.add(1, { phase });
  successRate.add(0);
  if (committed > 0) {
    bulkItemsCommitted.add(committed);
    completedItems.add(committed);
  }
  failedItems.add(BULK_SIZE - committed, { phase });
}

export default function iteration() {
  const pair = pickPair();
  const bridge = `http://${BRIDGE_HOST}:${BRIDGE_PORT + (PAYER_WORKERS[pair.payer] || 0)}`;
  const request = {
    payer: pair.payer, payee: pair.payee, items: BULK_SIZE, amount: AMOUNT, currency: CURRENCY, msisdnFrom: pair.msisdnFrom, msisdnCount: pair.msisdnCount,
  };
  const start = Date.now();
  const answer = http.post(`${bridge}/bulkPayments`, JSON.stringify(request), {
    headers: { 'content-type': 'application/json' }, timeout: BULK_TIMEOUT, tags: { flow: 'bulk' },
  });
  const elapsedMs = Date.now() - start;
  if (!check(answer, { BULK_ANSWERED: (r) => r.status === 200 })) return fail(answerField(answer, 'phase') || 'bulk', answer, 0);
  const committed = answerField(answer, 'committed') || 0;
  const phasesMs = answerField(answer, 'phasesMs') || {};
  if (!check(answer, { BULK_COMPLETED: () => answerField(answer, 'bulkTransferState') === 'COMPLETED' && committed === BULK_SIZE })) {
    return fail('items', answer, committed);
  }
  bulkQuoteTime.add(phasesMs.bulk_quote);
  bulkTransferTime.add(phasesMs.bulk_transfer);
  bulkE2eTime.add(elapsedMs);
  e2eTime.add(elapsedMs);
  bulkCompleted.add(1);
  bulkItemsCommitted.add(committed);
  completedItems.add(committed);
  successRate.add(1);
  return undefined;
}

function metric(data, name, stat) {
  const values = data.metrics[name]?.values;
  return values ? values[stat] : undefined;
}

export function handleSummary(data) {
  const items = metric(data, 'bulk_items_committed', 'count') || 0;
  // completed= counts the items committed, as the gate counts the run's committed transfers.
  const line = `profile=${__ENV.PROFILE || 'bulk'} bulk_rate=${BULK_RATE} bulks=${BULKS} bulk_size=${BULK_SIZE} `
    + `bulk_completed=${metric(data, 'bulk_completed', 'count') || 0} bulk_failed=${metric(data, 'bulk_failed', 'count') || 0} `
    + `completed=${items} failed=${metric(data, 'failed_transactions', 'count') || 0} success_rate=${metric(data, 'success_rate', 'rate')} `
    + `bulk_e2e_p50=${metric(data, 'bulk_e2e_time', 'med')}ms bulk_e2e_p95=${metric(data, 'bulk_e2e_time', 'p(95)')}ms `
    + `items_per_s=${(items / DURATION_S).toFixed(1)} dropped_iterations=${metric(data, 'dropped_iterations', 'count') || 0}\n`;
  const out = { stdout: line };
  if (__ENV.SUMMARY_PATH) out[__ENV.SUMMARY_PATH] = JSON.stringify(data, null, 2);
  return out;
}
