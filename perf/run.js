// One performance run end to end: provision (perf/provision.js) → FSP simulators
// (perf/simulators, several processes) → k6 (perf/k6/transfers.js; its samples as CSV on its
// standard output, of which only the few metrics the report charts are kept, in k6.csv) →
// the validity gate (perf/gate.js) → the report (perf/report.js: summary.md, chart.svg and
// dashboard.html) and each service's /metrics, all in perf/results/<run>/. While k6 runs,
// CPU (every 2 s) and RSS (every 10 s) of every component are sampled from /proc. Against
// the switch `make up` runs:
//   node perf/run.js --profile load --tps 45 --transfers 5400 [--mode full|quote-transfer|transfer]
//     [--jws-alg ES256|RS256|none] [--dashboard] [--conversion-share 0.2] [--rtp-share 0.1 [--rtp-otp-share 0.5]] [--iso20022-share 0.5]
// (--skip-discovery-quote is --mode transfer; --jws-alg none is SIM_JWS_SIGN=false, for a
// switch with JWS_VERIFICATION=off; --dashboard turns k6's live web dashboard on, which costs
// k6 about a third more CPU; --conversion-share provisions currency conversion, an FXP and
// EUR payees, and makes that share of the payments cross-currency, USD → EUR, the gate
// counting them with the rest; --rtp-share makes that share of the payments merchant-initiated
// (request to pay, perf/simulators/request-to-pay.js), --rtp-otp-share of them approved by OTP,
// half by default; not in mode transfer, which runs no quoting service; --iso20022-share
// registers that share of the DFSPs as ISO 20022 DFSPs, which the simulators make speak ISO
// 20022 (perf/simulators/iso-dfsp.js), so the payments mix the four type pairs; conversions and
// requests to pay stay between FSPIOP DFSPs.)
// A bulk run (perf/k6/bulk.js: bulk quote and bulk transfer of --bulk-size items, --bulk-rate
// bulks a second; --fresh starts the bulk handler with the switch):
//   node perf/run.js --fresh --profile bulk --bulks 100 --bulk-size 100 --bulk-rate 2
// The smoke test (test/integration/perf-smoke.test.js) calls runPerf with its own switch.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  closeSync, constants, createReadStream, createWriteStream, mkdirSync, openSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fetch } from 'undici';
import { dfspNames, isoDfspNames, provision, SOURCE_CURRENCY, TARGET_CURRENCY } from './provision.js';
import { readCompactHosts, readServices } from '../scripts/lib/services-conf.js';
import { startSettlementSchedule } from './settlement-schedule.js';
import { printGate, runGate, topicHighWaterMarks, waitForFinality } from './gate.js';
import { failedIterations, paidIterations, requestToPayIterations, writeReport } from './report.js';
import { freePortRange } from '../scripts/lib/ports.js';
import { operatorTokensFromEnv } from '../scripts/lib/operator-auth.js';
import { tlsDispatcher } from '../scripts/lib/fspiop-headers.js';
import { FSPIOP_EDGES } from '../scripts/lib/scheme-certs.js';

const ROOT = new URL('..', import.meta.url).pathname;
// Notification-topic messages per transfer prepare, by mode (the gate's expected multiple):
// a transfer makes 2 (prepare to the payee, commit to the payer), a quote 2. A lookup makes
// none: account-lookup sends the GET to the payee and the PUT back to the payer itself.
export const NOTIFICATION_RATIO = Object.freeze({ transfer: 2, 'quote-transfer': 4, full: 4 });
export const MODES = Object.keys(NOTIFICATION_RATIO);
// A conversion payment makes two prepare-topic records (its fx transfer and its payment) and,
// by mode, these notification-topic messages: its fx transfer 2 (the prepare to the FXP, the
// FXP's reservation to the payer), its payment 2 and the PATCH COMMITTED to the FXP; through
// the quoting service (modes full and quote-transfer) also its fx quote's 2 and its quote's 2;
// and in mode full the hub's answer to its FXP discovery (account-lookup produces the
// /services answers to the notification topic, unlike its /parties calls).
export const CONVERSION_PREPARES = 2;
export const CONVERSION_NOTIFICATIONS = Object.freeze({ transfer: 5, 'quote-transfer': 9, full: 10 });

/** The gate's expected notification messages per prepare-topic record, `conversions` of the `payments` being conversion payments. */
export function notificationRatio(mode, payments, conversions) {
  const plain = Math.max(0, payments - conversions);
  const prepares = plain + CONVERSION_PREPARES * conversions;
  if (conversions === 0 || prepares === 0) return NOTIFICATION_RATIO[mode];
  return (NOTIFICATION_RATIO[mode] * plain + CONVERSION_NOTIFICATIONS[mode] * conversions) / prepares;
}

// A request to pay adds to its payment's notification-topic messages: the transaction request
// forwarded to the payer's DFSP, its RECEIVED forwarded to the merchant, and the PATCH telling
// the merchant its transfer committed (the merchant answered RESERVED); one approved by OTP
// also the authorization's ask and answer. Its payment is one prepare, as a plain one.
export const REQUEST_TO_PAY_NOTIFICATIONS = 3;
export const OTP_NOTIFICATIONS = 2;

/** notificationRatio with `requestsToPay` of the payments merchant-initiated, `withOtp` of those approved by OTP. */
export function requestToPayNotificationRatio(mode, payments, conversions, { requestsToPay = 0, withOtp = 0 } = {}) {
  const ratio = notificationRatio(mode, payments, conversions);
  const prepares = payments + (CONVERSION_PREPARES - 1) * conversions;
  if (prepares <= 0) return ratio;
  return ratio + (REQUEST_TO_PAY_NOTIFICATIONS * requestsToPay + OTP_NOTIFICATIONS * withOtp) / prepares;
}

