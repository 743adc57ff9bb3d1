/* global __ENV */
// One iteration = discovery → quote → transfer for a weighted payer/payee pair and a payee
// MSISDN from the payee's range, in one call to the payer bridge (perf/simulators: POST
// /payments), which makes the three FSPIOP exchanges and answers with each phase's time; k6
// times the whole iteration itself. constant-arrival-rate at TPS for ceil(TRANSFERS / TPS) seconds.
// With WARMUP_SECONDS above 0, a warm-up scenario first ramps the rate from 1/s to TPS over
// that long, and the measured scenario (constant-arrival-rate at TPS) starts after it. A step
// from nothing to TPS into freshly started simulators (cold V8, no connections yet) built a
// queue that took half a minute to drain on two cores; the warm-up's iterations are real
// payments (the gate counts them: warmup_completed, warmup_failed) but stay out of the
// latency and rate figures, which describe the sustained rate.
// With CONVERSION_SHARE above 0 (and CONVERSION_PAIRS_JSON from perf/provision.js
// --conversion), that share of the iterations pays across currencies: a USD payer pays an EUR
// payee through the FXP (the bridge's conversion payment: discovery, FXP discovery, fx quote,
// quote, fx transfer, transfer, in API v2.0). They are counted apart (conversion_completed,
// conversion_failed, conversion_e2e_time, and the conversion's own phases fx_quote_time and
// fx_transfer_time), so the plain figures stay comparable with runs without them; success_rate
// and the summary line's counts cover both, and the gate counts every payment as
// completed + conversion_completed (+ the warm-up's, which counts both kinds).
// With RTP_SHARE above 0, that share of the iterations are merchant-initiated payments (request
// to pay, perf/simulators/request-to-pay.js): the pair's payer DFSP is the merchant, which asks
// the customer at the pair's payee DFSP (an MSISDN of its range) to pay, through the merchant's
// bridge (POST /requestsToPay: discovery, transaction request, then the customer's DFSP's
// quote and transfer until the switch tells the merchant it committed); RTP_OTP_SHARE of them
// have the customer approve with an OTP (GET /authorizations). They are counted apart
// (rtp_completed, rtp_failed, rtp_e2e_time, and the phases transaction_request_time and
// rtp_payment_time) and in success_rate; warm-up ones also in warmup_rtp_completed, for the gate.
// With ISO20022_SHARE above 0 perf/provision.js registered that share of the DFSPs as ISO 20022
// DFSPs, and PAIRS_JSON names each side's API type: a payment between any pair goes as it
// goes (the payer's bridge speaks the payer's type, perf/simulators/iso-dfsp.js), so the plain
// payments mix the four type pairs; requests to pay stay between FSPIOP DFSPs. The summary
// line says the share; the payments per type pair are the gate's (perf/gate.js).
// Env: TPS, TRANSFERS, WARMUP_SECONDS, E2E_P95_MS, PAIRS_JSON ([{payer, payee, weight, msisdnFrom, msisdnCount}]),
// CONVERSION_SHARE, RTP_SHARE, RTP_OTP_SHARE, ISO20022_SHARE, CONVERSION_PAIRS_JSON ([{payer, payee, fxp, targetCurrency, weight, msisdnFrom, msisdnCount}]),
// BRIDGE_HOST, BRIDGE_PORT, PAYER_WORKERS_JSON, AMOUNT, CURRENCY, PROFILE, SUMMARY_PATH.
// An iteration goes to the bridge of the simulator process that owns its payer
// (PAYER_WORKERS_JSON, {payer: index}, from perf/provision.js): the payer's callbacks are
// registered on that process's port, so they arrive where the bridge waits for them. A payer
// missing from it goes to the first process (BRIDGE_PORT).
import http from 'k6/http';
import { check } from 'k6';
import exec from 'k6/execution';
import { Counter, Rate, Trend } from 'k6/metrics';

