// The fault campaign under load (`make chaos`, issue #12): one short k6 run per fault at the
// sustained rate (perf/run.js, discovery → quote → transfer), the fault injected after a warm
// phase, then the validity gate of that run alone, so each fault has a verdict of its own:
// nothing lost, nothing applied twice, every transfer final, money conserved.
//   node perf/chaos.js [--tps 45] [--only kill-position,kafka-restart] [--skip-poison]
//                      [--slow <share> [--slow-by auto|cgroup|competitor]] [--short]
//                      [--profile separate|compact]
//
// --profile compact runs the switch as the compact profile does (scripts/services-compact.conf,
// scripts/compact-host.js): a fault that names a component acts on the process that hosts it,
// so kill-position SIGKILLs the ledger-handlers host and prepare, position, fulfil, timeout and
// bulk go down together and must all recover; the row says which process and which components
// it took down. The gates are the same in both profiles.
//
// --short is the campaign CI runs (`make chaos-short`, .ci/run): SIGKILL of the position
// handler, a Kafka restart and a MariaDB restart at SHORT_TPS, and a row that does not come
// back to 90 % of the rate within the run (SHORT_AFTER_S after the fault) fails as well as
// one whose gate fails, so that a change that leaves the switch stalled after a fault cannot
// pass. The process exits non-zero if any row fails.
//
// --slow <share> runs the whole campaign on a machine made slower on purpose: that share of
// the CPU taken from the switch, by a cgroup quota on its processes or, where no cgroup can
// be written, by competitor processes (perf/slowdown.js says how, and the campaign prints
// which was applied). Whatever ends the campaign (its end, an error, SIGINT or SIGTERM), the
// cgroup is removed and the competitors stopped.
//
// The campaign restarts Kafka and MariaDB, so it runs on a broker and a database of its own
// (scripts/infra-up.sh with RUN_DIR=.run/chaos, ports 3317 and 9292/9293 by default), never on
// the ones `make up` and the tests share; the switch is a fresh one on them (perf/run.js
// freshTarget): a database and topic prefix of its own, every component a child process.
// A component that exits, killed by a fault or ending itself because it could not make
// progress (a handler's consumer out of its group, say), is restarted the way Kubernetes
// restarts a crashed container: the same command, environment and port, after
// RESTART_DELAY_MS. Each row starts only once every component answers /health with 200, and
// injects its fault only once a payment of its own has completed, which it says; a switch
// that serves nothing in the warm phase is reported as such, the fault not injected. Every
// component's output is kept in the private logs directory (.run/chaos/logs).
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
import { readCompactHosts } from '../scripts/lib/services-conf.js';
import { probeFetch } from '../test/support/scheme-tls.js';
import { freePortRange } from '../scripts/lib/ports.js';
import { parseSlowShare, startSlowdown } from './slowdown.js';

const ROOT = new URL('..', import.meta.url).pathname;
const WARM_S = 10;
const AFTER_S = 30;
const RESTART_DELAY_MS = 3_000;
const OUTAGE_MS = 10_000;
const PAYEE_FAULT_MS = 30_000;
// How long a row waits for every component to be healthy, and, after the warm phase, for a
// first payment: longer than a handler takes to find itself stalled, exit and be restarted
// (HANDLER_EXIT_AFTER_MS, 60 s by default).
const HEALTHY_WAIT_MS = 120_000;
const SERVING_WAIT_MS = 20_000;
const RECOVERED_SHARE = 0.9;
const RECOVERY_WINDOW_S = 3;
const SHORT_FAULTS = ['kill-position', 'kafka-restart', 'mariadb-restart'];
const SHORT_TPS = 20;
// The short campaign fails a row that has not recovered by its end: the consumers' rejoin
// after a Kafka restart took 17–21 s on slow days, so its rows run longer after the fault.
const SHORT_AFTER_S = 45;
// How the switch's components are grouped into processes: one each, or the compact profile's hosts.
const PROFILES = ['separate', 'compact'];

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