/**
 * Why the run's shares cannot be run, or null: a share is between 0 and 1, together at most 1,
 * request to pay needs quoting, and conversions (an FSPIOP payer) and requests to pay (two
 * FSPIOP DFSPs) need the FSPIOP DFSPs an ISO 20022 share leaves.
 */
export function sharesFailure({ mode, conversionShare = 0, rtpShare = 0, rtpOtpShare = 0, iso20022Share = 0, dfsps = 4 }) {
  if (!(iso20022Share >= 0 && iso20022Share <= 1)) return `iso20022Share must be between 0 and 1, got ${iso20022Share}`;
  const fspiopDfsps = dfsps - isoDfspNames(dfspNames(dfsps), iso20022Share).length;
  if (conversionShare > 0 && fspiopDfsps < 1) return 'conversion payments need an FSPIOP payer: lower iso20022Share';
  if (rtpShare > 0 && fspiopDfsps < 2) return 'requests to pay need two FSPIOP DFSPs: lower iso20022Share';
  if (!(conversionShare >= 0 && conversionShare <= 1)) return `conversionShare must be between 0 and 1, got ${conversionShare}`;
  if (!(rtpShare >= 0 && rtpShare <= 1) || !(rtpOtpShare >= 0 && rtpOtpShare <= 1)) return `rtpShare and rtpOtpShare must be between 0 and 1, got ${rtpShare} and ${rtpOtpShare}`;
  if (conversionShare + rtpShare > 1) return `conversionShare and rtpShare are shares of the same payments: together at most 1, got ${conversionShare + rtpShare}`;
  if (rtpShare > 0 && mode === 'transfer') return 'requests to pay go through the quoting service, which mode transfer does not run';
  return null;
}

export const PROFILES = Object.freeze({
  smoke: { tps: 10, transfers: 250, dfsps: 4, msisdns: 1000, simWorkers: 2, expirationMs: 30_000, callbackWaitMs: 15_000 },
  // A load run first ramps up for warmupSeconds (perf/k6/transfers.js): its payments are gated
  // but not in the figures, which describe the sustained rate.
  load: { tps: 45, transfers: 5_400, dfsps: 4, msisdns: 10_000, simWorkers: 2, expirationMs: 60_000, callbackWaitMs: 30_000, warmupSeconds: 15 },
  // k6.csv keeps two short lines per iteration (about 125 MB for a million); the report
  // reads it window by window.
  // The soak settles every five minutes (perf/settlement-schedule.js), as a scheme does, so
  // the DFSPs' caps cover five minutes of payments rather than the whole run.
  // A bulk run (perf/k6/bulk.js): `bulks` bulk payments of `bulkSize` items each, `bulkRate` bulks
  // a second, through the bulk quote and the bulk transfer (no discovery: a bulk names its payee
  // DFSP). Its transfers and rate are counted in items (bulkRunSettings).
  bulk: {
    bulks: 100, bulkSize: 100, bulkRate: 2, dfsps: 4, msisdns: 1000, simWorkers: 2, expirationMs: 60_000, callbackWaitMs: 30_000,
    mode: 'quote-transfer', k6Script: 'perf/k6/bulk.js',
  },
  soak: { tps: 125, transfers: 1_000_000, dfsps: 4, msisdns: 250_000, simWorkers: 2, expirationMs: 60_000, callbackWaitMs: 30_000, settleEverySeconds: 300, warmupSeconds: 15 },
});

/**
 * A bulk run's settings in items, as the report, provisioning and the gate count a run: its
 * transfers are every bulk's items, its rate the items a second its bulks carry.
 */
export function bulkRunSettings(settings) {
  if (!settings.k6Script?.endsWith('bulk.js')) return settings;
  return { ...settings, transfers: settings.bulks * settings.bulkSize, tps: settings.bulkRate * settings.bulkSize };
}

// Notification-topic messages per bulk (one prepare-topic record): its bulk transfer's 2 (the
// forward to the payee, the aggregated answer to the payer; the items' outcomes are the bulk
// handler's, not callbacks) and, through the quoting service, its bulk quote's 2.
export const BULK_NOTIFICATION_RATIO = Object.freeze({ transfer: 2, 'quote-transfer': 4, full: 4 });

/**
 * What the gate counts of a run's k6 summary: the committed transfers, the failures, the
 * requests to pay (`requestsToPay`: what the merchants counted, for the notification ratio) and,
 * for a bulk run, the bulks completed and its notification ratio.
 */
function gateCounts(summary, settings, conversionsCompleted, requestsToPay) {
  const completed = paidIterations(summary);
  if (!settings.k6Script?.endsWith('bulk.js')) {
    return {
      completed, failed: failedIterations(summary), requestsToPay: requestToPayIterations(summary),
      expectedNotificationRatio: requestToPayNotificationRatio(settings.mode, completed, conversionsCompleted, requestsToPay),
    };
  }
  const count = (name) => summary.metrics[name]?.values.count ?? 0;
  // A failed bulk made at most its bulk quote's notifications without a prepare: counted per bulk.
  return { completed, failed: count('bulk_failed'), bulksCompleted: count('bulk_completed'), expectedNotificationRatio: BULK_NOTIFICATION_RATIO[settings.mode] };
}