const TPS = Number(__ENV.TPS || 10);
const TRANSFERS = Number(__ENV.TRANSFERS || 300);
const PAIRS = JSON.parse(__ENV.PAIRS_JSON || '[]');
const CONVERSION_PAIRS = JSON.parse(__ENV.CONVERSION_PAIRS_JSON || '[]');
const CONVERSION_SHARE = CONVERSION_PAIRS.length > 0 ? Math.min(1, Math.max(0, Number(__ENV.CONVERSION_SHARE || 0))) : 0;
// The shares of request-to-pay and conversion iterations are both of all iterations (their sum at most 1).
const RTP_SHARE = Math.min(1 - CONVERSION_SHARE, Math.max(0, Number(__ENV.RTP_SHARE || 0)));
const RTP_OTP_SHARE = Math.min(1, Math.max(0, Number(__ENV.RTP_OTP_SHARE || 0)));
const ISO20022_SHARE = Number(__ENV.ISO20022_SHARE || 0);
// Request to pay (transaction requests, authorizations) is FSPIOP's alone: its pairs are FSPIOP DFSPs.
const RTP_PAIRS = PAIRS.filter((pair) => (pair.payerApiType || 'FSPIOP') === 'FSPIOP' && (pair.payeeApiType || 'FSPIOP') === 'FSPIOP');
const PAYER_WORKERS = JSON.parse(__ENV.PAYER_WORKERS_JSON || '{}');
const BRIDGE_HOST = __ENV.BRIDGE_HOST || '127.0.0.1';
const BRIDGE_PORT = Number(__ENV.BRIDGE_PORT || 7100);
const AMOUNT = __ENV.AMOUNT || '1';
const CURRENCY = __ENV.CURRENCY || 'USD';
const DURATION_S = Math.max(1, Math.ceil(TRANSFERS / TPS));
const WARMUP_S = Math.max(0, Math.floor(Number(__ENV.WARMUP_SECONDS || 0)));
// The run's latency target: e2e p95 under E2E_P95_MS (1 s, the scheme's target), a conversion
// payment's under twice that (six exchanges instead of three).
const E2E_P95_MS = Number(__ENV.E2E_P95_MS || 1000);
// The payer bridge waits for a transfer's outcome until its expiry and then asks for it
// (perf/simulators/bridge.js), which is longer than k6's default 60-s request timeout;
// discovery and quote before it are each awaited for at most CALLBACK_WAIT_MS.
const PAYMENT_TIMEOUT = `${Math.ceil((Number(__ENV.TRANSFER_EXPIRATION_MS || 60000) + 2 * Number(__ENV.CALLBACK_WAIT_MS || 30000)) / 1000) + 60}s`;
const totalWeight = (pairs) => pairs.reduce((sum, pair) => sum + (pair.weight || 1), 0);
const TOTAL_WEIGHT = totalWeight(PAIRS);
const CONVERSION_WEIGHT = totalWeight(CONVERSION_PAIRS);
const RTP_WEIGHT = totalWeight(RTP_PAIRS);

const discoveryTime = new Trend('discovery_time', true);
const quoteTime = new Trend('quote_time', true);
const transferTime = new Trend('transfer_time', true);
const e2eTime = new Trend('e2e_time', true);
const completed = new Counter('completed_transactions');
const failed = new Counter('failed_transactions');
const successRate = new Rate('success_rate');
const warmupCompleted = new Counter('warmup_completed');
const warmupFailed = new Counter('warmup_failed');
const conversionCompleted = new Counter('conversion_completed');
const conversionFailed = new Counter('conversion_failed');
const conversionE2eTime = new Trend('conversion_e2e_time', true);
const fxQuoteTime = new Trend('fx_quote_time', true);
const fxTransferTime = new Trend('fx_transfer_time', true);
const rtpCompleted = new Counter('rtp_completed');
const rtpFailed = new Counter('rtp_failed');
const warmupRtpCompleted = new Counter('warmup_rtp_completed');
const rtpE2eTime = new Trend('rtp_e2e_time', true);
const transactionRequestTime = new Trend('transaction_request_time', true);
const rtpPaymentTime = new Trend('rtp_payment_time', true);
const VUS = { preAllocatedVUs: Math.max(30, TPS * 3), maxVUs: Math.max(100, TPS * 10) };
const warmup = {
  executor: 'ramping-arrival-rate', startRate: 1, timeUnit: '1s', stages: [{ target: TPS, duration: `${WARMUP_S}s` }],
  preAllocatedVUs: Math.max(10, TPS), maxVUs: VUS.maxVUs, gracefulStop: PAYMENT_TIMEOUT,
};

