// The fault campaign under load (`make chaos`, issue #12): one short k6 run per fault at the
// sustained rate (perf/run.js, discovery → quote → transfer), the fault injected after a warm
// phase, then the validity gate of that run alone, so each fault has a verdict of its own:
// nothing lost, nothing applied twice, every transfer final, money conserved.
//   node perf/chaos.js [--tps 45] [--only kill-position,kafka-restart] [--skip-poison]
//
// The campaign restarts Kafka and MariaDB, so it runs on a broker and a database of its own
// (scripts/infra-up.sh with RUN_DIR=.run/chaos, ports 3317 and 9292/9293 by default), never on
// the ones `make up` and the tests share; the switch is a fresh one on them (perf/run.js
// freshTarget): a database and topic prefix of its own, every component a child process.
// A killed component is restarted the way Kubernetes restarts a crashed container: the same
// command, environment and port, after RESTART_DELAY_MS.
//
// Per fault the table shows: success (completed of the iterations k6 started; k6 does not
// start an iteration when all its VUs are busy waiting, shown as not started), time to
// recover (seconds from the fault's end until completions over a 3-s window are back to at
// least 90 % of the rate), e2e p95 of the iterations that completed from the fault's start
// until then, and the gate.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { freshTarget, pidsMatching, runPerf } from './run.js';
import { readBuckets } from './report.js';
import { poisonFaults, setPayeeFault } from './chaos-poison.js';
import { COMPONENTS } from '../test/support/switch.js';
import { probeFetch } from '../test/support/scheme-tls.js';
import { freePortRange } from '../scripts/lib/ports.js';

const ROOT = new URL('..', import.meta.url).pathname;
const WARM_S = 10;
const AFTER_S = 30;
const RESTART_DELAY_MS = 3_000;
const OUTAGE_MS = 10_000;
const PAYEE_FAULT_MS = 30_000;
const RECOVERED_SHARE = 0.9;
const RECOVERY_WINDOW_S = 3;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The private infrastructure's settings (overridable from the environment). */
export function chaosInfraEnv(env = process.env) {
  const runDir = env.CHAOS_RUN_DIR ?? `${ROOT}.run/chaos`;
  const kafkaPort = env.CHAOS_KAFKA_PORT ?? '9292';
  return {
    RUN_DIR: runDir, LOG_DIR: `${runDir}/logs`, PID_DIR: `${runDir}/pids`, DB_PORT: env.CHAOS_DB_PORT ?? '3317', DB_BUFFER_POOL_SIZE: '256M',
    KAFKA_PORT: kafkaPort, KAFKA_CONTROLLER_PORT: env.CHAOS_KAFKA_CONTROLLER_PORT ?? '9293', KAFKA_BROKERS: `127.0.0.1:${kafkaPort}`,
  };
}