// ES256 signs in a tenth of RS256's time (DESIGN.md); RS256 is what Mojaloop's SDKs sign with.
// 'none' sends nothing signed, for a switch with JWS_VERIFICATION=off.
/** The most payments a warm-up ramping from 1/s to the target rate can start, with a second to spare. */
const warmupTransfersMax = ({ tps, warmupSeconds = 0 }) => (warmupSeconds > 0 ? Math.ceil(((tps + 1) / 2) * warmupSeconds) + tps : 0);

export const JWS_ALGS = Object.freeze(['ES256', 'RS256', 'none']);

// CPU accounting: CPU seconds each component's processes (with their children) used between
// two samples of /proc/<pid>/stat, as a percentage of one core.

const TICKS_PER_SECOND = 100;

function statOf(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // Fields 4, 14, 15 and 24 of proc(5): ppid, utime, stime and rss (in pages).
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), rssPages: Number(fields[21]) };
  } catch {
    return undefined;
  }
}

function allStats() {
  const stats = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(entry);
    if (stat) stats.set(Number(entry), stat);
  }
  return stats;
}

/** The processes whose command line contains `text` (for MariaDB and Kafka). */
export function pidsMatching(text) {
  const pids = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(text)) pids.push(Number(entry));
    } catch { /* gone */ }
  }
  return pids;
}

const PAGE_BYTES = 4096;

/**
 * `{ at, ticks: { component: { pid: ticks } }, rssBytes: { component: bytes } }` for
 * `{ component: [pid, ...] }`, each pid with its descendants. Ticks are kept per PID because
 * a process restarted during a run (a fault, a Kafka restart) has a new PID whose counter
 * starts again from zero.
 */
export function sampleCpu(components) {
  const stats = allStats();
  const children = new Map();
  for (const [pid, { ppid }] of stats) {
    if (!children.has(ppid)) children.set(ppid, []);
    children.get(ppid).push(pid);
  }
  const treeSum = (pid, field) => (stats.get(pid)?.[field] ?? 0) + (children.get(pid) ?? []).reduce((sum, child) => sum + treeSum(child, field), 0);
  const live = (pids) => pids.filter((pid) => stats.has(pid));
  const entries = Object.entries(components);
  return {
    at: Date.now(),
    ticks: Object.fromEntries(entries.map(([name, pids]) => [name, Object.fromEntries(live(pids).map((pid) => [pid, treeSum(pid, 'ticks')]))])),
    rssBytes: Object.fromEntries(entries.map(([name, pids]) => [name, live(pids).reduce((sum, pid) => sum + treeSum(pid, 'rssPages') * PAGE_BYTES, 0)])),
  };
}

/**
 * `{ component: CPU seconds }` between two samples: per PID, the ticks since the first
 * sample that saw it (a PID born after `before` counts from zero), so a replaced process
 * never makes the difference negative.
 */
export function cpuSeconds(before, after) {
  return Object.fromEntries(Object.entries(after.ticks).map(([name, byPid]) => {
    const used = Object.entries(byPid).reduce((sum, [pid, ticks]) => sum + Math.max(0, ticks - (before.ticks[name]?.[pid] ?? 0)), 0);
    return [name, used / TICKS_PER_SECOND];
  }));
}

/** `{ component: 'percent of one core' }` between two samples (cpuSeconds over the time between them). */
export function cpuPercent(before, after) {
  const seconds = (after.at - before.at) / 1000;
  return Object.fromEntries(Object.entries(cpuSeconds(before, after)).map(([name, used]) => [name, Math.round((used / seconds) * 100)]));
}

/**
 * Samples CPU every `intervalMs` and RSS every `rssIntervalMs` while a run lasts. CPU keeps,
 * per PID, the last ticks seen: a process killed during the run still counts for what it
 * used until its last sample. `stop()` gives `{ cpu: percent, cpuSeconds, seconds, rss:
 * [{ at, bytes: { component: bytes } }] }`.
 */
export function trackResources(processes, { intervalMs = 2000, rssIntervalMs = 10_000 } = {}) {
  const first = sampleCpu(processes());
  const last = { at: first.at, ticks: structuredClone(first.ticks) };
  const rss = [{ at: first.at, bytes: first.rssBytes }];
  const sample = () => {
    const now = sampleCpu(processes());
    last.at = now.at;
    for (const [name, byPid] of Object.entries(now.ticks)) last.ticks[name] = { ...last.ticks[name], ...byPid };
    if (now.at - rss.at(-1).at >= rssIntervalMs - intervalMs / 2) rss.push({ at: now.at, bytes: now.rssBytes });
  };
  const timer = setInterval(sample, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { cpu: cpuPercent(first, last), cpuSeconds: cpuSeconds(first, last), seconds: (last.at - first.at) / 1000, rss };
    },
  };
}

/** The CPU of run.js's children that have ended and been waited for (cutime + cstime, proc(5)), in ticks. */
function endedChildrenTicks() {
  const text = readFileSync('/proc/self/stat', 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]);
}

async function waitHealthy(url, child, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`simulators exited: ${child.output}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch { /* not yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} not healthy`);
}

async function startSimulators(env, workers) {
  // SIM_NODE_ARGS: extra node flags for the simulators (their workers inherit them), e.g.
  // "--cpu-prof --cpu-prof-dir=/tmp/prof", as SERVICE_NODE_ARGS is for the services.
  const nodeArgs = (process.env.SIM_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, 'perf/simulators/main.js'], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.simPort = Number(env.SIM_PORT);
  child.output = '';
  child.stdout.on('data', (chunk) => { child.output = (child.output + chunk).slice(-5000); });
  child.stderr.on('data', (chunk) => { child.output = (child.output + chunk).slice(-5000); });
  for (let index = 0; index < workers; index += 1) await waitHealthy(`http://127.0.0.1:${Number(env.BRIDGE_PORT) + index}/health`, child);
  child.stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  };
  return child;
}

