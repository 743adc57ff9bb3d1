// The capacity model of perf/CAPACITY.md: from one measured run (CPU per iteration of every
// component, and the shared services' load per iteration from perf/load-counters.js) to
// replicas, partitions, vCPUs, MSK brokers and an RDS instance for a target rate on EKS.
//   node perf/capacity.js --run perf/results/<run> --load <load.json> --tps 500,1000,2000
//   node perf/capacity.js --run <run> --check perf/results/<other run>   (model vs measurement)
//   node perf/capacity.js --run <run> --load <load.json> --values-tps 1000 --values-out <file> [--service-cidr CIDR]
// The model is linear in the rate: it holds while batches do not shrink the cost per
// iteration further, so it errs on the side of more capacity at high rates.
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';

// A Node process runs its JavaScript on one thread: above about 0.7 of a core its event loop
// lags, so a pod is planned at 0.6 vCPU of work, leaving room for bursts, GC and catching
// up after a rebalance or a restart.
export const POD_VCPU_PLANNED = 0.6;
export const REPLICAS_MIN = 2;
// The timeout sweeper and the ALS admin API are singletons by default (charts values.yaml).
const REPLICAS_MIN_OF = { timeout: 1, 'account-lookup-admin': 1 };
// A cost measured at one rate on a shared 2-core box, applied at other rates: the check
// against a second run (perf/CAPACITY.md) found the model a third low at a lower rate, where
// batches are smaller, so planned work is the model's times this.
export const COST_SAFETY_FACTOR = 1.5;
// A consumed topic gets twice the partitions of the replicas the model plans (room to scale
// out without repartitioning, which would move keys), in multiples of 6, at least 12.
const PARTITIONS_MIN = 12;
// Brokers and database are planned at half their CPU (MSK and RDS guidance keeps brokers
// and databases well below saturation so a failover or a backlog has room).
const SHARED_CPU_PLANNED = 0.5;
const REPLICATION_FACTOR = 3;
const MSK_BROKER_VCPUS = { 'kafka.m5.large': 2, 'kafka.m5.xlarge': 4, 'kafka.m5.2xlarge': 8, 'kafka.m5.4xlarge': 16 };
const RDS_VCPUS = { 'db.r6g.large': 2, 'db.r6g.xlarge': 4, 'db.r6g.2xlarge': 8, 'db.r6g.4xlarge': 16 };

// The switch's processes and the topics their chart components consume.
const CONSUMED_TOPICS = {
  prepare: ['topic-transfer-prepare'], position: ['topic-transfer-position-batch'], fulfil: ['topic-transfer-fulfil'],
  notification: ['topic-notification-event', 'topic-notification-retry'], 'quoting-handler': ['topic-quotes-post', 'topic-quotes-put'],
};
const SWITCH_COMPONENTS = ['api-adapter', 'prepare', 'position', 'fulfil', 'notification', 'timeout', 'quoting', 'quoting-handler', 'account-lookup', 'account-lookup-admin', 'admin-api'];

/** `{ component: CPU % of one core }` (replicas added up) and the achieved rate of a run directory. */
export function measuredRun(dir) {
  const run = JSON.parse(readFileSync(`${dir}/run.json`, 'utf8'));
  const summary = JSON.parse(readFileSync(`${dir}/summary.json`, 'utf8'));
  const completed = summary.metrics.completed_transactions?.values.count ?? 0;
  const seconds = Math.max(1, Math.ceil(run.run.transfers / run.run.tps));
  const cpuPercent = {};
  for (const [name, percent] of Object.entries(run.cpu)) {
    // Replicas (api-adapter-0, api-adapter-1) add up to their component.
    const component = name.replace(/-\d+$/, '');
    cpuPercent[component] = (cpuPercent[component] ?? 0) + percent;
  }
  return { name: run.run.name, rate: completed / seconds, cpuPercent };
}

/**
 * Per component, the CPU ms each iteration adds (`marginalMs`) and the CPU % a process
 * spends whatever the rate (`fixedPercent`: polling, timers, metrics): a line through two
 * runs at different rates, or through the origin when there is only one.
 */
