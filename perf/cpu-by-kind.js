// Where the whole machine's CPU goes while a load runs, by process and by the kind of code
// running: the kernel (network stack, scheduling), JavaScript compiled by V8, V8's builtins
// and runtime (property look-ups, JSON, strings), its garbage collector, OpenSSL (TLS and JWS),
// librdkafka, Node's bindings, libc's allocator, the JVM. Each process's own CPU counters say
// how much a process spends; this says on what, which no profile of one process can: V8's own
// profiler samples wall time, so a process that waits to be scheduled on a full machine is
// charged to whatever it was doing when it was preempted.
//
// It samples every CPU with Linux perf (`perf record -e cpu-clock -a`, no call graphs, so the
// load is barely disturbed) for `--seconds`, then reads which process and which symbol each
// sample fell in. Needs `perf` (Debian: linux-perf) and root. Run it beside a load, say
// `make soak` or a rate search's steady phase; `--rate` (payments per second) turns shares of
// the machine into ms of CPU per payment.
//   node perf/cpu-by-kind.js [--seconds 30] [--rate 125] [--frequency 199] [--cpus 2]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/** A readable name for a process from its command line and directory: the component, host or tool it runs. */
export function processName(commandLine, directory = '/') {
  const [program, ...args] = commandLine;
  if (/mariadbd$/.test(program)) return 'MariaDB';
  if (/java$/.test(program)) return args.some((arg) => arg.includes('kafka')) ? 'Kafka' : 'java';
  if (/k6$/.test(program)) return 'k6';
  if (!/node$/.test(program)) return undefined;
  const scriptIndex = args.findIndex((arg) => arg.endsWith('.js'));
  if (scriptIndex === -1) return 'node';
  const script = relative(directory, resolve(directory, args[scriptIndex]));
  // A compact host is started with its components and their ports: `prepare=4201,position=4211`.
  if (script.endsWith('scripts/compact-host.js')) return args[scriptIndex + 1].split(',').map((component) => component.split('=')[0]).join('+');
  if (script.startsWith('perf/simulators/')) return 'simulators';
  return script.replace(/\/main\.js$/, '').replace(/\.js$/, '');
}

// Which kind of code a sample's symbol (and the object it is in) belongs to, tried in order.
const KINDS = Object.freeze([
  ['kernel', (dso) => dso === '[kernel.kallsyms]'],
  ['librdkafka', (dso) => /librdkafka|node-librdkafka/.test(dso)],
  ['JVM', (dso, symbol) => /libjvm|\[JIT\]/.test(dso) && /java|Kafka/.test(symbol.process)],
  ['JavaScript (compiled)', (dso) => /^\[JIT\]|perf-\d+\.map/.test(dso)],
  ['V8 garbage collector', (dso, { name }) => /Scaveng|MarkCompact|Marking|Sweeper|Evacuat|ConcurrentMarking|Heap::/.test(name)],
  ['V8 builtins', (dso, { name }) => name.startsWith('Builtins_')],
  ['V8 runtime', (dso, { name }) => name.startsWith('v8::')],
  ['OpenSSL (TLS, JWS)', (dso, { name }) => /^(ecp_|__ecp_|bn_|BN_|aes|AES|sha\d|SHA|EVP|ossl|OPENSSL|ssl|SSL|tls|gcm|ec_|EC_|ASN1|asn1|X509|x509|CRYPTO|OBJ_|rsaz|ChaCha|Poly)/i.test(name)],
  ['Node bindings, libuv, HTTP parser', (dso, { name }) => /^(node::|uv_|uv__|llhttp|napi_)/.test(name)],
  ['libc (allocator, copies)', (dso) => /^libc\.so|^libstdc\+\+|^\[vdso\]/.test(dso)],
  ['MariaDB, k6 (their own code)', (dso) => /^(mariadbd|k6)$/.test(dso)],
]);

export function kindOf(dso, symbol) {
  return KINDS.find(([, matches]) => matches(dso, symbol))?.[0] ?? 'other';
}

/** `{ threadId: process name }` of every thread running now. */
function threadNames() {
  const names = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const name = processName(readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean), readlinkSync(`/proc/${entry}/cwd`));
      if (name) for (const thread of readdirSync(`/proc/${entry}/task`)) names.set(Number(thread), name);
    } catch { /* gone */ }
  }
  return names;
}

