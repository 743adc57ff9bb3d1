// The chart's monitoring, proven against the real processes: every component of the switch
// runs (real Kafka and MariaDB), Debian's prometheus scrapes each of them and Debian's
// mysqld_exporter every second and loads the chart's PrometheusRule as a rule file, the demo
// drives discovery → quote → transfer with its failures through the switch, and then every
// Grafana panel's query, every dashboard variable and every alert expression must return
// data: a renamed metric or label, or a broken query, fails here rather than on a dashboard.
// The demo ends each run by settling its window through the settlement API. Beside it, two
// DFSPs of this test pay in USD (settled deferred net) and in EUR (settled gross: the
// settlement API settles each transfer on its own), and after the first run their window is
// closed and taken into a settlement left pending, so that every settlement panel has data.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump, load } from 'js-yaml';
import { startSwitch } from '../support/switch.js';
import { SETTLEMENT_GAUGES_MAX_AGE_MS } from '../../ledger/settlement-api/metrics.js';
import { operatorTokenEnv, operatorTokens, testConfig } from '../support/environment.js';
import { onboardDfsp } from '../support/admin-api.js';
import { signedFetch } from '../support/jws-keys.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from '../support/test-dfsp.js';
import { adminClient } from '../../scripts/lib/onboarding.js';
import { freePort, freePortRange } from '../../scripts/lib/ports.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const chart = join(root, 'charts', 'fspiop-switch');
const helm = process.env.HELM ?? join(root, '.tools', 'bin', 'helm');
const NAMESPACE = 'fspiop-monitoring-test';
const RATE_INTERVAL = '2m';
const DEMO_RUNS = 2;
const DEMO_TIMEOUT_MS = 120_000;
const SCRAPE_WAIT_MS = 30_000;
const NET_CURRENCY = 'USD'; // the demo's, settled deferred net
const GROSS_CURRENCY = 'EUR';
const NET_AMOUNT = '12.5';
const GROSS_AMOUNT = '7';
const SETTLEMENT_POD = 'settlement-api-0';
const missing = [helm, '/usr/bin/prometheus', '/usr/bin/prometheus-mysqld-exporter'].filter((path) => !existsSync(path));
const skip = missing.length ? `missing ${missing.join(', ')} (run make deps)` : false;

let sw;
let workDir;
let prometheusUrl;
let targetCount;
let settlement; // { url, request, child? }
let testDfsps = [];
let pendingSettlement;
const children = [];

function spawnLogged(command, args, env = process.env) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => { child.output = (child.output + chunk).slice(-20_000); });
  children.push(child);
  return child;
}

async function waitForUrl(url, child, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child?.exitCode !== null && child?.exitCode !== undefined) throw new Error(`${url}: exited ${child.exitCode}\n${child.output}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch { /* not up yet */ }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} not ready\n${child?.output ?? ''}`);
}

/** The chart's PrometheusRule for this namespace, as a Prometheus rule file. */
function renderRuleFile() {
  const rendered = execFileSync(helm, ['template', 'sw', chart, '--namespace', NAMESPACE, '--set', 'db.password=x', '--set', 'clientIdentity.tls.existingSecret=edge-tls',
    '--set', 'metrics.prometheusRule.enabled=true', '--show-only', 'templates/monitoring/prometheusrule.yaml'], { encoding: 'utf8' });
  return { groups: load(rendered).spec.groups };
}

async function startMysqldExporter() {
  const { db } = testConfig();
  const port = await freePort();
  const child = spawnLogged('/usr/bin/prometheus-mysqld-exporter', [`--web.listen-address=127.0.0.1:${port}`], {
    ...process.env, DATA_SOURCE_NAME: `${db.user}:${db.password}@(${db.host}:${db.port})/`,
  });
  await waitForUrl(`http://127.0.0.1:${port}/metrics`, child);
  return `127.0.0.1:${port}`;
}