// The k6 metrics the report needs. k6 writes every sample as CSV into a named pipe (about 45
// lines and 5 KB an iteration, most of them HTTP timings with their URL); run.js keeps only
// these metrics' lines, in k6.csv, as they arrive, so a million-iteration soak leaves a file of
// about 125 MB instead of 5 GB, and k6 neither compresses nor writes to disk.
export const KEPT_METRICS = Object.freeze(['e2e_time', 'completed_transactions', 'failed_transactions', 'dropped_iterations']);
const KEPT = new Set(KEPT_METRICS);

/**
 * A line splitter over k6's CSV: the header and the lines of KEPT_METRICS go to `keep`, other
 * metric lines are dropped, anything else goes to `other`.
 */
export function k6OutputFilter(keep, other) {
  let rest = '';
  const line = (text) => {
    if (text.startsWith('metric_name,')) return keep(text);
    const comma = text.indexOf(',');
    const name = comma > 0 ? text.slice(0, comma) : '';
    if (KEPT.has(name)) keep(text);
    else if (!/^[a-z0-9_]+$/.test(name) && text.trim()) other(text);
  };
  return {
    push(chunk) {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop();
      for (const text of lines) line(text);
    },
    end() { if (rest) line(rest); rest = ''; },
  };
}

/**
 * Runs k6 and returns `{ cpuSeconds, percent, outputPath }`. k6's CPU is exact: what run.js's
 * ended children used (cutime) grows by k6's total when it is waited for. `dashboard` adds
 * k6's live web dashboard (exported to k6-dashboard.html), which costs k6 CPU all run long.
 */
async function runK6(dir, env, log, { dashboard = false, onStart, script = 'perf/k6/transfers.js' } = {}) {
  const k6 = process.env.K6_BIN ?? `${ROOT}.tools/bin/k6`;
  const fifo = `${dir}/k6.fifo`;
  rmSync(fifo, { force: true });
  execFileSync('mkfifo', [fifo]);
  const args = ['run', '--quiet', '--no-usage-report', '--out', `csv=${fifo}`, script];
  const dashboardEnv = dashboard
    ? { K6_WEB_DASHBOARD: 'true', K6_WEB_DASHBOARD_EXPORT: `${dir}/k6-dashboard.html`, K6_WEB_DASHBOARD_PORT: String(await freePortRange(1)) }
    : { K6_WEB_DASHBOARD: 'false' };
  const outputPath = `${dir}/k6.csv`;
  const csv = createWriteStream(outputPath);
  const ticksBefore = endedChildrenTicks();
  const started = Date.now();
  const child = spawn(k6, args, {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, ...dashboardEnv, SUMMARY_PATH: `${dir}/summary.json` },
  });
  onStart?.(child.pid);
  let output = '';
  const samples = createReadStream(fifo, { encoding: 'utf8', highWaterMark: 256 * 1024 });
  const filter = k6OutputFilter((line) => csv.write(`${line}\n`), (line) => log(line));
  samples.on('data', (chunk) => filter.push(chunk));
  const samplesEnded = once(samples, 'close');
  child.stdout.on('data', (chunk) => { output += chunk; log(String(chunk).trimEnd()); });
  child.stderr.on('data', (chunk) => { output = (output + chunk).slice(-20000); });
  const [code] = await once(child, 'exit');
  // A k6 that never opened the pipe leaves its reader waiting for a writer: one that opens and
  // closes it ends the read.
  if (samples.pending) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch { /* the reader opened meanwhile: it ends with k6 */ }
  }
  await samplesEnded;
  rmSync(fifo, { force: true });
  filter.end();
  csv.end();
  await once(csv, 'finish');
  const cpuSeconds = (endedChildrenTicks() - ticksBefore) / TICKS_PER_SECOND;
  writeFileSync(`${dir}/k6.log`, output);
  // 99: thresholds crossed, which the gate and the report show; anything else is a failure.
  if (code !== 0 && code !== 99) throw new Error(`k6 exited with ${code}: ${output.slice(-3000)}`);
  return { cpuSeconds, percent: Math.round((cpuSeconds / ((Date.now() - started) / 1000)) * 100), outputPath };
}

/** Each service's /metrics; an edge that serves HTTPS is trusted by the scheme's CA in `tlsDir` (no client certificate needed). */
async function collectMetrics(dir, metricsUrls, tlsDir) {
  const dispatcher = tlsDir ? tlsDispatcher({ ca: readFileSync(join(tlsDir, 'ca.crt'), 'utf8') }) : undefined;
  for (const [name, url] of Object.entries(metricsUrls)) {
    try {
      writeFileSync(`${dir}/metrics-${name}.txt`, await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000), dispatcher })).text());
    } catch (error) {
      writeFileSync(`${dir}/metrics-${name}.txt`, `# unavailable: ${error.message}\n`);
    }
  }
}

/** Transfers the database holds as COMMITTED whose payer was told of no success (the gate's first check, by id). */
async function committedButToldOtherwise(db, failedTransfers) {
  if (failedTransfers.length === 0) return [];
  const committed = new Set((await db('transfer').whereIn('transfer_id', failedTransfers.map((failed) => failed.transferId)).where('state', 'COMMITTED')
    .select('transfer_id')).map((row) => row.transfer_id));
  return failedTransfers.filter((failed) => committed.has(failed.transferId));
}