export function costModel(low, high = null) {
  const model = {};
  for (const name of Object.keys((high ?? low).cpuPercent)) {
    if (!high) {
      model[name] = { marginalMs: ((low.cpuPercent[name] ?? 0) * 10) / low.rate, fixedPercent: 0 };
      continue;
    }
    const slope = ((high.cpuPercent[name] ?? 0) - (low.cpuPercent[name] ?? 0)) / (high.rate - low.rate);
    const marginalMs = Math.max(0, slope * 10);
    model[name] = { marginalMs, fixedPercent: Math.max(0, (high.cpuPercent[name] ?? 0) - (marginalMs * high.rate) / 10) };
  }
  return model;
}

// A run whose processes used this share of the machine's cores had no headroom: its CPU is
// whatever the cores had left, not what the rate asked for.
const SATURATED_SHARE = 0.9;

/** Whether `run` used at least SATURATED_SHARE of `cores` (its CPU % of one core, added up). */
function isSaturated(run, cores) {
  const totalPercent = Object.values(run.cpuPercent).reduce((sum, percent) => sum + percent, 0);
  return totalPercent >= SATURATED_SHARE * cores * 100;
}

/**
 * The runs a fit may use. A line through two runs needs the CPU to follow the rate; on a
 * saturated machine it stays at the cores' total whatever the rate, so the fit would put
 * every cost into the fixed term and none into the iteration (a plan of no replicas). With a
 * saturated run among two, the model is taken through the origin from the lower-rate run,
 * whose cost per iteration is the higher of the two; `note` says so.
 */
export function runsToFit(runs, cores) {
  const sorted = [...runs].sort((a, b) => a.rate - b.rate);
  if (sorted.length < 2) return { low: sorted[0], high: null, note: null };
  const saturated = sorted.filter((run) => isSaturated(run, cores)).map((run) => run.name);
  if (saturated.length === 0) return { low: sorted[0], high: sorted[1], note: null };
  return { low: sorted[0], high: null, note: `${saturated.join(' and ')} used ${Math.round(SATURATED_SHARE * 100)} % or more of ${cores} cores: no fit through two runs, the model is ${sorted[0].name} through the origin` };
}

/** CPU % of one core the model predicts for a component at `rate` with `replicas` processes. */
export const predictedPercent = ({ marginalMs, fixedPercent }, rate, replicas = 1) => replicas * fixedPercent + (marginalMs * rate) / 10;

const roundUpTo = (value, step) => Math.ceil(value / step) * step;

function smallestFitting(vcpusByType, vcpusNeeded) {
  const fitting = Object.entries(vcpusByType).find(([, vcpus]) => vcpus * SHARED_CPU_PLANNED >= vcpusNeeded);
  return fitting ?? Object.entries(vcpusByType).at(-1);
}

/**
 * The fewest MSK brokers (in threes, one per availability zone) of the smallest type whose
 * planned share of CPU carries `vcpuNeeded`.
 */
function mskCluster(vcpuNeeded) {
  for (let brokers = 3; ; brokers += 3) {
    const fitting = Object.entries(MSK_BROKER_VCPUS).find(([, vcpus]) => brokers * vcpus * SHARED_CPU_PLANNED >= vcpuNeeded);
    if (fitting) return { brokers, brokerType: fitting[0] };
  }
}

/** The plan for `tps`: per component vCPU and replicas, topic partitions, MSK and RDS. */
export function plan({ costs, load, rate }, tps) {
  const components = SWITCH_COMPONENTS.filter((name) => costs[name] !== undefined).map((name) => {
    const cost = costs[name];
    // Replicas first from the marginal work, then the fixed cost of each replica on top.
    const replicasMin = REPLICAS_MIN_OF[name] ?? REPLICAS_MIN;
    const replicas = Math.max(replicasMin, Math.ceil(((COST_SAFETY_FACTOR * tps * cost.marginalMs) / 1000) / POD_VCPU_PLANNED));
    const vcpu = (COST_SAFETY_FACTOR * predictedPercent(cost, tps, replicas)) / 100;
    return { name, msPerIteration: cost.marginalMs, vcpu, replicas: Math.max(replicas, Math.ceil(vcpu / POD_VCPU_PLANNED)) };
  });
  const partitions = {};
  for (const { name, replicas } of components) {
    for (const topic of CONSUMED_TOPICS[name] ?? []) partitions[topic] = Math.max(PARTITIONS_MIN, roundUpTo(2 * replicas, 6));
  }
  const podVcpus = components.reduce((sum, { replicas }) => sum + replicas * POD_VCPU_PLANNED, 0);
  // Followers copy every record, so the cluster does about REPLICATION_FACTOR times the
  // single broker's work measured here.
  const kafkaVcpu = (COST_SAFETY_FACTOR * predictedPercent(costs.kafka ?? { marginalMs: 0, fixedPercent: 0 }, tps) * REPLICATION_FACTOR) / 100;
  const { brokers, brokerType } = mskCluster(kafkaVcpu);
  const mysqlVcpu = (COST_SAFETY_FACTOR * predictedPercent(costs.mariadb ?? { marginalMs: 0, fixedPercent: 0 }, tps)) / 100;
  const [rdsType] = smallestFitting(RDS_VCPUS, mysqlVcpu);
  const loadRate = load?.rate ?? rate;
  const perIteration = load ? {
    kafkaRecords: load.kafka.records / loadRate, kafkaBytes: load.kafka.logBytes / loadRate,
    commits: load.db.Com_commit / loadRate, statements: load.db.Questions / loadRate, redoBytes: load.db.Innodb_os_log_written / loadRate,
  } : null;
  return { tps, components, partitions, podVcpus, kafka: { vcpu: kafkaVcpu, brokers, brokerType }, mysql: { vcpu: mysqlVcpu, rdsType }, perIteration };
}