function scrapeTargets(mysqldExporter) {
  const pods = [...sw.ports].map(([pod, port]) => ({ targets: [`127.0.0.1:${port}`], labels: { namespace: NAMESPACE, pod } }));
  pods.push({ targets: [new URL(sw.admin.baseUrl).host], labels: { namespace: NAMESPACE, pod: 'admin-api-0' } });
  if (settlement.child) pods.push({ targets: [new URL(settlement.url).host], labels: { namespace: NAMESPACE, pod: SETTLEMENT_POD } });
  return [
    { job_name: 'fspiop-switch', scrape_interval: '1s', static_configs: pods },
    { job_name: 'mysqld', scrape_interval: '1s', static_configs: [{ targets: [mysqldExporter] }] },
  ];
}

async function startPrometheus(mysqldExporter) {
  const scrapeConfigs = scrapeTargets(mysqldExporter);
  targetCount = scrapeConfigs.flatMap((job) => job.static_configs).flatMap((group) => group.targets).length;
  writeFileSync(join(workDir, 'rules.yml'), dump(renderRuleFile()));
  writeFileSync(join(workDir, 'prometheus.yml'), dump({
    global: { scrape_interval: '1s', evaluation_interval: '1s' },
    rule_files: [join(workDir, 'rules.yml')],
    scrape_configs: scrapeConfigs,
  }));
  const port = await freePort();
  const child = spawnLogged('/usr/bin/prometheus', [
    `--config.file=${join(workDir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(workDir, 'data')}`,
    `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
  ]);
  prometheusUrl = `http://127.0.0.1:${port}`;
  await waitForUrl(`${prometheusUrl}/-/ready`, child);
}

/**
 * Waits until Prometheus has scraped every target successfully after `sinceMs` and returns
 * how long that took: what the switch counted before that moment is then in the database. Polls Prometheus' own view of
 * its targets rather than sleeping, so a slow machine waits longer and a fast one less.
 */
async function waitForScrapesAfter(sinceMs, timeoutMs = SCRAPE_WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  let behind = [];
  while (Date.now() < deadline) {
    const { activeTargets } = (await (await fetch(`${prometheusUrl}/api/v1/targets?state=active`)).json()).data;
    behind = activeTargets.filter((target) => target.health !== 'up' || Date.parse(target.lastScrape) <= sinceMs)
      .map((target) => `${target.labels.pod ?? target.scrapeUrl}: ${target.health} ${target.lastScrape} ${target.lastError}`);
    if (activeTargets.length === targetCount && behind.length === 0) return Date.now() - sinceMs;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`targets not scraped since ${new Date(sinceMs).toISOString()}:\n${behind.join('\n')}`);
}

/** Waits until every rule group has been evaluated after `sinceMs`, so alert states are current. */
async function waitForRuleEvaluationAfter(sinceMs, timeoutMs = SCRAPE_WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const { groups } = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()).data;
    if (groups.length > 0 && groups.every((group) => Date.parse(group.lastEvaluation) > sinceMs)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`rules not evaluated since ${new Date(sinceMs).toISOString()}`);
}

/** The demo's payments (its successes and failures) against this switch, as a DFSP makes them. */
async function runDemo(simulatorPortBase) {
  const demo = spawnLogged(process.execPath, [join(root, 'scripts', 'demo.js')], {
    ...process.env, ADMIN_API_URL: sw.admin.baseUrl, TRANSFERS_API_URL: sw.apiUrl, QUOTES_API_URL: sw.urlOf('quoting'),
    ACCOUNT_LOOKUP_URL: sw.urlOf('account-lookup'), DEMO_SIMULATOR_PORT_BASE: String(simulatorPortBase), SETTLEMENT_API_URL: `${settlement.url}/v2`,
    // This switch runs without mutual TLS, so its callbacks present no client certificate: the
    // demo's DFSPs serve plain HTTP, not the HTTPS the local runtime's settings would ask for.
    CALLBACK_TLS_CERT_PATH: '',
  });
  // The demo bounds each wait at 20 s; this bounds the whole run, so a hang fails the test.
  const killer = setTimeout(() => demo.kill('SIGKILL'), DEMO_TIMEOUT_MS);
  const [code, signal] = await once(demo, 'exit');
  clearTimeout(killer);
  assert.equal(code, 0, `demo ended with ${code ?? signal}:\n${demo.output}`);
  // A malformed request, so that the 4xx panels have something to show.
  const response = await fetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
  assert.equal(response.status, 400);
}

/**
 * The settlement API on the switch's database: the switch's own when it starts one, else a
 * process of its own here, started as the switch starts its components.
 */
async function startSettlementApi() {
  const tokens = operatorTokens();
  const request = (url) => adminClient(url, { token: tokens.readWrite });
  if (sw.ports.has(SETTLEMENT_POD)) {
    const url = `http://127.0.0.1:${sw.ports.get(SETTLEMENT_POD)}`;
    return { url, request: request(url) };
  }
  const port = await freePort();
  const child = spawnLogged(process.execPath, [join(root, 'ledger', 'settlement-api', 'main.js')], {
    ...process.env, PORT: String(port), SERVICE_NAME: 'settlement-api', LOG_LEVEL: 'warn', DB_PASSWORD: testConfig().db.password,
    DB_NAME: sw.admin.databaseName, ...operatorTokenEnv(),
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForUrl(`${url}/health`, child);
  return { url, request: request(url), child };
}

function expectStatus(result, status, what) {
  assert.equal(result.status, status, `${what}: ${result.status} ${result.text}`);
  return result.body;
}

/** A currency settled gross (continuous gross settlement): the hub's accounts and its model. */
async function setUpGrossCurrency() {
  for (const type of ['HUB_MULTILATERAL_SETTLEMENT', 'HUB_RECONCILIATION']) {
    expectStatus(await sw.admin.request('POST', '/participants/Hub/accounts', { type, currency: GROSS_CURRENCY }), 201, `hub ${type}`);
  }
  expectStatus(await sw.admin.request('POST', '/settlementModels', {
    name: `CGS${GROSS_CURRENCY}`, settlementGranularity: 'GROSS', settlementInterchange: 'BILATERAL', settlementDelay: 'IMMEDIATE',
    currency: GROSS_CURRENCY, requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  }), 201, 'gross settlement model');
}

/** This test's two DFSPs, in both currencies (after the demo has set the hub up in USD). */
async function onboardTestDfsps() {
  testDfsps = [await startTestDfsp({ name: 'settlepayer', switchUrl: sw.apiUrl }), await startTestDfsp({ name: 'settlepayee', switchUrl: sw.apiUrl })];
  for (const dfsp of testDfsps) {
    for (const currency of [NET_CURRENCY, GROSS_CURRENCY]) {
      await onboardDfsp(sw.admin.request, { name: dfsp.name, currency, endpointBase: dfsp.url, netDebitCap: '1000', fundsIn: '1000' });
    }
  }
}

/** One transfer between this test's DFSPs, committed. */
async function transfer(amount, currency) {
  const [payer, payee] = testDfsps;
  const transferId = randomUUID();
  const expiration = new Date(Date.now() + 30_000).toISOString();
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount, currency, payeeAddress: `g.${payee.name}.msisdn.1`, expiration });
  const body = { transferId, payerFsp: payer.name, payeeFsp: payee.name, amount: { amount, currency }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders(payer.name, payee.name), body: JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
  const callback = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${transferId}`);
  assert.equal(callback.body.transferState, 'COMMITTED', JSON.stringify(callback.body));
}

/** Closes the open window and takes it into a deferred net settlement, left pending. */
async function settleOpenWindow() {
  const [open] = expectStatus(await settlement.request('GET', '/v2/settlementWindows?state=OPEN'), 200, 'open window');
  expectStatus(await settlement.request('POST', `/v2/settlementWindows/${open.settlementWindowId}`, { state: 'CLOSED', reason: 'monitoring test' }), 200, 'close window');
  pendingSettlement = expectStatus(await settlement.request('POST', '/v2/settlements', {
    settlementModel: `DEFERREDNET${NET_CURRENCY}`, reason: 'monitoring test', settlementWindows: [{ id: String(open.settlementWindowId) }],
  }), 200, 'settlement');
}

/** Waits until the settlement API has settled every transfer in the gross currency. */
async function waitForGrossSettlement(timeoutMs = SCRAPE_WAIT_MS) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const [{ unsettled }] = await sw.admin.db('settlement_window_transfer').where({ currency: GROSS_CURRENCY }).whereNull('gross_settled_at').count({ unsettled: '*' });
    if (Number(unsettled) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${GROSS_CURRENCY} transfers not settled gross\n${settlement.child?.output ?? ''}`);
}

before(async () => {
  if (skip) return;
  workDir = mkdtempSync(join(tmpdir(), 'fspiop-prometheus-'));
  // Plain HTTP, as the chart's pods serve it (its mutual TLS ends at the ingress): Prometheus
  // scrapes every process as it does in the cluster.
  sw = await startSwitch({ env: { CLIENT_IDENTITY: 'off' } });
  settlement = await startSettlementApi();
  await startPrometheus(await startMysqldExporter());
  await setUpGrossCurrency();
  // A counter's first sample is where rate() starts, so a series must grow after it has been
  // scraped once for its rate to be a number. Prometheus hands new targets to its scrape loop
  // some seconds apart, and a fast machine finishes a demo run within that time: so each run
  // starts only once every target has been scraped after the previous run (or after start).
  const simulatorPortBase = await freePortRange(6); // the demo's six DFSP simulators
  const waitedMs = [];
  for (let run = 0; run < DEMO_RUNS; run += 1) {
    waitedMs.push(await waitForScrapesAfter(Date.now()));
    await runDemo(simulatorPortBase);
    if (run === 0) await onboardTestDfsps();
    await transfer(NET_AMOUNT, NET_CURRENCY);
    await transfer(GROSS_AMOUNT, GROSS_CURRENCY);
    // The demo has settled its own window; the first run's transfers of this test's DFSPs go
    // into a settlement left pending, the last run's stay in the open window.
    if (run === 0) await settleOpenWindow();
  }
  await waitForGrossSettlement();
  // The settlement gauges reuse one database read for up to SETTLEMENT_GAUGES_MAX_AGE_MS: a
  // scrape that late is the first sure to show the last run.
  waitedMs.push(await waitForScrapesAfter(Date.now() + SETTLEMENT_GAUGES_MAX_AGE_MS));
  console.log(`  waited for every target's next scrape: ${waitedMs.map((ms) => `${ms} ms`).join(', ')} (before each run, then after the last)`);
  await waitForRuleEvaluationAfter(Date.now());
});

after(async () => {
  await Promise.all(testDfsps.map((dfsp) => dfsp.close()));
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await Promise.all(children.map((child) => (child.exitCode === null && child.signalCode === null ? once(child, 'exit') : null)));
  await sw?.stop();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

async function query(expr) {
  const response = await fetch(`${prometheusUrl}/api/v1/query?${new URLSearchParams({ query: expr })}`);
  const body = await response.json();
  assert.equal(body.status, 'success', `${expr}: ${body.error}`);
  return body.data.result;
}

/** Grafana's variables as this test's values: its namespace, every handler and DFSP. */
function substitute(expr) {
  return expr.replaceAll('$__rate_interval', RATE_INTERVAL).replaceAll('$namespace', NAMESPACE)
    .replaceAll('$handler', '.*').replaceAll('$fsp', '.*');
}

const hasNumber = (result) => result.some(({ value }) => Number.isFinite(Number(value[1])));

function dashboards() {
  const dir = join(chart, 'dashboards');
  return readdirSync(dir).filter((file) => file.endsWith('.json')).map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')));
}

test('every dashboard panel query returns numbers from the running switch', { skip, timeout: 60_000 }, async () => {
  const empty = [];
  let checked = 0;
  for (const board of dashboards()) {
    for (const panel of board.panels) {
      for (const target of panel.targets) {
        checked += 1;
        const result = await query(substitute(target.expr));
        if (!hasNumber(result)) empty.push(`${board.title} / ${panel.title} [${target.refId}]: ${target.expr}`);
      }
    }
  }
  assert.ok(checked >= 30, `only ${checked} queries found`);
  assert.deepEqual(empty, [], 'panels without data');
});

test('every dashboard variable finds values', { skip }, async () => {
  for (const board of dashboards()) {
    for (const variable of board.templating.list.filter((v) => v.type === 'query')) {
      const [, metric, label] = variable.query.match(/^label_values\((\w+), (\w+)\)$/) ?? [];
      assert.ok(metric, `${board.title} $${variable.name}: unexpected query ${variable.query}`);
      const values = await query(`count by (${label}) (${metric})`);
      assert.ok(values.length > 0, `${board.title} $${variable.name}: no ${label} values on ${metric}`);
    }
  }
});

test('every alert rule loads, evaluates without error, and its expression has data', { skip }, async () => {
  const { groups } = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()).data;
  const rules = groups.flatMap((group) => group.rules);
  const expected = renderRuleFile().groups.flatMap((group) => group.rules);
  assert.deepEqual(rules.map((rule) => rule.name).sort(), expected.map((rule) => rule.alert).sort());
  for (const rule of rules) {
    assert.equal(rule.health, 'ok', `${rule.name}: ${rule.lastError}`);
    // Without its threshold, the expression must select live series: otherwise the alert
    // could never fire, whatever happened.
    const measured = rule.query.replace(/\s*>\s*-?[\d.]+\s*$/, '');
    assert.notEqual(measured, rule.query, `${rule.name}: expected "<expression> > <threshold>"`);
    assert.ok(hasNumber(await query(measured)), `${rule.name}: no data for ${measured}`);
  }
});

test('the switch reports what the payments did: outcomes by error code, positions against caps, lag', { skip }, async () => {
  const finished = await query(`sum by (state, error_code) (transfers_finished_total{namespace="${NAMESPACE}"})`);
  const count = (state, code) => Number(finished.find(({ metric }) => metric.state === state && metric.error_code === code)?.value[1] ?? 0);
  // Each run of the demo's six payments: three commit, one is refused for liquidity (4001),
  // one is rejected by the payee (5104), one stops at discovery (3204: no transfer); its
  // payment with currency conversion commits twice (the conversion and its payment); its
  // merchant-initiated payment commits; its bulk of ten commits nine, and the one the payee
  // fulfilled wrongly aborts (3100); its two payments with an ISO 20022 DFSP commit; and the
  // two transfers of this test's DFSPs commit.
  assert.equal(count('COMMITTED', 'none'), (3 + 2 + 1 + 9 + 2 + 2) * DEMO_RUNS, JSON.stringify(finished));
  assert.equal(count('ABORTED_ERROR', '3100'), DEMO_RUNS, JSON.stringify(finished));
  assert.equal(count('ABORTED_REJECTED', '4001'), DEMO_RUNS, JSON.stringify(finished));
  assert.equal(count('ABORTED_ERROR', '5104'), DEMO_RUNS, JSON.stringify(finished));
  const gauge = async (name, fsp, currency = NET_CURRENCY) => Number((await query(`${name}{namespace="${NAMESPACE}", fsp="${fsp}", currency="${currency}"}`))[0]?.value[1]);
  // payerfsp committed 100 a run (its 42 was released), which the demo settled at the end of the run.
  assert.equal(await gauge('dfsp_position', 'payerfsp'), 0);
  assert.equal(await gauge('dfsp_net_debit_cap', 'payerfsp'), 10000);
  // settlepayer's USD transfers are not settled yet (the first run's in the pending settlement,
  // the last one's in the open window), against a net debit cap of 1,000; its EUR ones were settled gross.
  assert.equal(await gauge('dfsp_position', 'settlepayer'), Number(NET_AMOUNT) * DEMO_RUNS);
  assert.equal(await gauge('dfsp_net_debit_cap_utilisation_ratio', 'settlepayer'), (Number(NET_AMOUNT) * DEMO_RUNS) / 1000);
  assert.equal(await gauge('dfsp_position', 'settlepayer', GROSS_CURRENCY), 0);
  const lag = await query(`sum by (handler) (kafka_consumer_lag_messages{namespace="${NAMESPACE}"})`);
  assert.deepEqual(lag.map(({ metric }) => metric.handler).sort(), ['bulk', 'fulfil', 'notification', 'position', 'prepare', 'quoting-handler']);
});

test('the settlement API reports its windows and settlements: the open window, the pending settlement, what it settled gross', { skip }, async () => {
  const value = async (expr) => (await query(expr)).map(({ metric, value: [, v] }) => [metric.currency ?? metric.state ?? '', Number(v)]).sort();
  const selector = `namespace="${NAMESPACE}"`;
  // The open window holds the last run's transfers of this test's DFSPs (the demo settled its own).
  assert.deepEqual(await value(`max by (currency) (settlement_window_open_transfers{${selector}})`), [[GROSS_CURRENCY, 1], [NET_CURRENCY, 1]]);
  assert.deepEqual(await value(`max by (currency) (settlement_window_open_amount{${selector}})`), [[GROSS_CURRENCY, Number(GROSS_AMOUNT)], [NET_CURRENCY, Number(NET_AMOUNT)]]);
  const [[, age]] = await value(`max(settlement_window_open_age_seconds{${selector}})`);
  assert.ok(age > 0 && age < 3600, `open window age ${age}`);
  assert.deepEqual(await value(`max by (state) (settlements_pending{${selector}})`), [[pendingSettlement.state, 1]]);
  // The demo closes a window a run, and this test one.
  assert.deepEqual(await value(`sum(settlement_windows_closed_total{${selector}})`), [['', DEMO_RUNS + 1]]);
  // EUR is settled gross here: this test's EUR transfer and the demo's conversion payment to
  // its EUR payee (the FXP pays the payee in EUR), one each a run.
  assert.deepEqual(await value(`sum by (currency) (settlement_gross_settled_transfers_total{${selector}})`), [[GROSS_CURRENCY, 2 * DEMO_RUNS]]);
});

test('the currency conversion dashboard counts the demo\'s conversions: reserved and committed, quoted, discovered, called back', { skip }, async () => {
  const board = dashboards().find((candidate) => candidate.uid === 'fspiop-fx');
  assert.ok(board, 'a Currency conversion dashboard');
  const exprs = board.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
  assert.ok(exprs.every((expr) => /FX_|fxTransfers|fxQuotes|services/.test(expr)), 'every panel selects conversion series only');
  const selector = `namespace="${NAMESPACE}"`;
  const byLabel = async (expr, label) => Object.fromEntries((await query(expr)).map(({ metric, value: [, v] }) => [metric[label], Number(v)]));
  // One conversion a run, reserved then committed with its payment; none released.
  assert.deepEqual(await byLabel(`sum by (reason) (position_changes_total{${selector}, reason=~"FX_.*"})`, 'reason'), { FX_PREPARE: DEMO_RUNS, FX_COMMIT: DEMO_RUNS });
  const routes = await byLabel(`sum by (route) (http_request_duration_seconds_count{${selector}, route=~"/fxTransfers.*|/fxQuotes.*|/services.*"})`, 'route');
  // A run: the payer's POST and the FXP's PUT of the fx quote and of the fx transfer, and one FXP discovery.
  assert.deepEqual(routes, {
    '/fxQuotes': DEMO_RUNS, '/fxQuotes/{ID}': DEMO_RUNS, '/fxTransfers': DEMO_RUNS, '/fxTransfers/{ID}': DEMO_RUNS,
    '/services/FXP/{SourceCurrency}/{TargetCurrency}': DEMO_RUNS,
  });
  const delivered = await byLabel(`sum by (endpoint_type) (callbacks_total{${selector}, endpoint_type=~"FSPIOP_CALLBACK_URL_FX_.*|FSPIOP_CALLBACK_URL_SERVICES", outcome="delivered"})`, 'endpoint_type');
  assert.equal(delivered.FSPIOP_CALLBACK_URL_SERVICES, DEMO_RUNS, JSON.stringify(delivered));
  assert.equal(delivered.FSPIOP_CALLBACK_URL_FX_QUOTES, 2 * DEMO_RUNS, `the request to the FXP and its answer to the payer: ${JSON.stringify(delivered)}`);
  assert.equal(delivered.FSPIOP_CALLBACK_URL_FX_TRANSFER_POST, DEMO_RUNS, JSON.stringify(delivered));
  assert.ok(delivered.FSPIOP_CALLBACK_URL_FX_TRANSFER_PUT >= DEMO_RUNS, `the FXP's RESERVED to the payer at least: ${JSON.stringify(delivered)}`);
  const failed = await query(`sum(callbacks_total{${selector}, endpoint_type=~"FSPIOP_CALLBACK_URL_FX_.*|FSPIOP_CALLBACK_URL_SERVICES", outcome!="delivered"})`);
  assert.deepEqual(failed, [], 'no conversion callback failed');
});

test('the request to pay and bulk dashboard counts the demo\'s merchant-initiated payment and its bulk: relayed by kind, bulks and items by state', { skip }, async () => {
  const board = dashboards().find((candidate) => candidate.uid === 'fspiop-r2p-bulk');
  assert.ok(board, 'a Request to pay and bulk dashboard');
  const selector = `namespace="${NAMESPACE}"`;
  const byLabels = async (expr, ...labels) => Object.fromEntries((await query(expr)).map(({ metric, value: [, v] }) => [labels.map((label) => metric[label]).join(' '), Number(v)]));
  // A run: the merchant's request and the RECEIVED, one OTP round, the bulk quote and its answer, none refused.
  assert.deepEqual(await byLabels(`sum by (kind, outcome) (quoting_messages_total{${selector}, kind=~"transactionRequest|authorization|bulkQuote"})`, 'kind', 'outcome'), {
    'transactionRequest FORWARD_REQUEST': DEMO_RUNS, 'transactionRequest FORWARD_ANSWER': DEMO_RUNS,
    'authorization FORWARD_REQUEST': DEMO_RUNS, 'authorization FORWARD_ANSWER': DEMO_RUNS,
    'bulkQuote FORWARD_REQUEST': DEMO_RUNS, 'bulkQuote FORWARD_ANSWER': DEMO_RUNS,
  });
  const bulks = await byLabels(`sum by (state) (bulk_transfers_settled_total{${selector}})`, 'state');
  assert.deepEqual([bulks.ACCEPTED, bulks.COMPLETED, bulks.REJECTED, bulks.EXPIRED], [DEMO_RUNS, DEMO_RUNS, undefined, undefined], JSON.stringify(bulks));
  assert.deepEqual(await byLabels(`sum by (result) (bulk_item_results_total{${selector}})`, 'result'), { RESERVED: 10 * DEMO_RUNS, COMMITTED: 9 * DEMO_RUNS, ABORTED: DEMO_RUNS });
  const routes = await byLabels(`sum by (method, route) (http_request_duration_seconds_count{${selector}, route=~"/transactionRequests.*|/authorizations.*|/bulkQuotes.*|/bulkTransfers.*"})`, 'method', 'route');
  assert.deepEqual(routes, {
    'POST /transactionRequests': DEMO_RUNS, 'PUT /transactionRequests/{ID}': DEMO_RUNS, 'GET /authorizations/{ID}': DEMO_RUNS, 'PUT /authorizations/{ID}': DEMO_RUNS,
    'POST /bulkQuotes': DEMO_RUNS, 'PUT /bulkQuotes/{ID}': DEMO_RUNS, 'POST /bulkTransfers': DEMO_RUNS, 'PUT /bulkTransfers/{ID}': DEMO_RUNS,
  });
});