/** The payers' resends and GETs over every bridge process (`/stats`), for the gate's Kafka counts. */
async function bridgeCounters(bridgePort, workers) {
  const totals = {
    resent: 0, asked: 0, failedTransfers: [], conversionsCompleted: 0, fxPatches: {}, requestsToPayCompleted: 0, requestsToPayWithOtpCompleted: 0, isoPayments: {}, isoUnreadable: 0,
  };
  for (let index = 0; index < workers; index += 1) {
    const stats = await (await fetch(`http://127.0.0.1:${bridgePort + index}/stats`, { signal: AbortSignal.timeout(5000) })).json();
    totals.resent += stats.resent ?? 0;
    totals.asked += stats.asked ?? 0;
    totals.failedTransfers.push(...(stats.failedTransfers ?? []));
    totals.conversionsCompleted += stats.conversionsCompleted ?? 0;
    totals.requestsToPayCompleted += stats.requestsToPayCompleted ?? 0;
    totals.requestsToPayWithOtpCompleted += stats.requestsToPayWithOtpCompleted ?? 0;
    for (const [state, count] of Object.entries(stats.fxPatches ?? {})) totals.fxPatches[state] = (totals.fxPatches[state] ?? 0) + count;
    for (const [typePair, count] of Object.entries(stats.isoPayments ?? {})) totals.isoPayments[typePair] = (totals.isoPayments[typePair] ?? 0) + count;
    totals.isoUnreadable += stats.isoUnreadable ?? 0;
  }
  return totals;
}

export function runName(profile, tps) {
  return `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}-${profile}-${tps}tps`;
}

/** Simulator, k6 and gate settings of a run, as environment variables. */
function runEnv({ target, settings, runTag, simPort, bridgePort, pairs, payerWorkers, keysDirectory, conversionPairs, dfspCurrencies, isoDfsps }) {
  return {
    SIM_PORT: String(simPort), BRIDGE_PORT: String(bridgePort), SIM_WORKERS: String(settings.simWorkers), BRIDGE_WORKERS: String(settings.simWorkers),
    PAYER_WORKERS_JSON: JSON.stringify(payerWorkers), DFSP_JWS_KEYS_DIR: keysDirectory, SIM_JWS_SIGN: String(settings.jwsAlg !== 'none'),
    SCHEME_TLS_DIR: target.tlsDir ?? '',
    ALS_URL: target.alsUrl, QUOTING_URL: target.quotingUrl, TRANSFERS_URL: target.transfersUrl, RUN_TAG: runTag,
    CALLBACK_WAIT_MS: String(settings.callbackWaitMs), TRANSFER_EXPIRATION_MS: String(settings.expirationMs),
    SIM_MODE: settings.mode,
    TPS: String(settings.tps), TRANSFERS: String(settings.transfers), WARMUP_SECONDS: String(settings.warmupSeconds ?? 0), PROFILE: settings.profile, PAIRS_JSON: JSON.stringify(pairs), AMOUNT: '1', CURRENCY: 'USD',
    CONVERSION_SHARE: String(settings.conversionShare), RTP_SHARE: String(settings.rtpShare), RTP_OTP_SHARE: String(settings.rtpOtpShare), CONVERSION_PAIRS_JSON: JSON.stringify(conversionPairs), SIM_DFSP_CURRENCIES_JSON: JSON.stringify(dfspCurrencies),
    ISO20022_SHARE: String(settings.iso20022Share), SIM_ISO20022_DFSPS_JSON: JSON.stringify(isoDfsps),
    ...(settings.bulks ? { BULKS: String(settings.bulks), BULK_SIZE: String(settings.bulkSize), BULK_RATE: String(settings.bulkRate) } : {}),
  };
}

/**
 * Runs k6 against the started simulators with CPU and Kafka samples around it. `during`
 * (the fault campaign, perf/chaos.js) runs beside k6 from its start; it is awaited too.
 */
async function measure({ target, dir, env, log, dashboard, during, script }) {
  let k6Pid;
  const processes = () => ({ ...target.processes(), simulators: [target.simulatorPid], ...(k6Pid ? { k6: [k6Pid] } : {}) });
  const marksBefore = await topicHighWaterMarks(target.kafka);
  const tracker = trackResources(processes);
  const ownCpuBefore = process.cpuUsage();
  const startedAt = Date.now();
  const [k6, faults] = await Promise.all([runK6(dir, env, log, { dashboard, script, onStart: (pid) => { k6Pid = pid; } }), during?.({ startedAt, env })]);
  const resources = tracker.stop();
  // run.js itself (k6's samples filtered from the pipe, /proc sampled) is part of the harness's cost.
  const ownCpu = process.cpuUsage(ownCpuBefore);
  resources.cpuSeconds['run.js'] = (ownCpu.user + ownCpu.system) / 1e6;
  resources.cpu['run.js'] = Math.round((resources.cpuSeconds['run.js'] / ((Date.now() - startedAt) / 1000)) * 100);
  // A fault campaign's scripts are run.js's children too (their CPU would join k6's count):
  // there the sampled figure stands.
  if (!during) {
    resources.cpuSeconds.k6 = k6.cpuSeconds;
    resources.cpu.k6 = k6.percent;
  }
  return { marksBefore, cpu: resources.cpu, resources, startedAt, faults, k6Output: k6.outputPath };
}

/** What the switch's edges ask of DFSP signatures (JWS_VERIFICATION), read from the api-adapter's environment. */
export function jwsVerificationOf(target) {
  // The process that runs the api-adapter: its own, or the compact host it is a member of.
  const hostKey = [...target.members].find(([, members]) => members.includes('api-adapter'))?.[0];
  const pids = target.processes()[hostKey] ?? [];
  try {
    const entry = readFileSync(`/proc/${pids[0]}/environ`, 'utf8').split('\0').find((line) => line.startsWith('JWS_VERIFICATION='));
    return entry ? entry.slice('JWS_VERIFICATION='.length) : 'required';
  } catch {
    return 'unknown';
  }
}

