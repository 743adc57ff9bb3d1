// The chart on a real one-node Kubernetes (test/cluster/cluster-test.sh starts it, loads the images
// `make image` built and sets the environment below): pods on containerd and runc, Services
// through kube-proxy, names through the cluster DNS. In order, as an operator would meet them:
//   1. helm install in dev mode with the in-cluster load test, a share of its payments
//      converting USD to EUR through an FXP: every Deployment available, the setup Jobs
//      complete, the k6 Job's payments all succeed and the validity gate passes against the
//      in-cluster database;
//   2. helm test;
//   3. one discovery → quote → transfer through the Services moves both positions by its amount;
//   4. helm upgrade to a new image tag, then helm rollback, while k6 keeps paying: every
//      Deployment rolls both ways and no payment fails;
//   5. the NetworkPolicy in force admits the switch's own traffic and refuses other pods.
// With SWITCH_PROFILE=compact the same tests run the chart's compact profile (values
// `compact.enabled`, its default hosts): one Deployment per host, each component keeping its
// Service, so everything but the Deployments and pods the tests look for stays the same.
// Env: KUBECONFIG, IMAGE_TAG, UPGRADE_IMAGE_TAG, BUSYBOX_IMAGE, NETWORK_POLICY (enforced|none),
// SWITCH_PROFILE (separate|compact).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { parseAmount } from '../../ledger/domain/money.js';
import { allPairs, dfspNames, payerWorkersOf } from '../../perf/provision.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = (name) => join(root, '.tools', 'bin', name);
const chart = join(root, 'charts', 'fspiop-switch');
const valuesFile = join(chart, 'examples', 'values-one-node.yaml');
const { IMAGE_TAG, UPGRADE_IMAGE_TAG, BUSYBOX_IMAGE, NETWORK_POLICY = 'none', SWITCH_PROFILE = 'separate' } = process.env;
const skip = process.env.KUBECONFIG && IMAGE_TAG ? false : 'needs a cluster: make cluster-test';

const NAMESPACE = 'payments';
const RELEASE = 'sw';
const FULL = `${RELEASE}-fspiop-switch`;
const RUN_TAG = '0c1057';
const loadTest = load(readFileSync(valuesFile, 'utf8')).loadTest;
const chartDefaults = load(readFileSync(join(chart, 'values.yaml'), 'utf8'));
// Every component the chart deploys from the switch's image, and the Deployment that runs it:
// its own, or in the compact profile its host's (the built-in oracle is served by
// account-lookup-admin, in whichever host that is).
const switchComponents = Object.keys(chartDefaults.components);
const compact = SWITCH_PROFILE === 'compact';
const deploymentOf = (component) => (compact ? chartDefaults.compact.hosts.find((host) => host.components.includes(component))?.name : component);
// The component labels of the pods the switch's image runs.
const switchDeployments = new Set(switchComponents.map(deploymentOf));
const names = dfspNames(loadTest.dfsps);
const pairs = allPairs(names, loadTest.msisdnsPerDfsp);
const payerWorkers = payerWorkersOf(names, loadTest.simulators.workers);
// The install's k6 Job, the payment of test 3 and the run under the upgrade, all under RUN_TAG.
let completedInRun = 0;
// Of them, the payments their payee asked for (request to pay), which the gate finds linked.
let requestsToPayInRun = 0;
// The bulks the load test completed (each of its items is a transfer counted above).
let bulksInRun = 0;

async function run(command, args, { timeoutMs = 120_000 } = {}) {
  try {
    const { stdout } = await promisify(execFile)(command, args, { timeout: timeoutMs, maxBuffer: 64 << 20 });
    return stdout;
  } catch (error) {
    const said = [error.stdout, error.stderr || error.message].filter(Boolean).join('\n');
    throw new Error(`${[command, ...args].join(' ')} failed: ${said}`.slice(-4000), { cause: error });
  }
}
const kubectl = (args, options) => run(bin('kubectl'), ['-n', NAMESPACE, ...args], options);
const helm = (args, options) => run(bin('helm'), ['-n', NAMESPACE, ...args], options);
const items = async (kind, selector = `app.kubernetes.io/instance=${RELEASE}`) => JSON.parse(await kubectl(['get', kind, '-l', selector, '-o', 'json'])).items;