export const options = {
  discardResponseBodies: false,
  summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
  scenarios: {
    ...(WARMUP_S > 0 ? { warmup } : {}),
    transfers: {
      executor: 'constant-arrival-rate', rate: TPS, timeUnit: '1s', duration: `${DURATION_S}s`, startTime: `${WARMUP_S}s`, ...VUS,
      // An iteration still waiting when the run ends may be waiting for a transfer the switch
      // will commit (a fault): it is given as long as the payer may wait (PAYMENT_TIMEOUT).
      gracefulStop: PAYMENT_TIMEOUT,
    },
  },
  thresholds: {
    success_rate: ['rate>0.9999'],
    e2e_time: [`p(95)<${E2E_P95_MS}`],
    ...(CONVERSION_SHARE > 0 ? { conversion_e2e_time: [`p(95)<${2 * E2E_P95_MS}`] } : {}),
    ...(RTP_SHARE > 0 ? { rtp_e2e_time: [`p(95)<${2 * E2E_P95_MS}`] } : {}),
  },
};

function pickPair(pairs, total) {
  let point = Math.random() * total;
  for (const pair of pairs) {
    point -= pair.weight || 1;
    if (point <= 0) return pair;
  }
  return pairs[pairs.length - 1];
}

let failuresLogged = 0;

const FAILED_BY_FLOW = { payment: failed, conversion: conversionFailed, 'request to pay': rtpFailed };

/** Counts a failed iteration of `flow` (FAILED_BY_FLOW); the first few failures of each VU are logged with the answer. */
function fail(phase, response, flow = 'payment') {
  if (failuresLogged < 2) {
    failuresLogged += 1;
    console.warn(`${flow === 'payment' ? '' : `${flow} `}${phase} failed: HTTP ${response.status} ${String(response.body).slice(0, 300)}`);
  }
  if (warmingUp()) {
    warmupFailed.add(1, { phase });
    return;
  }
  FAILED_BY_FLOW[flow].add(1, { phase });
  successRate.add(0);
}

const warmingUp = () => exec.scenario.name === 'warmup';

export default function iteration() {
  const draw = Math.random();
  if (draw < RTP_SHARE) return requestToPayIteration();
  const conversion = draw - RTP_SHARE < CONVERSION_SHARE;
  const pair = conversion ? pickPair(CONVERSION_PAIRS, CONVERSION_WEIGHT) : pickPair(PAIRS, TOTAL_WEIGHT);
  const msisdn = String(pair.msisdnFrom + Math.floor(Math.random() * pair.msisdnCount));
  const bridge = `http://${BRIDGE_HOST}:${BRIDGE_PORT + (PAYER_WORKERS[pair.payer] || 0)}`;
  const request = { payer: pair.payer, payee: pair.payee, msisdn, amount: AMOUNT, currency: CURRENCY };
  if (conversion) request.conversion = { fxp: pair.fxp, targetCurrency: pair.targetCurrency };
  const start = Date.now();
  const payment = http.post(`${bridge}/payments`, JSON.stringify(request), {
    headers: { 'content-type': 'application/json' }, timeout: PAYMENT_TIMEOUT, tags: { flow: conversion ? 'conversion' : 'payment' },
  });
  const end = Date.now();
  if (!check(payment, { PAYMENT_COMPLETED: (r) => r.status === 200 })) return fail(answerField(payment, 'phase') || 'payment', payment, conversion ? 'conversion' : 'payment');
  if (warmingUp()) {
    warmupCompleted.add(1);
    return undefined;
  }
  const phasesMs = answerField(payment, 'phasesMs') || {};
  if (conversion) return conversionCompletedIn(phasesMs, end - start);
  discoveryTime.add(phasesMs.discovery);
  quoteTime.add(phasesMs.quote);
  transferTime.add(phasesMs.transfer);
  e2eTime.add(end - start);
  completed.add(1);
  successRate.add(1);
  return undefined;
}