export async function runPerf(target, options, log = (line) => process.stdout.write(`${line}\n`)) {
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const settings = bulkRunSettings({ mode: 'full', jwsAlg: 'ES256', conversionShare: 0, rtpShare: 0, rtpOtpShare: 0.5, iso20022Share: 0, ...PROFILES[options.profile ?? 'smoke'], ...given, profile: options.profile ?? 'smoke' });
  if (!MODES.includes(settings.mode)) throw new Error(`mode must be one of ${MODES.join(', ')}`);
  const sharesProblem = sharesFailure(settings);
  if (sharesProblem) throw new Error(sharesProblem);
  if (process.env.SIM_JWS_SIGN === 'false') settings.jwsAlg = 'none';
  if (!JWS_ALGS.includes(settings.jwsAlg)) throw new Error(`jwsAlg must be one of ${JWS_ALGS.join(', ')}`);
  const run = { name: options.name ?? runName(settings.profile, settings.tps), ...settings, jwsVerification: options.jwsVerification ?? jwsVerificationOf(target) };
  const dir = `${ROOT}perf/results/${run.name}`;
  mkdirSync(dir, { recursive: true });
  const runTag = randomBytes(3).toString('hex');
  // Each simulator process has its own callback port (simPort + index) and bridge port.
  const simPort = await freePortRange(settings.simWorkers, options.simPort);
  const bridgePort = await freePortRange(settings.simWorkers, options.bridgePort);
  const settles = Boolean(settings.settleEverySeconds && target.settlementUrl);
  const { pairs, payerWorkers, keysDirectory, conversionPairs, dfspCurrencies, isoDfsps } = await provision({
    adminUrl: target.adminUrl, adminToken: target.adminToken, simBase: `http://127.0.0.1:${simPort}`, simWorkers: settings.simWorkers, dfsps: settings.dfsps,
    msisdns: settings.msisdns, dbEnv: target.dbEnv, loadParties: settings.mode === 'full',
    // Caps and cover for the payments between two settlements (three intervals' worth), or for
    // the whole run. The schedule settles every currency of the run (USD, and EUR with conversions).
    transfers: settles ? settings.tps * settings.settleEverySeconds * 3 : settings.transfers + warmupTransfersMax(settings),
    // Unsigned runs keep ES256 keys registered: the switch's verification is off for them.
    jwsAlg: settings.jwsAlg === 'none' ? 'ES256' : settings.jwsAlg, tlsDir: target.tlsDir, conversion: settings.conversionShare > 0,
    iso20022Share: settings.iso20022Share, log,
  });
  run.isoDfsps = isoDfsps;
  const env = runEnv({ target, settings, runTag, simPort, bridgePort, pairs, payerWorkers, keysDirectory, conversionPairs, dfspCurrencies, isoDfsps });
  const simulators = await startSimulators(env, settings.simWorkers);
  target.simulatorPid = simulators.pid;
  let measured;
  let payerRetries;
  const schedule = settles ? startSettlementSchedule({
    settlementUrl: target.settlementUrl, adminUrl: target.adminUrl, token: target.adminToken ?? operatorTokensFromEnv().readWrite,
    currencies: settings.conversionShare > 0 ? [SOURCE_CURRENCY, TARGET_CURRENCY] : [SOURCE_CURRENCY],
    everySeconds: settings.settleEverySeconds, log,
  }) : undefined;
  if (settings.settleEverySeconds && !settles) log('this switch runs no settlement API: the run is not settled on a schedule');
  try {
    measured = await measure({ target, dir, env, log, dashboard: Boolean(settings.dashboard), during: options.during, script: settings.k6Script });
    payerRetries = await bridgeCounters(bridgePort, settings.simWorkers);
  } finally {
    await simulators.stop();
  }
  await collectMetrics(dir, target.metricsUrls, target.tlsDir);
  // Transfers still in flight when k6 stopped finish, or expire (timeout handler), first.
  const open = await waitForFinality(target.db, runTag, settings.expirationMs + 15_000);
  if (open > 0) log(`${open} transfers of the run are still not final`);
  const settled = await schedule?.stop();
  if (settled) log(`settled on schedule: ${settled.settlements} settlements over ${settled.windows} windows, ${settled.failures.length} failures`);
  const summary = JSON.parse(readFileSync(`${dir}/summary.json`, 'utf8'));
  // The gate accounts for every payment of the run, the warm-up's and the conversion
  // payments included (each is one committed payment; its conversion is a record of its own,
  // `conversionsCompleted` of them, the warm-up's included, as the payers counted them).
  const conversionsCompleted = payerRetries?.conversionsCompleted ?? 0;
  const requestsToPay = { requestsToPay: payerRetries?.requestsToPayCompleted ?? 0, withOtp: payerRetries?.requestsToPayWithOtpCompleted ?? 0 };
  const gate = await runGate({
    db: target.db, runTag, ...gateCounts(summary, settings, conversionsCompleted, requestsToPay), marksBefore: measured.marksBefore, marksAfter: await topicHighWaterMarks(target.kafka),
    payerRetries, duplicatesAllowed: Boolean(options.during), settled, conversionsCompleted, isoDfsps, isoPayments: payerRetries?.isoPayments,
  });
  printGate(gate, log);
  const toldOtherwise = await committedButToldOtherwise(target.db, payerRetries?.failedTransfers ?? []);
  for (const { transferId, at, outcome } of toldOtherwise) log(`  COMMITTED ${transferId}, but its payer was told ${outcome} at ${at}`);
  const marks = measured.faults?.marks ?? [];
  const meta = { run: { ...run, during: undefined }, runTag, gate, settled, toldOtherwise, cpu: measured.cpu, resources: measured.resources, startedAt: measured.startedAt, marks };
  writeFileSync(`${dir}/run.json`, JSON.stringify(meta, null, 2));
  const markdown = await writeReport(dir, { ...meta, run });
  log(markdown);
  return {
    dir, run, runTag, gate, summary, payerRetries, simPort, toldOtherwise, cpu: measured.cpu, resources: measured.resources, startedAt: measured.startedAt, faults: measured.faults, k6Output: measured.k6Output,
  };
}