const helmTimeout = ['--timeout', '20m'];
// scripts/image.sh tags the k6 image with the version of the k6 that make deps built.
const k6Image = skip ? '' : `localhost/fspiop-switch-k6:${execFileSync(bin('k6'), ['version'], { encoding: 'utf8' }).split(' ')[1].replace(/^v/, '')}`;
const chartValues = (tag) => ['-f', valuesFile, '--set', `compact.enabled=${compact}`, '--set', `image.tag=${tag}`, '--set', 'loadTest.enabled=true',
  '--set', `loadTest.imageTag=${IMAGE_TAG}`, '--set', `loadTest.runTag=${RUN_TAG}`, '--set', `loadTest.k6.image=${k6Image}`];

function assertRolledOut(deployments, tag) {
  for (const deployment of deployments) {
    const { metadata: { name, generation }, spec, status } = deployment;
    assert.equal(status.observedGeneration, generation, `${name} observed its last change`);
    assert.equal(status.updatedReplicas, spec.replicas, `${name}: every replica updated`);
    assert.equal(status.availableReplicas, spec.replicas, `${name}: every replica available`);
    if (name.endsWith('-loadtest-simulators')) {
      // The load test runs its own image, pinned to the install's tag across the upgrade.
      assert.equal(spec.template.spec.containers[0].image, `localhost/fspiop-switch-loadtest:${IMAGE_TAG}`, name);
    } else if (tag && !name.includes('-dev-')) {
      assert.equal(spec.template.spec.containers[0].image, `localhost/fspiop-switch:${tag}`, name);
    }
  }
}

async function assertPodsRun(tag) {
  const pods = (await items('pods')).filter((pod) => pod.status.phase === 'Running' && !pod.metadata.deletionTimestamp);
  const switchPods = pods.filter((pod) => switchDeployments.has(pod.metadata.labels['app.kubernetes.io/component']));
  const running = new Set(switchPods.map((pod) => pod.metadata.labels['app.kubernetes.io/component']));
  assert.deepEqual(switchComponents.filter((name) => !running.has(deploymentOf(name))), [], 'every component has a running pod');
  if (compact) assert.equal(switchPods.length, switchDeployments.size, `one pod per host: ${switchPods.map((pod) => pod.metadata.name)}`);
  for (const pod of switchPods) assert.equal(pod.spec.containers[0].image, `localhost/fspiop-switch:${tag}`, pod.metadata.name);
}

/** `completed=… failed=… dropped_iterations=… warmup_completed=… warmup_failed=…` of a k6 summary line (perf/k6/transfers.js handleSummary). */
function k6Counts(output) {
  const line = output.split('\n').find((text) => /\bcompleted=\d+ failed=\d+/.test(text) && !/\bbulk_completed=/.test(text));
  assert.ok(line, `no k6 summary line in:\n${output.slice(-2000)}`);
  const count = (name) => Number(line.match(new RegExp(`\\b${name}=(\\d+)`))?.[1] ?? 0);
  return { line, completed: count('completed'), failed: count('failed'), dropped: count('dropped_iterations'),
    warmupCompleted: count('warmup_completed'), warmupFailed: count('warmup_failed'),
    conversionCompleted: count('conversion_completed'), conversionFailed: count('conversion_failed'),
    rtpCompleted: count('rtp_completed'), rtpFailed: count('rtp_failed'), warmupRtpCompleted: count('warmup_rtp_completed') };
}

/** The bulk run's summary line (perf/k6/bulk.js handleSummary), when the load test ran one: its bulks and items. */
function k6BulkCounts(output) {
  const line = output.split('\n').find((text) => /\bbulk_completed=\d+/.test(text));
  if (!line) return null;
  const count = (name) => Number(line.match(new RegExp(`\\b${name}=(\\d+)`))?.[1] ?? 0);
  return { line, bulksCompleted: count('bulk_completed'), bulksFailed: count('bulk_failed'), itemsCommitted: count('completed') };
}