/**
 * `[{ percent, tid, dso, name }]` from `perf report --sort pid,dso,sym -t '\t'` (perf's "pid"
 * is the thread's id; fields padded with spaces, a thread's name may hold one).
 */
export function parseReport(text) {
  const rows = [];
  for (const line of text.split('\n')) {
    const fields = line.split('\t').map((field) => field.trim());
    if (fields.length !== 4 || !fields[0].endsWith('%')) continue;
    const symbol = fields[3].match(/^\[[.k]\]\s+(.*)$/);
    rows.push({ percent: Number(fields[0].slice(0, -1)), tid: Number.parseInt(fields[1], 10), dso: fields[2], name: symbol ? symbol[1] : fields[3] });
  }
  return rows;
}

function report(data) {
  return execFileSync('perf', ['report', '-i', data, '--no-children', '--sort', 'pid,dso,sym', '--stdio', '-g', 'none', '--percent-limit', '0', '-t', '\t'], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, stdio: ['ignore', 'pipe', 'ignore'] });
}

function record({ seconds, frequency }) {
  const directory = mkdtempSync(join(tmpdir(), 'cpu-by-kind-'));
  const data = join(directory, 'perf.data');
  try {
    execFileSync('perf', ['record', '-q', '-e', 'cpu-clock', '-F', String(frequency), '-a', '-o', data, '--', 'sleep', String(seconds)], { stdio: 'ignore' });
    return report(data);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

// What is not the switch: the load generator and the services it runs on.
const NOT_THE_SWITCH = new Set(['idle', 'other processes', 'MariaDB', 'Kafka', 'java', 'k6', 'simulators', 'perf/run', 'node']);

/** Sums shares of all samples by process name, and by process name and kind. */
export function summarise(rows, names) {
  const byProcess = new Map();
  const byKind = new Map();
  const switchByKind = new Map();
  const add = (map, key, percent) => map.set(key, (map.get(key) ?? 0) + percent);
  for (const { percent, tid, dso, name } of rows) {
    const processLabel = tid === 0 ? 'idle' : names.get(tid) ?? 'other processes';
    const kind = tid === 0 ? 'idle' : kindOf(dso, { name, process: processLabel });
    add(byProcess, processLabel, percent);
    add(byKind, `${processLabel}\t${kind}`, percent);
    if (!NOT_THE_SWITCH.has(processLabel)) add(switchByKind, kind, percent);
  }
  return { byProcess, byKind, switchByKind };
}

function format(value, { rate, cpus }) {
  const share = `${value.toFixed(1)} %`;
  // A share of all samples is a share of every CPU's time: cpus × 1000 ms per second.
  return rate ? `${share} | ${(value / 100 * cpus * 1000 / rate).toFixed(2)}` : share;
}

function main() {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '30' }, rate: { type: 'string' }, frequency: { type: 'string', default: '199' }, cpus: { type: 'string' }, from: { type: 'string' } },
  });
  const options = { rate: values.rate && Number(values.rate), cpus: Number(values.cpus ?? availableParallelism()) };
  const namesBefore = threadNames();
  // --from reads a perf.data recorded earlier (while the same processes still run).
  const text = values.from ? report(values.from) : record({ seconds: Number(values.seconds), frequency: Number(values.frequency) });
  const names = new Map([...namesBefore, ...threadNames()]);
  const { byProcess, byKind, switchByKind } = summarise(parseReport(text), names);
  const unit = options.rate ? ' | ms per payment' : '';
  const rule = (columns) => `|${'---|'.repeat(columns + (options.rate ? 1 : 0))}`;
  const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);
  console.log(`# ${options.cpus} CPUs${options.rate ? `, ${options.rate} payments/s` : ''}\n\n| process | share of the machine${unit} |\n${rule(2)}`);
  for (const [name, value] of sorted(byProcess)) console.log(`| ${name} | ${format(value, options)} |`);
  console.log(`\n| the switch's processes: kind of code | share of the machine${unit} |\n${rule(2)}`);
  for (const [kind, value] of sorted(switchByKind)) console.log(`| ${kind} | ${format(value, options)} |`);
  console.log(`\n| process | kind of code | share of the machine${unit} |\n${rule(3)}`);
  for (const [key, value] of sorted(byKind)) if (value >= 0.2) console.log(`| ${key.replace('\t', ' | ')} | ${format(value, options)} |`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