async function main() {
  const { values } = parseArgs({ options: {
    profile: { type: 'string', default: 'load' }, tps: { type: 'string' }, transfers: { type: 'string' }, dfsps: { type: 'string' },
    'sim-workers': { type: 'string' }, mode: { type: 'string' }, fresh: { type: 'boolean', default: false }, 'skip-discovery-quote': { type: 'boolean', default: false }, name: { type: 'string' },
    'jws-alg': { type: 'string' }, dashboard: { type: 'boolean', default: false }, 'settle-every': { type: 'string' },
    warmup: { type: 'string' }, 'conversion-share': { type: 'string' }, 'rtp-share': { type: 'string' }, 'rtp-otp-share': { type: 'string' }, 'iso20022-share': { type: 'string' },
    bulks: { type: 'string' }, 'bulk-size': { type: 'string' }, 'bulk-rate': { type: 'string' }, 'switch-profile': { type: 'string', default: 'separate' },
  } });
  const overrides = Object.fromEntries(Object.entries({
    profile: values.profile, tps: values.tps && Number(values.tps), transfers: values.transfers && Number(values.transfers), dfsps: values.dfsps && Number(values.dfsps),
    simWorkers: values['sim-workers'] && Number(values['sim-workers']), mode: values['skip-discovery-quote'] ? 'transfer' : values.mode, name: values.name,
    jwsAlg: values['jws-alg'], dashboard: values.dashboard || undefined, settleEverySeconds: values['settle-every'] && Number(values['settle-every']),
    warmupSeconds: values.warmup && Number(values.warmup), conversionShare: values['conversion-share'] && Number(values['conversion-share']),
    rtpShare: values['rtp-share'] && Number(values['rtp-share']), rtpOtpShare: values['rtp-otp-share'] && Number(values['rtp-otp-share']),
    iso20022Share: values['iso20022-share'] && Number(values['iso20022-share']),
    ...bulkOverrides(values),
  }).filter(([, value]) => value !== undefined && value !== ''));
  // --fresh: a switch of the run's own instead of the one `make up` runs.
  const mode = overrides.mode ?? PROFILES[overrides.profile]?.mode ?? 'full';
  const target = values.fresh
    ? await freshTarget(mode, { components: PROFILES[overrides.profile]?.bulks ? ['bulk'] : [], profile: values['switch-profile'] })
    : await localTarget();
  try {
    const result = await runPerf(target, { simPort: 7000, bridgePort: 7100, ...overrides });
    process.exitCode = result.gate.pass ? 0 : 1;
  } finally {
    await target.close();
  }
}

/** --bulks, --bulk-size and --bulk-rate (a bulk run's numbers, perf/k6/bulk.js). */
function bulkOverrides(values) {
  return { bulks: values.bulks && Number(values.bulks), bulkSize: values['bulk-size'] && Number(values['bulk-size']), bulkRate: values['bulk-rate'] && Number(values['bulk-rate']) };
}

/**
 * The switch `make up` runs, in whichever profile (`profile`: compact when its hosts run): its ports (scripts/services.conf, SERVICE_PORT_OFFSET above them),
 * PIDs from $RUN_DIR/pids; its edges over HTTPS with the DFSPs' client certificates from
 * SCHEME_TLS_DIR when scripts/env.sh set TLS_CERT_PATH (CLIENT_IDENTITY=certificate).
 */