const fixed = (value, digits = 2) => Number(value).toFixed(digits);

export function planMarkdown(p) {
  const lines = [`### ${p.tps} TPS`, '', `| component | CPU ms/iteration | vCPU planned (× ${COST_SAFETY_FACTOR}) | replicas |`, '|---|---|---|---|'];
  for (const c of p.components) lines.push(`| ${c.name} | ${fixed(c.msPerIteration)} | ${fixed(c.vcpu, 1)} | ${c.replicas} |`);
  lines.push(`| **switch pods** | | **${fixed(p.podVcpus, 1)} vCPU requested** | ${p.components.reduce((sum, c) => sum + c.replicas, 0)} |`, '');
  lines.push(`Partitions: ${Object.entries(p.partitions).map(([topic, n]) => `${topic} ${n}`).join(', ')}.`, '');
  lines.push(`MSK: ${fixed(p.kafka.vcpu, 1)} vCPU of broker work (replication factor ${REPLICATION_FACTOR}) → ${p.kafka.brokers} × ${p.kafka.brokerType}.`);
  lines.push(`RDS: ${fixed(p.mysql.vcpu, 1)} vCPU of database work → ${p.mysql.rdsType} (Multi-AZ).`);
  if (p.perIteration) {
    const { kafkaRecords, kafkaBytes, commits, statements, redoBytes } = p.perIteration;
    lines.push(`Load at ${p.tps}/s: Kafka ${Math.round(p.tps * kafkaRecords)} records/s, ${fixed((p.tps * kafkaBytes * REPLICATION_FACTOR) / 1e6, 1)} MB/s written across replicas; MySQL ${Math.round(p.tps * commits)} commits/s, ${Math.round(p.tps * statements)} statements/s, ${fixed((p.tps * redoBytes) / 1e6, 1)} MB/s of redo log.`);
  }
  return lines.join('\n');
}

/** The model against a measured run: CPU % per component at that run's rate. */
export function checkMarkdown(costs, source, other) {
  const lines = [`Model (${source}) against ${other.name} at ${fixed(other.rate, 1)}/s, CPU % of one core:`, '', '| component | predicted | measured |', '|---|---|---|'];
  let predictedTotal = 0;
  let measuredTotal = 0;
  for (const [name, cost] of Object.entries(costs)) {
    const predicted = predictedPercent(cost, other.rate);
    const measured = other.cpuPercent[name] ?? 0;
    predictedTotal += predicted;
    measuredTotal += measured;
    lines.push(`| ${name} | ${Math.round(predicted)} | ${Math.round(measured)} |`);
  }
  lines.push(`| **total** | **${Math.round(predictedTotal)}** | **${Math.round(measuredTotal)}** |`);
  return lines.join('\n');
}

// EKS's Service CIDR when the cluster was made without one and its VPC is outside 10.0.0.0/8
// (172.20.0.0/16 otherwise): where the load test's simulators, the DFSPs of its run, are.
export const EKS_SERVICE_CIDR = '10.100.0.0/16';

/**
 * A values file for `p`: replicas (HPA floors), partitions, and the load test that verifies it,
 * whose simulators are reached in `serviceCidr` (the callbacks may go there and nowhere else
 * private) and present client certificates from the scheme's CA to the edges.
 */