/** What a k6 log says beyond its progress bars: warnings, errors and the summary, the last 60 lines of them. */
function k6Findings(log) {
  const progress = /^\s*$|^running \(|^\s*(warmup|transfers|bulks)\s+[✓✗ ]?\s*\[/;
  return log.split('\n').filter((line) => !progress.test(line)).slice(-60).join('\n');
}

/** The install's k6 Job: its counts, every payment it completed (the warm-up's and the conversions' too) added to the run's. */
async function countInstallRun() {
  const log = await kubectl(['logs', `job/${FULL}-loadtest`]);
  const k6 = k6Counts(log);
  k6.bulk = k6BulkCounts(log);
  if (k6.bulk) {
    completedInRun += k6.bulk.itemsCommitted;
    bulksInRun += k6.bulk.bulksCompleted;
  }
  completedInRun += k6.completed + k6.warmupCompleted + k6.conversionCompleted + k6.rtpCompleted;
  requestsToPayInRun += k6.rtpCompleted + k6.warmupRtpCompleted;
  return k6;
}

async function assertGatePasses() {
  // The gate is in the load test's image, not the switch's: it runs in the simulators' pod.
  const output = await kubectl(['exec', `deploy/${FULL}-loadtest-simulators`, '--', 'node', 'perf/gate.js', '--run-tag', RUN_TAG,
    '--completed', String(completedInRun), '--requests-to-pay', String(requestsToPayInRun), '--bulks-completed', String(bulksInRun)], { timeoutMs: 300_000 }).catch((error) => error.message);
  assert.match(output, /GATE PASS/, output);
}

test('install in dev mode: Deployments available, setup Jobs complete, the in-cluster load test pays and passes its gate', { skip, timeout: 1_500_000 }, async () => {
  // A cluster kept from an earlier run (KEEP_CLUSTER=1) starts clean.
  await helm(['uninstall', RELEASE, '--ignore-not-found', '--wait']);
  await run(bin('kubectl'), ['delete', 'namespace', NAMESPACE, '--ignore-not-found', '--wait'], { timeoutMs: 300_000 });
  await helm(['install', RELEASE, chart, '--create-namespace', ...chartValues(IMAGE_TAG), '--wait', '--wait-for-jobs', ...helmTimeout], { timeoutMs: 1_300_000 })
    .catch(async (error) => {
      // A failed hook Job says why only in its log, which the cluster's teardown removes. The
      // payments it made still count for the later tests' gates.
      const k6 = await kubectl(['logs', `job/${FULL}-loadtest`]).then(k6Findings).catch((logError) => logError.message);
      await countInstallRun().catch(() => {});
      throw new Error(`${error.message}\nk6's log:\n${k6}`, { cause: error });
    });
  assertRolledOut(await items('deployments'), IMAGE_TAG);
  await assertPodsRun(IMAGE_TAG);
  const jobs = Object.fromEntries((await items('jobs')).map((job) => [job.metadata.name, job.status]));
  for (const name of [`${FULL}-migrate-1`, `${FULL}-topics-1`, `${FULL}-loadtest-provision`, `${FULL}-loadtest`]) {
    assert.ok(jobs[name]?.succeeded >= 1, `${name} completed: ${JSON.stringify(jobs[name])}`);
  }
  const k6 = await countInstallRun();
  assert.equal(k6.failed, 0, k6.line);
  assert.equal(k6.warmupFailed, 0, k6.line);
  assert.ok(k6.warmupCompleted > 0, `the run warmed up first: ${k6.line}`);
  assert.equal(k6.conversionFailed, 0, k6.line);
  assert.ok(k6.conversionCompleted > 0, `a share of the payments converted USD to EUR: ${k6.line}`);
  assert.equal(k6.rtpFailed, 0, k6.line);
  assert.ok(k6.rtpCompleted > 0, `a share of the payments were asked for by their payee: ${k6.line}`);
  assert.ok(k6.bulk, 'the bulk run followed the payments');
  assert.equal(k6.bulk.bulksFailed, 0, k6.bulk.line);
  // constant-arrival-rate may start one bulk more than rate × duration, as it may a payment.
  assert.ok(k6.bulk.bulksCompleted >= loadTest.bulk.bulks, k6.bulk.line);
  assert.equal(k6.bulk.itemsCommitted, k6.bulk.bulksCompleted * loadTest.bulk.size, k6.bulk.line);
  // constant-arrival-rate may start one iteration more than rate × duration; k6 counts the
  // conversion payments and the requests to pay apart from the plain ones.
  assert.ok(k6.completed + k6.conversionCompleted + k6.rtpCompleted + k6.dropped >= loadTest.transfers, k6.line);
  await assertGatePasses();
});

test('helm test: every component answers /health through its Service', { skip, timeout: 600_000 }, async () => {
  const output = await helm(['test', RELEASE, '--timeout', '5m'], { timeoutMs: 400_000 });
  assert.match(output, /Phase:\s+Succeeded/);
});

async function positionOf(fsp) {
  const script = `const r = await fetch('http://127.0.0.1:3001/participants/${fsp}/positions?currency=USD', `
    + `{headers: {authorization: 'Bearer ' + process.env.OPERATOR_TOKEN_READ_ONLY}}); console.log(JSON.stringify(await r.json()))`;
  const position = JSON.parse(await kubectl(['exec', `deploy/${FULL}-${deploymentOf('admin-api')}`, '--', 'node', '--input-type=module', '-e', script]));
  return parseAmount(String(position.value), { allowNegative: true });
}

async function bridgeUrl(payer) {
  const service = JSON.parse(await kubectl(['get', 'service', `${FULL}-loadtest-simulators`, '-o', 'json']));
  return `http://${service.spec.clusterIP}:${7100 + payerWorkers[payer]}`;
}

test('one discovery → quote → transfer through the Services moves both positions by its amount', { skip, timeout: 300_000 }, async () => {
  const [payer, payee] = names;
  const before = { payer: await positionOf(payer), payee: await positionOf(payee) };
  const bridge = await bridgeUrl(payer);
  const { msisdnFrom } = pairs.find((pair) => pair.payer === payer && pair.payee === payee);
  const post = (path, body) => fetch(`${bridge}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const parties = await fetch(`${bridge}/parties/MSISDN/${msisdnFrom}?payer=${payer}&payee=${payee}`);
  assert.equal(parties.status, 200, await parties.clone().text());
  assert.equal((await parties.json()).party.partyIdInfo.fspId, payee);
  const quoteResponse = await post('/quotes', { payer, payee, msisdn: String(msisdnFrom), amount: '7', currency: 'USD' });
  assert.equal(quoteResponse.status, 200, await quoteResponse.clone().text());
  const quote = await quoteResponse.json();
  const transfer = await post('/transfers', { payer, payee, transferId: quote.transactionId, amount: quote.transferAmount.amount,
    currency: quote.transferAmount.currency, ilpPacket: quote.ilpPacket, condition: quote.condition });
  assert.equal(transfer.status, 200, await transfer.clone().text());
  completedInRun += 1;
  const amount = parseAmount(quote.transferAmount.amount);
  assert.equal(await positionOf(payer), before.payer + amount, 'the payer owes the amount more');
  assert.equal(await positionOf(payee), before.payee - amount, 'the payee is owed the amount more');
});

/** k6 on this machine against the in-cluster simulators' bridges (their Service), until it ends. */
async function startLoad({ tps, transfers }) {
  const url = await bridgeUrl(names[0]);
  const child = spawn(bin('k6'), ['run', '--no-usage-report', '--quiet', join(root, 'perf', 'k6', 'transfers.js')], {
    env: { ...process.env, PROFILE: 'cluster-upgrade', TPS: String(tps), TRANSFERS: String(transfers), BRIDGE_HOST: new URL(url).hostname,
      BRIDGE_PORT: '7100', PAIRS_JSON: JSON.stringify(pairs), PAYER_WORKERS_JSON: JSON.stringify(payerWorkers), K6_NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const finished = new Promise((resolve) => child.on('exit', (code) => resolve({ code, output })));
  return { child, finished, running: () => child.exitCode === null };
}

test('helm upgrade to a new image and helm rollback, under load: every Deployment rolls both ways, no payment fails', { skip, timeout: 1_800_000 }, async () => {
  assert.ok(UPGRADE_IMAGE_TAG && UPGRADE_IMAGE_TAG !== IMAGE_TAG, 'UPGRADE_IMAGE_TAG names a second tag');
  const tps = 2;
  const transfers = tps * Number(process.env.UPGRADE_LOAD_SECONDS ?? 240);
  const load = await startLoad({ tps, transfers });
  try {
    await new Promise((resolve) => setTimeout(resolve, 15_000));
    assert.ok(load.running(), 'the load is running before the upgrade');
    // --no-hooks: the load test's own hooks would start a second run; the setup Jobs are
    // plain resources in dev mode and run anyway.
    await helm(['upgrade', RELEASE, chart, ...chartValues(UPGRADE_IMAGE_TAG), '--no-hooks', '--wait', '--wait-for-jobs', ...helmTimeout], { timeoutMs: 1_300_000 });
    assertRolledOut(await items('deployments'), UPGRADE_IMAGE_TAG);
    await assertPodsRun(UPGRADE_IMAGE_TAG);
    await helm(['rollback', RELEASE, '1', '--wait', '--wait-for-jobs', ...helmTimeout], { timeoutMs: 1_300_000 });
    assertRolledOut(await items('deployments'), IMAGE_TAG);
    await assertPodsRun(IMAGE_TAG);
    assert.ok(load.running(), `the load outlasted the upgrade and the rollback (raise UPGRADE_LOAD_SECONDS from ${transfers / tps})`);
  } catch (error) {
    // The failure is the news: stop the load rather than wait out its run.
    load.child.kill('SIGINT');
    await load.finished;
    throw error;
  }
  const { output } = await load.finished;
  const k6 = k6Counts(output);
  completedInRun += k6.completed;
  assert.equal(k6.failed, 0, `${k6.line}\n${output.slice(-3000)}`);
  // While pods restart some payments take seconds; k6 drops an iteration it has no free VU
  // for (never sent, so never failed). Those must stay few, and every one sent must succeed.
  assert.ok(k6.completed + k6.dropped >= transfers, k6.line);
  assert.ok(k6.dropped <= transfers * 0.05, k6.line);
  console.log(`under upgrade and rollback: ${k6.line}`);
  await assertGatePasses();
});

test('the NetworkPolicy: the operator APIs and the portal refuse a pod that is not an operator client and admit one that is', { skip: skip || (NETWORK_POLICY !== 'enforced' && 'the cluster does not enforce NetworkPolicy'), timeout: 300_000 }, async () => {
  // Ten tries a second apart: a new pod is admitted only once the controller has seen its IP.
  // (timeout, not wget -T: busybox 1.35 wget -T crashes once connected.)
  const probe = async (name, labels, url = `http://${FULL}-admin-api:3001/health`, bearer = undefined) => {
    const header = bearer ? `--header 'Authorization: Bearer ${bearer}'` : '';
    const tries = `for i in 1 2 3 4 5 6 7 8 9 10; do out=$(timeout 3 wget -q -O- ${header} ${url} 2>/dev/null) && { echo REACHED; echo "$out"; exit 0; }; sleep 1; done; echo REFUSED`;
    await kubectl(['delete', 'pod', name, '--ignore-not-found', '--wait']);
    await kubectl(['run', name, '--image', BUSYBOX_IMAGE, '--image-pull-policy', 'Never', '--restart', 'Never', '--labels', labels, '--command', '--', 'sh', '-c', tries]);
    await kubectl(['wait', `pod/${name}`, '--for=jsonpath={.status.phase}=Succeeded', '--timeout=120s'], { timeoutMs: 150_000 });
    const output = (await kubectl(['logs', name])).trim();
    await kubectl(['delete', 'pod', name, '--wait=false']);
    return output;
  };
  const operatorLabels = `app.kubernetes.io/name=fspiop-switch,app.kubernetes.io/instance=${RELEASE},fspiop-switch.io/operator-client=true`;
  assert.match(await probe('np-outsider', 'app=outsider'), /REFUSED/);
  assert.match(await probe('np-operator', operatorLabels), /REACHED/);
  // The operators' portal is behind the same policy, and reaches the admin API itself as an
  // operator client, with the operator's token it forwards.
  assert.match(await probe('np-outsider-portal', 'app=outsider', `http://${FULL}-portal:3010/health`), /REFUSED/);
  const readOnly = Buffer.from(await kubectl(['get', 'secret', `${FULL}-secrets`, '-o', 'jsonpath={.data.OPERATOR_TOKEN_READ_ONLY}']), 'base64').toString();
  assert.match(await probe('np-operator-portal', operatorLabels, `http://${FULL}-portal:3010/api/admin/operatorToken`, readOnly), /REACHED\s+\{"subject":"operator:read-only"/);
});