function conversionCompletedIn(phasesMs, elapsedMs) {
  fxQuoteTime.add(phasesMs.fx_quote);
  fxTransferTime.add(phasesMs.fx_transfer);
  conversionE2eTime.add(elapsedMs);
  conversionCompleted.add(1);
  successRate.add(1);
  return undefined;
}

/**
 * One merchant-initiated payment: the pair's payer is the merchant, its payee the customer's
 * DFSP; k6 calls the merchant's bridge (its callbacks arrive at that process).
 */
function requestToPayIteration() {
  const pair = pickPair(RTP_PAIRS, RTP_WEIGHT);
  const msisdn = String(pair.msisdnFrom + Math.floor(Math.random() * pair.msisdnCount));
  const bridge = `http://${BRIDGE_HOST}:${BRIDGE_PORT + (PAYER_WORKERS[pair.payer] || 0)}`;
  const request = { merchant: pair.payer, payer: pair.payee, msisdn, amount: AMOUNT, currency: CURRENCY, otp: Math.random() < RTP_OTP_SHARE };
  const start = Date.now();
  const answer = http.post(`${bridge}/requestsToPay`, JSON.stringify(request), {
    headers: { 'content-type': 'application/json' }, timeout: PAYMENT_TIMEOUT, tags: { flow: 'request-to-pay' },
  });
  const end = Date.now();
  if (!check(answer, { PAYMENT_COMPLETED: (r) => r.status === 200 })) return fail(answerField(answer, 'phase') || 'request-to-pay', answer, 'request to pay');
  if (warmingUp()) {
    warmupCompleted.add(1);
    return warmupRtpCompleted.add(1);
  }
  const phasesMs = answerField(answer, 'phasesMs') || {};
  transactionRequestTime.add(phasesMs.transaction_request);
  rtpPaymentTime.add(phasesMs.payment);
  rtpE2eTime.add(end - start);
  rtpCompleted.add(1);
  return successRate.add(1);
}

/** A field of the bridge's JSON answer, or undefined when the answer is not JSON (a k6 timeout). */
function answerField(response, name) {
  try {
    return response.json(name);
  } catch (error) {
    return undefined;
  }
}

function metric(data, name, stat) {
  const values = data.metrics[name]?.values;
  return values ? values[stat] : undefined;
}

export function handleSummary(data) {
  const done = metric(data, 'completed_transactions', 'count') || 0;
  const conversions = metric(data, 'conversion_completed', 'count') || 0;
  const requestsToPay = metric(data, 'rtp_completed', 'count') || 0;
  // completed= counts the plain payments, conversion_completed= the conversion payments: the
  // gate's count of the run's payments is their sum with warmup_completed=.
  const line = `profile=${__ENV.PROFILE || 'custom'} tps=${TPS} target=${TRANSFERS} completed=${done} `
    + `failed=${metric(data, 'failed_transactions', 'count') || 0} success_rate=${metric(data, 'success_rate', 'rate')} `
    + `e2e_p95=${metric(data, 'e2e_time', 'p(95)')}ms actual_tps=${((done + conversions + requestsToPay) / DURATION_S).toFixed(1)} `
    + `dropped_iterations=${metric(data, 'dropped_iterations', 'count') || 0} `
    + `warmup_completed=${metric(data, 'warmup_completed', 'count') || 0} warmup_failed=${metric(data, 'warmup_failed', 'count') || 0} `
    + `conversion_share=${CONVERSION_SHARE} conversion_completed=${conversions} conversion_failed=${metric(data, 'conversion_failed', 'count') || 0} `
    + `conversion_e2e_p95=${metric(data, 'conversion_e2e_time', 'p(95)')}ms `
    + `rtp_share=${RTP_SHARE} rtp_otp_share=${RTP_OTP_SHARE} rtp_completed=${requestsToPay} rtp_failed=${metric(data, 'rtp_failed', 'count') || 0} `
    + `warmup_rtp_completed=${metric(data, 'warmup_rtp_completed', 'count') || 0} `
    + `rtp_e2e_p95=${metric(data, 'rtp_e2e_time', 'p(95)')}ms iso20022_share=${ISO20022_SHARE}\n`;
  const out = { stdout: line };
  if (__ENV.SUMMARY_PATH) out[__ENV.SUMMARY_PATH] = JSON.stringify(data, null, 2);
  return out;
}