export function valuesYaml(p, source, { serviceCidr = EKS_SERVICE_CIDR } = {}) {
  const lines = [`# ${p.tps} TPS on EKS, derived by perf/capacity.js from ${source} (perf/CAPACITY.md).`,
    '# Use with values-eks.yaml (MSK and RDS settings): helm upgrade --install ... -f values-eks.yaml -f this file.',
    '# The load test\'s simulators are its DFSPs, behind their Service: callbacks may reach the',
    '# cluster\'s Service CIDR (kubectl get svc kubernetes -n default shows an address in it).',
    'config:', `  CALLBACK_ALLOWED_CIDRS: "${serviceCidr}"`,
    'kafka:', '  topics:', '    partitions:'];
  for (const [topic, n] of Object.entries(p.partitions)) lines.push(`      ${topic}: ${n}`);
  lines.push('components:');
  for (const c of p.components) {
    const maxReplicas = Math.max(c.replicas * 2, 3);
    lines.push(`  ${c.name}:`, `    replicas: ${c.replicas}`, `    resources: {requests: {cpu: ${Math.round(POD_VCPU_PLANNED * 1000)}m, memory: 256Mi}, limits: {memory: 512Mi}}`);
    if (!['admin-api', 'account-lookup-admin', 'timeout'].includes(c.name)) lines.push(`    autoscaling: {enabled: true, minReplicas: ${c.replicas}, maxReplicas: ${maxReplicas}}`);
  }
  const simulatorVcpus = Math.ceil((p.tps * 1.0) / 250);
  lines.push('# The run that verifies it: discovery → quote → transfer at the rate, for 10 minutes,', '# then the validity gate against the in-cluster database (charts/README.md, the load test).',
    'loadTest:', '  enabled: true', `  tps: ${p.tps}`, `  transfers: ${p.tps * 600}`, '  mode: full', '  dfsps: 8',
    '  simulators:', `    workers: ${Math.max(2, simulatorVcpus * 2)}`, `    resources: {requests: {cpu: "${simulatorVcpus}", memory: 1Gi}, limits: {memory: 2Gi}}`,
    '    # perffsp1…8\'s client certificates from the scheme\'s CA, and that CA (charts/README.md, "In-cluster load test").',
    '    clientCertificatesSecret: fspiop-loadtest-tls',
    '  k6:', `    parallelism: ${Math.max(1, Math.ceil(p.tps / 500))}`);
  return `${lines.join('\n')}\n`;
}

async function main() {
  const { values } = parseArgs({ options: {
    run: { type: 'string', multiple: true }, load: { type: 'string' }, tps: { type: 'string', default: '500,1000,2000' },
    check: { type: 'string', multiple: true }, 'values-tps': { type: 'string' }, 'values-out': { type: 'string' },
    cores: { type: 'string', default: String(availableParallelism()) }, 'service-cidr': { type: 'string', default: EKS_SERVICE_CIDR },
  } });
  if (!values.run?.length) throw new Error('--run perf/results/<run> is required (twice, at two rates, for the fixed cost per process)');
  const { low, high, note } = runsToFit(values.run.map(measuredRun), Number(values.cores));
  if (note) process.stdout.write(`Note: ${note}.\n\n`);
  const runs = high ? [low, high] : [low];
  const costs = costModel(low, high);
  const source = runs.map((run) => `${run.name}, ${fixed(run.rate, 1)}/s`).join(' and ');
  const load = values.load ? JSON.parse(readFileSync(values.load, 'utf8')) : null;
  const model = { costs, load, rate: runs.at(-1).rate };
  process.stdout.write(`Cost model from ${source}:\n\n| component | CPU ms per iteration | fixed CPU % per process |\n|---|---|---|\n`);
  for (const [name, cost] of Object.entries(costs)) process.stdout.write(`| ${name} | ${fixed(cost.marginalMs)} | ${fixed(cost.fixedPercent, 1)} |\n`);
  process.stdout.write('\n');
  for (const other of values.check ?? []) process.stdout.write(`${checkMarkdown(costs, source, measuredRun(other))}\n\n`);
  for (const tps of values.tps.split(',').map(Number)) process.stdout.write(`${planMarkdown(plan(model, tps))}\n\n`);
  if (values['values-out']) writeFileSync(values['values-out'], valuesYaml(plan(model, Number(values['values-tps'] ?? 1000)), source, { serviceCidr: values['service-cidr'] }));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