export async function localTarget() {
  const { loadConfig } = await import('../platform/config.js');
  const { createDatabase } = await import('../platform/db.js');
  const config = loadConfig({ SERVICE_NAME: 'perf-run', ...process.env });
  const db = createDatabase(config.db);
  const offset = Number(process.env.SERVICE_PORT_OFFSET ?? 0);
  const runDir = process.env.RUN_DIR ?? `${ROOT}.run`;
  const tlsDir = process.env.TLS_CERT_PATH ? process.env.SCHEME_TLS_DIR ?? `${runDir}/tls` : undefined;
  const services = readServices().map(({ name, port }) => ({ name, port: port + offset }));
  const pidsOf = (name) => readdirSync(`${runDir}/pids`).filter((file) => file.startsWith(`${name}-`) && /^\d+\.pid$/.test(file.slice(name.length + 1)))
    .map((file) => Number(readFileSync(`${runDir}/pids/${file}`, 'utf8').trim()));
  const urlOf = (name, port) => `${tlsDir && FSPIOP_EDGES.includes(name) ? 'https' : 'http'}://127.0.0.1:${port}`;
  const portOf = (name) => services.find((service) => service.name === name).port;
  // Whichever profile `make up` started: a component runs as a process of its own or in a
  // compact host, whose replicas give each member the same port offsets.
  const hosts = readCompactHosts();
  const processNames = [...services.map(({ name }) => name), ...hosts.keys()].filter((name) => pidsOf(name).length > 0);
  const profile = [...hosts.keys()].some((host) => processNames.includes(host)) ? 'compact' : 'separate';
  const hostOf = (component) => [...hosts].find(([, members]) => members.includes(component))?.[0];
  const replicasOf = (component) => pidsOf(component).length || (hostOf(component) ? pidsOf(hostOf(component)).length : 0);
  const metricsUrls = {};
  for (const { name, port } of services) for (let index = 0; index < replicasOf(name); index += 1) metricsUrls[`${name}-${index}`] = urlOf(name, port + index);
  const target = {
    // Keyed as processes() is: by process name, one entry for all of its replicas.
    members: new Map(processNames.map((name) => [name, hosts.get(name) ?? [name]])),
    adminUrl: urlOf('admin-api', portOf('admin-api')), settlementUrl: `${urlOf('settlement-api', portOf('settlement-api'))}/v2`,
    alsUrl: urlOf('account-lookup', portOf('account-lookup')), quotingUrl: urlOf('quoting', portOf('quoting')), transfersUrl: urlOf('api-adapter', portOf('api-adapter')),
    db, dbEnv: {}, kafka: { brokers: config.kafka.brokers, prefix: config.kafka.topicPrefix ?? '' }, metricsUrls, tlsDir, profile,
    processes: () => ({
      ...Object.fromEntries(processNames.map((name) => [name, pidsOf(name)])),
      mariadb: pidsMatching(`${runDir}/mariadb/data`), kafka: pidsMatching(`${runDir}/kafka/`),
    }),
    close: () => db.destroy(),
  };
  return target;
}

export const MODE_COMPONENTS = Object.freeze({
  transfer: ['api-adapter', 'prepare', 'position', 'fulfil', 'notification', 'timeout'],
  'quote-transfer': ['api-adapter', 'prepare', 'position', 'fulfil', 'notification', 'timeout', 'quoting', 'quoting-handler'],
  full: ['api-adapter', 'prepare', 'position', 'fulfil', 'notification', 'timeout', 'quoting', 'quoting-handler', 'account-lookup-admin', 'account-lookup'],
});

/**
 * A switch of the run's own (test/support/switch.js: fresh database and topic prefix, every
 * component a child process) with what the mode needs, and `components` beside them (a bulk
 * run's bulk handler): repeatable numbers, nothing left from earlier runs. With `profile:
 * 'compact'` they run as the compact profile runs them (scripts/services-compact.conf): each
 * host whole, one process for all its components (bar the admin API, which the harness serves
 * itself), `replicas` by host name. `members` maps each process (`<name>-<replica>`) to the
 * components it hosts.
 */
export async function freshTarget(mode = 'full', { replicas = {}, env = {}, components = [], profile = 'separate' } = {}) {
  const { startSwitch, COMPONENTS } = await import('../test/support/switch.js');
  const { operatorTokens, testConfig } = await import('../test/support/environment.js');
  const { testSchemeDir } = await import('../test/support/scheme-tls.js');
  const wanted = [...MODE_COMPONENTS[mode], ...components];
  const hosts = profile === 'compact' ? readCompactHosts() : new Map();
  const started = profile === 'compact'
    ? [...hosts.values()].filter((members) => members.some((name) => wanted.includes(name))).flat().filter((name) => COMPONENTS[name])
    : wanted;
  const sw = await startSwitch({ components: started, replicas, env, profile });
  const config = testConfig();
  const urlOf = (key) => sw.urlOf(key.slice(0, key.lastIndexOf('-')), Number(key.slice(key.lastIndexOf('-') + 1)));
  // Metrics and health by component; CPU by process (in the compact profile, by host).
  const processKeys = sw.hostProcesses().map(([key]) => key);
  // MariaDB and Kafka name their data directories by the real path (.run may be a link).
  const runDir = realpathSync(`${ROOT}.run`);
  const members = new Map(processKeys.map((key) => [key, membersOfProcess(key, hosts, sw.ports)]));
  return {
    sw, close: () => sw.stop(), profile, members,
    adminUrl: sw.admin.baseUrl, adminToken: operatorTokens().readWrite, transfersUrl: sw.apiUrl, db: sw.admin.db,
    alsUrl: mode === 'full' ? urlOf('account-lookup-0') : 'http://127.0.0.1:9',
    quotingUrl: mode === 'transfer' ? 'http://127.0.0.1:9' : urlOf('quoting-0'),
    dbEnv: { DB_NAME: sw.admin.databaseName, DB_PASSWORD: config.db.password },
    kafka: { brokers: config.kafka.brokers, prefix: sw.prefix }, tlsDir: sw.secure ? testSchemeDir() : undefined,
    // Each component's own /health and /metrics, wherever it runs.
    metricsUrls: Object.fromEntries([...sw.ports.keys()].map((key) => [key, urlOf(key)])),
    processes: () => ({
      ...Object.fromEntries(processKeys.map((key) => [key, [sw.processes.get(key).pid]])),
      mariadb: pidsMatching(`${runDir}/mariadb/data`), kafka: pidsMatching(`${runDir}/kafka/`),
    }),
  };
}

/**
 * The components process `key` (`<name>-<replica>`) runs: a compact host's members that were
 * started (those with a port for that replica), or the one component it is.
 */
export function membersOfProcess(key, hosts, ports) {
  const name = key.slice(0, key.lastIndexOf('-'));
  const replica = key.slice(key.lastIndexOf('-') + 1);
  if (!hosts.has(name)) return [name];
  return hosts.get(name).filter((member) => ports.has(`${member}-${replica}`));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