/** A running process's environment, which its restart reuses (port included). */
function environmentOf(child) {
  const environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(environ.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

/**
 * Restarts every component that exits while the campaign runs, as Kubernetes would (see the
 * top of this file), keeping the output of the process that ended in `logDir`. Returns
 * `{ restarts, close() }`: `restarts` maps a component to the promise of its last restart
 * answering /health; after close() nothing is restarted (the campaign stops the switch).
 */
function superviseComponents(target, { logDir, log }) {
  const supervisor = { restarts: new Map(), closing: false, close() { this.closing = true; } };
  const restart = async (key, { env, command }) => {
    await sleep(RESTART_DELAY_MS);
    if (supervisor.closing) return;
    const next = spawn(command[0], command.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    next.output = '';
    const keep = (chunk) => { next.output = (next.output + chunk).slice(-200_000); };
    next.stdout.on('data', keep);
    next.stderr.on('data', keep);
    // The harness finds a compact host's process by its own name and by each member's.
    const replica = key.slice(key.lastIndexOf('-') + 1);
    for (const name of new Set([key.slice(0, key.lastIndexOf('-')), ...target.members.get(key)])) target.sw.processes.set(`${name}-${replica}`, next);
    watch(key, next);
    // A compact host is back once every component it runs answers, each on its own port.
    for (const member of target.members.get(key)) await waitHealthy(`${target.sw.urlOf(member, Number(env.REPLICA_INDEX))}/health`, next);
  };
  const watch = (key, child) => {
    const launch = { env: environmentOf(child), command: child.spawnargs };
    child.once('exit', (code, signal) => {
      if (supervisor.closing) return;
      writeFileSync(`${logDir}/${key}-${child.pid}.log`, child.output ?? '');
      if (!child.killedByFault) log(`chaos: ${processName(target, key)} exited by itself (code ${code}, signal ${signal}); restarting it`);
      const restarted = restart(key, launch);
      restarted.catch((error) => log(`chaos: restarting ${key} failed: ${error.message.slice(0, 300)}`));
      supervisor.restarts.set(key, restarted);
    });
  };
  for (const [key, child] of target.sw.hostProcesses()) watch(key, child);
  return supervisor;
}

/** A process of the switch as the rows name it: `position-0`, or `ledger-handlers-0 (prepare, position, …)` for a compact host. */
function processName(target, key) {
  const members = target.members.get(key) ?? [];
  return members.length === 1 && key.startsWith(`${members[0]}-`) ? key : `${key} (${members.join(', ')})`;
}

/** The process that runs `component`'s first replica: its own, or the compact host it is a member of. */
export function processOfComponent(members, component) {
  const found = [...members].find(([key, hosted]) => hosted.includes(component) && key.endsWith('-0'));
  if (!found) throw new Error(`no process runs ${component}`);
  return found[0];
}

/**
 * SIGKILL of the process that runs `component`, and with it of every component it hosts;
 * resolves once the supervisor's restart answers /health for each of them, to what it took
 * down: `{ detail, process, tookDown }`.
 */
async function killAndRestart(target, component) {
  const key = processOfComponent(target.members, component);
  const child = target.sw.processes.get(key);
  const { pid } = child;
  child.killedByFault = true;
  child.kill('SIGKILL');
  if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
  await target.supervisor.restarts.get(key);
  const tookDown = target.members.get(key);
  return { detail: `took down ${processName(target, key)}, pid ${pid}`, process: key, tookDown };
}

/** What does not answer /health with 200 after `timeoutMs` (nothing once every component does). */
async function unhealthyComponents(target, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const unhealthy = [];
    for (const [key, url] of Object.entries(target.metricsUrls)) {
      try {
        const response = await probeFetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
        if (response.status !== 200) unhealthy.push(`${key}: ${(await response.text()).slice(0, 300)}`);
      } catch (error) {
        unhealthy.push(`${key}: ${error.message}`);
      }
    }
    if (unhealthy.length === 0 || Date.now() > deadline) return unhealthy;
    await sleep(1000);
  }
}

const committedTransfers = async (target) => Number((await target.db('transfer').where({ state: 'COMMITTED' }).count({ n: '*' }))[0].n);

/** How many payments were committed since the count was `before`, waiting up to `timeoutMs` for a first one. */
async function paymentsServed(target, before, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const served = (await committedTransfers(target).catch(() => before)) - before;
    if (served > 0 || Date.now() > deadline) return served;
    await sleep(500);
  }
}

/** Every fault of the campaign: `{ name, label, seconds (its expected length), inject(context) }`. */
export function campaignFaults({ skipPoison = false, profile = 'separate' } = {}) {
  // In the compact profile a kill names a component and takes down the process that hosts it,
  // every other component of that host with it.
  const hostOf = (name) => (profile === 'compact' ? [...readCompactHosts()].find(([, members]) => members.includes(name))?.[0] : undefined);
  const killed = (name) => (hostOf(name) ? `SIGKILL ${name}'s host ${hostOf(name)}` : `SIGKILL ${name}`);
  const kills = ['prepare', 'position', 'fulfil', 'notification', 'timeout', 'quoting-handler', 'api-adapter', 'quoting', 'account-lookup']
    .map((name) => ({ name: `kill-${name}`, label: `${killed(name)}, restarted after ${RESTART_DELAY_MS / 1000} s`, seconds: 8, inject: ({ target }) => killAndRestart(target, name) }));
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

/**
 * One k6 run with one fault: warm phase, the fault, then `afterS` seconds. The fault is
 * injected only once a payment of this run has completed.
 */
async function runFault(target, fault, { tps, afterS, infraEnv, ports, requireRecovery, log }) {
  const durationS = WARM_S + fault.seconds + afterS;
  const marks = [];
  const committedBefore = await committedTransfers(target);
  const during = async ({ env }) => {
    await sleep(WARM_S * 1000);
    const served = await paymentsServed(target, committedBefore, SERVING_WAIT_MS);
    if (served === 0) return { marks, startMs: Date.now(), endMs: Date.now(), notServing: true, detail: 'no payment completed in the warm phase: fault not injected' };
    log(`chaos: the switch is serving (${served} payments completed in the warm phase); injecting ${fault.name}`);
    const startMs = Date.now();
    marks.push({ at: startMs, label: `${fault.name} start`, kind: 'start' });
    // A failed injection is reported in the row; the run and its gate still count.
    const injected = await fault.inject({ target, env, infraEnv, log }).catch((error) => `injection failed: ${error.message}`);
    const endMs = Date.now();
    marks.push({ at: endMs, label: `${fault.name} end`, kind: 'end' });
    if (injected?.tookDown) log(`chaos: ${fault.name} ${injected.detail}`);
    return { marks, startMs, endMs, ...(typeof injected === 'object' && injected !== null ? injected : { detail: injected }) };
  };
  const result = await runPerf(target, { profile: 'load', mode: 'full', warmupSeconds: 0, tps, transfers: tps * durationS, name: `chaos-${fault.name}-${Date.now()}`, during, ...ports }, log);
  const metric = (name) => result.summary.metrics[name]?.values.count ?? 0;
  const completed = metric('completed_transactions');
  const started = completed + metric('failed_transactions');
  const buckets = await readBuckets(result.k6Output);
  const figures = faultFigures(buckets, result.faults, tps);
  const reasons = result.faults.notServing ? ['the switch completed no payment before the fault'] : [...result.gate.reasons];
  if (requireRecovery && !result.faults.notServing && figures.recoverS === null) reasons.push(`completions not back to ${RECOVERED_SHARE * 100} % of the rate within the run`);
  const gate = { ...result.gate, pass: reasons.length === 0, reasons };
  return {
    name: fault.name, label: fault.label, dir: result.dir, completed, started, dropped: metric('dropped_iterations'), success: started ? completed / started : 0,
    faultS: (result.faults.endMs - result.faults.startMs) / 1000, ...figures, gate,
    ...(result.faults.tookDown ? { process: result.faults.process, tookDown: result.faults.tookDown } : {}),
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

/** A row: the switch healthy first (or the row says what is not), then runFault. */
async function runRow(target, fault, options) {
  const pending = (reason) => ({ name: fault.name, label: fault.label, pending: reason.slice(0, 300), completed: 0, started: 0, success: 0, recoverS: null });
  const unhealthy = await unhealthyComponents(target, HEALTHY_WAIT_MS);
  if (unhealthy.length > 0) return pending(`switch not healthy before the fault: ${unhealthy.join('; ')}`);
  return runFault(target, fault, options).catch((error) => pending(error.message));
}

/** The campaign's options from the command line (see the top of this file). */
export function campaignOptions(args) {
  const { values } = parseArgs({
    args,
    options: {
      tps: { type: 'string' }, only: { type: 'string' }, 'skip-poison': { type: 'boolean', default: false },
      slow: { type: 'string' }, 'slow-by': { type: 'string', default: 'auto' }, short: { type: 'boolean', default: false },
      profile: { type: 'string', default: 'separate' },
    },
  });
  if (!PROFILES.includes(values.profile)) throw new Error(`--profile must be one of ${PROFILES.join(', ')}`);
  const only = values.only?.split(',') ?? (values.short ? SHORT_FAULTS : undefined);
  const faults = campaignFaults({ skipPoison: values['skip-poison'] || values.short, profile: values.profile }).filter((fault) => !only || only.includes(fault.name));
  const unknown = (only ?? []).filter((name) => !faults.some((fault) => fault.name === name));
  if (unknown.length > 0) throw new Error(`no such fault: ${unknown.join(', ')}`);
  return {
    tps: Number(values.tps ?? (values.short ? SHORT_TPS : 45)), afterS: values.short ? SHORT_AFTER_S : AFTER_S, faults, requireRecovery: values.short, profile: values.profile,
    slow: values.slow === undefined ? null : { share: parseSlowShare(values.slow), method: values['slow-by'] },
  };
}

async function main() {
  const { tps, afterS, faults, requireRecovery, slow, profile } = campaignOptions(process.argv.slice(2));
  const infraEnv = chaosInfraEnv();
  const log = (line) => process.stdout.write(`${line}\n`);
  const campaign = `${ROOT}perf/results/chaos-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}`;
  mkdirSync(campaign, { recursive: true });
  const startedMs = Date.now();
  log(`chaos: ${faults.length} faults at ${tps}/s, ${profile} profile; private MariaDB ${infraEnv.DB_PORT} and Kafka ${infraEnv.KAFKA_PORT} in ${infraEnv.RUN_DIR}`);
  // Interrupted, the campaign still stops every process it started and undoes the slow-down;
  // `cleanups` runs in reverse order, once, from whichever comes first.
  const cleanups = [];
  const cleanUp = async () => {
    while (cleanups.length > 0) await cleanups.pop()().catch((error) => log(error.message));
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => { cleanUp().finally(() => process.exit(130)); });
  const rows = [];
  let slowdown = { description: 'not slowed' };
  try {
    cleanups.push(async () => {
      // The campaign's own broker and database are of no use to anyone else: stopped, data kept.
      await script(infraEnv, 'kafka.sh', 'stop').catch((error) => log(error.message));
      await script(infraEnv, 'mariadb.sh', 'stop').catch((error) => log(error.message));
    });
    await script(infraEnv, 'infra-up.sh');
    Object.assign(process.env, infraEnv);
    const target = await freshTarget('full', { profile });
    log(`chaos: processes of the switch: ${[...target.members.keys()].map((key) => processName(target, key)).join('; ')}`);
    target.supervisor = superviseComponents(target, { logDir: infraEnv.LOG_DIR, log });
    cleanups.push(async () => { target.supervisor.close(); await target.close(); });
    const shared = target.processes;
    target.processes = () => ({ ...shared(), mariadb: pidsMatching(`${infraEnv.RUN_DIR}/mariadb/data`), kafka: pidsMatching(`${infraEnv.RUN_DIR}/kafka/`) });
    if (slow) {
      slowdown = startSlowdown({ ...slow, pidsToSlow: () => Object.values(target.processes()).flat() });
      cleanups.push(async () => slowdown.stop());
    }
    log(`chaos: ${slowdown.description}`);
    // The simulators keep their ports from run to run: the DFSPs' endpoints, which the
    // notification handler caches for a minute, stay right.
    const ports = { simPort: await freePortRange(1, 7200), bridgePort: await freePortRange(2, 7300) };
    for (const fault of faults) {
      log(`\n=== chaos: ${fault.label} ===`);
      const row = await runRow(target, fault, { tps, afterS, infraEnv, ports, requireRecovery, log });
      rows.push(row);
      writeFileSync(`${campaign}/results.json`, JSON.stringify({ tps, profile, slowdown: slowdown.description, rows }, null, 2));
      writeFileSync(`${campaign}/results.md`, `${profile} profile, ${slowdown.description}, ${tps}/s\n\n${resultsTable(rows)}\n`);
      log(resultsTable([row]));
      for (const [key, child] of target.sw.hostProcesses()) writeFileSync(`${infraEnv.LOG_DIR}/${key}.log`, child.output ?? '');
    }
  } finally {
    await cleanUp();
  }
  const failed = faults.length - rows.filter((row) => row.gate?.pass).length;
  log(`\n${resultsTable(rows)}\n\n${profile} profile, ${slowdown.description}, ${tps}/s; ${((Date.now() - startedMs) / 60_000).toFixed(1)} min; ${failed === 0 ? 'every row passed' : `${failed} of ${faults.length} rows FAILED`}`);
  log(`per-run reports and charts: ${campaign} and perf/results/chaos-<fault>-*/`);
  process.exitCode = failed === 0 ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