/** Runs one of the runtime's scripts (scripts/<script>) on the private infrastructure. */
async function script(infraEnv, ...args) {
  const child = spawn('bash', args.map((arg, index) => (index === 0 ? `${ROOT}scripts/${arg}` : arg)), { env: { ...process.env, ...infraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`scripts/${args.join(' ')} exited with ${code}: ${output.slice(-2000)}`);
}

async function waitHealthy(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: restarted process exited: ${child.output.slice(-2000)}`);
    try {
      if ((await probeFetch(url, { signal: AbortSignal.timeout(1000) })).status === 200) return;
    } catch { /* not yet */ }
    await sleep(200);
  }
  throw new Error(`${url} not healthy after restart`);
}

/**
 * SIGKILL of one component, then its restart as Kubernetes does it: the same entry point,
 * environment and port (read from the killed process), after a delay. Resolves once the
 * new process answers /health.
 */
async function killAndRestart(target, key) {
  const child = target.sw.processes.get(key);
  const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0').filter(Boolean);
  const env = Object.fromEntries(environ.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
  child.kill('SIGKILL');
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  await sleep(RESTART_DELAY_MS);
  const next = spawn(process.execPath, [COMPONENTS[env.SERVICE_NAME]], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  next.output = '';
  const keep = (chunk) => { next.output = (next.output + chunk).slice(-20_000); };
  next.stdout.on('data', keep);
  next.stderr.on('data', keep);
  target.sw.processes.set(key, next);
  await waitHealthy(`${target.sw.urlOf(env.SERVICE_NAME, Number(env.REPLICA_INDEX))}/health`, next);
}

/** Every fault of the campaign: `{ name, label, seconds (its expected length), inject(context) }`. */
export function campaignFaults({ skipPoison = false } = {}) {
  const kills = ['prepare', 'position', 'fulfil', 'notification', 'timeout', 'quoting-handler', 'api-adapter', 'quoting', 'account-lookup']
    .map((name) => ({ name: `kill-${name}`, label: `SIGKILL ${name}, restarted after ${RESTART_DELAY_MS / 1000} s`, seconds: 8, inject: ({ target }) => killAndRestart(target, `${name}-0`) }));
  const outages = [
    { name: 'kafka-restart', label: `Kafka broker stopped ${OUTAGE_MS / 1000} s, started again`, seconds: 25, service: 'kafka.sh' },
    { name: 'mariadb-restart', label: `MariaDB stopped ${OUTAGE_MS / 1000} s, started again`, seconds: 20, service: 'mariadb.sh' },
  ].map((fault) => ({
    ...fault,
    inject: async ({ infraEnv }) => {
      await script(infraEnv, fault.service, 'stop');
      await sleep(OUTAGE_MS);
      await script(infraEnv, fault.service, 'start');
    },
  }));
  const payees = [
    { name: 'payee-silent', label: `payees stop answering for ${PAYEE_FAULT_MS / 1000} s`, mode: 'silent' },
    { name: 'payee-500', label: `payees answer 500 for ${PAYEE_FAULT_MS / 1000} s`, mode: 'error' },
  ].map((fault) => ({
    ...fault, seconds: PAYEE_FAULT_MS / 1000,
    inject: async ({ env }) => {
      await setPayeeFault(env, fault.mode, PAYEE_FAULT_MS);
      await sleep(PAYEE_FAULT_MS);
      await setPayeeFault(env, 'none');
    },
  }));
  // Poison last: until dead letters are in place a poison message blocks its partition.
  return [...kills, ...outages, ...payees, ...(skipPoison ? [] : poisonFaults())];
}

/**
 * Recovery and latency of one fault from k6's per-second series: the first second after
 * the fault's end from which completions over RECOVERY_WINDOW_S seconds average at least
 * RECOVERED_SHARE of the rate (null: not within the run), and the e2e p95 of what completed
 * from the fault's start until then.
 */
export function faultFigures(buckets, { startMs, endMs }, tps) {
  const seconds = [...buckets.keys()].sort((a, b) => a - b);
  const completedAt = (second) => buckets.get(second)?.completed ?? 0;
  const endSecond = Math.floor(endMs / 1000);
  let recoveredSecond = null;
  for (let second = endSecond; second + RECOVERY_WINDOW_S - 1 <= (seconds.at(-1) ?? 0); second += 1) {
    let sum = 0;
    for (let offset = 0; offset < RECOVERY_WINDOW_S; offset += 1) sum += completedAt(second + offset);
    if (sum / RECOVERY_WINDOW_S >= RECOVERED_SHARE * tps) {
      recoveredSecond = second;
      break;
    }
  }
  const until = Math.max(recoveredSecond ?? seconds.at(-1) ?? endSecond, endSecond);
  const e2e = seconds.filter((second) => second >= Math.floor(startMs / 1000) && second <= until).flatMap((second) => buckets.get(second).e2e).sort((a, b) => a - b);
  const p95 = e2e.length ? e2e[Math.min(e2e.length - 1, Math.floor(0.95 * e2e.length))] : null;
  return { recoverS: recoveredSecond === null ? null : Math.max(0, recoveredSecond - endMs / 1000), p95Ms: p95 };
}

/** One k6 run with one fault: warm phase, the fault, then AFTER_S seconds. */
async function runFault(target, fault, { tps, infraEnv, ports, log }) {
  const durationS = WARM_S + fault.seconds + AFTER_S;
  const marks = [];
  const during = async ({ env }) => {
    await sleep(WARM_S * 1000);
    const startMs = Date.now();
    marks.push({ at: startMs, label: `${fault.name} start`, kind: 'start' });
    // A failed injection is reported in the row; the run and its gate still count.
    const detail = await fault.inject({ target, env, infraEnv, log }).catch((error) => `injection failed: ${error.message}`);
    const endMs = Date.now();
    marks.push({ at: endMs, label: `${fault.name} end`, kind: 'end' });
    return { marks, startMs, endMs, detail };
  };
  const result = await runPerf(target, { profile: 'load', mode: 'full', warmupSeconds: 0, tps, transfers: tps * durationS, name: `chaos-${fault.name}-${Date.now()}`, during, ...ports }, log);
  const metric = (name) => result.summary.metrics[name]?.values.count ?? 0;
  const completed = metric('completed_transactions');
  const started = completed + metric('failed_transactions');
  const buckets = await readBuckets(result.k6Output);
  const figures = faultFigures(buckets, result.faults, tps);
  return {
    name: fault.name, label: fault.label, dir: result.dir, completed, started, dropped: metric('dropped_iterations'), success: started ? completed / started : 0,
    faultS: (result.faults.endMs - result.faults.startMs) / 1000, ...figures, gate: result.gate,
    detail: [result.faults.detail, deadLettered(result.gate)].filter(Boolean).join('; '),
  };
}

/** How many records the run put on dead-letter topics, if any. */
function deadLettered(gate) {
  const count = Object.entries(gate.details.kafkaDelta).filter(([topic]) => topic.includes('dead-letter')).reduce((sum, [, n]) => sum + n, 0);
  return count > 0 ? `${count} dead-lettered` : '';
}

const fixed = (value, digits = 0) => (value === null || value === undefined ? '—' : Number(value).toFixed(digits));

/** The results table in Markdown. */
export function resultsTable(rows) {
  const lines = ['| fault | lasted s | success | completed / started (not started) | recovered after s | e2e p95 during ms | gate |', '|---|---|---|---|---|---|---|'];
  for (const row of rows) {
    const gate = row.pending ? `pending: ${row.pending}` : row.gate.pass ? 'PASS' : `**FAIL**: ${row.gate.reasons.join('; ')}`;
    const recovered = row.recoverS === null ? 'not within the run' : fixed(row.recoverS);
    lines.push(`| ${row.label}${row.detail ? ` (${row.detail})` : ''} | ${fixed(row.faultS, 1)} | ${fixed(row.success * 100, 1)} % | ${row.completed} / ${row.started} (${row.dropped ?? 0}) | ${recovered} | ${fixed(row.p95Ms)} | ${gate} |`);
  }
  return lines.join('\n');
}

async function main() {
  const { values } = parseArgs({ options: { tps: { type: 'string', default: '45' }, only: { type: 'string' }, 'skip-poison': { type: 'boolean', default: false } } });
  const tps = Number(values.tps);
  const only = values.only?.split(',');
  const faults = campaignFaults({ skipPoison: values['skip-poison'] }).filter((fault) => !only || only.includes(fault.name));
  const infraEnv = chaosInfraEnv();
  const log = (line) => process.stdout.write(`${line}\n`);
  const campaign = `${ROOT}perf/results/chaos-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}`;
  mkdirSync(campaign, { recursive: true });
  log(`chaos: private MariaDB ${infraEnv.DB_PORT} and Kafka ${infraEnv.KAFKA_PORT} in ${infraEnv.RUN_DIR}`);
  await script(infraEnv, 'infra-up.sh');
  Object.assign(process.env, infraEnv);
  const target = await freshTarget('full');
  const shared = target.processes;
  target.processes = () => ({ ...shared(), mariadb: pidsMatching(`${infraEnv.RUN_DIR}/mariadb/data`), kafka: pidsMatching(`${infraEnv.RUN_DIR}/kafka/`) });
  // The simulators keep their ports from run to run: the DFSPs' endpoints, which the
  // notification handler caches for a minute, stay right.
  const ports = { simPort: await freePortRange(1, 7200), bridgePort: await freePortRange(2, 7300) };
  const rows = [];
  // Interrupted, the campaign still stops every process it started.
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => { target.close().finally(() => process.exit(130)); });
  try {
    for (const fault of faults) {
      log(`\n=== chaos: ${fault.label} ===`);
      const row = await runFault(target, fault, { tps, infraEnv, ports, log }).catch((error) => ({ name: fault.name, label: fault.label, pending: error.message.slice(0, 200), completed: 0, started: 0, success: 0, recoverS: null }));
      rows.push(row);
      writeFileSync(`${campaign}/results.json`, JSON.stringify(rows, null, 2));
      writeFileSync(`${campaign}/results.md`, `${resultsTable(rows)}\n`);
      log(resultsTable([row]));
    }
  } finally {
    await target.close();
    // The campaign's own broker and database are of no use to anyone else: stopped, data kept.
    await script(infraEnv, 'kafka.sh', 'stop').catch((error) => log(error.message));
    await script(infraEnv, 'mariadb.sh', 'stop').catch((error) => log(error.message));
  }
  log(`\n${resultsTable(rows)}\n\nper-run reports and charts: ${campaign} and perf/results/chaos-<fault>-*/`);
  process.exitCode = rows.every((row) => row.gate?.pass) ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
