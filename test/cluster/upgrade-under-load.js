// One `helm upgrade` of a cluster kept by `KEEP_CLUSTER=1 make cluster-test` to another image
// tag, while k6 pays 2 a second through the in-cluster simulators, with the pods' changes on
// one timeline: how long a rollout holds payments up, in either profile, beside whatever load
// one runs on the machine meanwhile (charts/README.md, the compact profile's upgrade figures).
//   node test/cluster/upgrade-under-load.js --tag test-b [--profile compact] [--seconds 150]
// It prints k6's summary line and the upgrade's start and end; the pods' changes go to
// $RUN_DIR/logs/upgrade-pods.log and k6's samples to $RUN_DIR/logs/upgrade-k6.csv.
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { load } from 'js-yaml';
import { allPairs, dfspNames, payerWorkersOf } from '../../perf/provision.js';

const { values: options } = parseArgs({
  options: { tag: { type: 'string' }, profile: { type: 'string', default: 'separate' }, seconds: { type: 'string', default: '150' } },
});
if (!options.tag) throw new Error('--tag names the image tag to upgrade to (test-a or test-b after make cluster-test)');
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const runDir = process.env.RUN_DIR ?? join(root, '.run');
const bin = (name) => join(root, '.tools', 'bin', name);
const env = { ...process.env, KUBECONFIG: join(runDir, 'cluster', 'kubeconfig') };
const valuesFile = join(root, 'charts', 'fspiop-switch', 'examples', 'values-one-node.yaml');
const { loadTest } = load(readFileSync(valuesFile, 'utf8'));
const names = dfspNames(loadTest.dfsps);
const TPS = 2;
// k6 runs this long before the upgrade starts, so that the timeline has a baseline.
const BASELINE_MS = 20_000;

const startedAt = Date.now();
const since = () => ((Date.now() - startedAt) / 1000).toFixed(1);
const kubectl = (args) => execFileSync(bin('kubectl'), ['-n', 'payments', ...args], { env, encoding: 'utf8' });
const bridgeHost = JSON.parse(kubectl(['get', 'service', 'sw-fspiop-switch-loadtest-simulators', '-o', 'json'])).spec.clusterIP;

const podsLog = createWriteStream(join(runDir, 'logs', 'upgrade-pods.log'));
const watch = spawn(bin('kubectl'), ['-n', 'payments', 'get', 'pods', '-w', '--no-headers'], { env });
watch.stdout.on('data', (chunk) => String(chunk).split('\n').filter(Boolean).forEach((line) => podsLog.write(`${since()} ${line}\n`)));

const k6 = spawn(bin('k6'), ['run', '--no-usage-report', '--quiet', '--out', `csv=${join(runDir, 'logs', 'upgrade-k6.csv')}`, join(root, 'perf', 'k6', 'transfers.js')], {
  env: { ...process.env, PROFILE: 'cluster-upgrade', TPS: String(TPS), TRANSFERS: String(TPS * Number(options.seconds)), BRIDGE_HOST: bridgeHost, BRIDGE_PORT: '7100',
    PAIRS_JSON: JSON.stringify(allPairs(names, loadTest.msisdnsPerDfsp)), PAYER_WORKERS_JSON: JSON.stringify(payerWorkersOf(names, loadTest.simulators.workers)), K6_NO_COLOR: '1' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let k6Output = '';
k6.stdout.on('data', (chunk) => { k6Output += chunk; });
const k6Ended = new Promise((resolve) => k6.on('exit', resolve));

await new Promise((resolve) => setTimeout(resolve, BASELINE_MS));
console.log(`${since()} s: helm upgrade to ${options.tag} (${options.profile} profile)`);
podsLog.write(`${since()} UPGRADE START\n`);
execFileSync(bin('helm'), ['-n', 'payments', 'upgrade', 'sw', join(root, 'charts', 'fspiop-switch'), '-f', valuesFile, '--reuse-values',
  '--set', `compact.enabled=${options.profile === 'compact'}`, '--set', `image.tag=${options.tag}`, '--no-hooks', '--wait', '--timeout', '20m'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
console.log(`${since()} s: upgrade done`);
podsLog.write(`${since()} UPGRADE DONE\n`);
await k6Ended;
watch.kill();
console.log(k6Output.split('\n').find((line) => /\bcompleted=\d+ failed=\d+/.test(line)) ?? k6Output.slice(-2000));
