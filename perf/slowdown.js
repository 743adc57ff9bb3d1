// The fault campaign's slowed mode (`make chaos SLOW=0.5`, perf/chaos.js --slow): the switch
// made slower on purpose, so that the timing windows of a slow machine are tried deliberately
// rather than by luck of the day. The share is how much of the machine's CPU is taken away
// from the switch (0 < share < 1), by one of two means:
//   - cgroup (preferred): the switch's processes (its components, MariaDB and Kafka) in a CPU
//     cgroup of their own whose quota is (1 − share) × the machine's cores, cgroup v2 (cpu.max)
//     or v1 (cpu.cfs_quota_us), whichever this machine lets root write. Processes born later
//     (a restarted component, a restarted broker) are put in within a second. k6 and the
//     simulators stay outside: the load they offer is not slowed, only the switch serving it.
//   - competitor (when no cgroup is writable, or asked for): one process per core that keeps
//     that core busy for `share` of every 100 ms. It takes the CPU from everything, load
//     generator included, and what it takes depends on the scheduler; a quota does not.
// stop() undoes it: the cgroup's processes go back to their parent cgroup and the cgroup is
// removed, or the competitors are killed. It is synchronous, and also runs on the process's
// 'exit' (its end, process.exit from a signal handler, an error nothing caught); a process
// killed outright leaves competitors that exit by themselves (their IPC channel closes) and a
// cgroup that the next slowed campaign removes.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, setPriority } from 'node:os';

const CGROUP_PREFIX = 'fspiop-chaos-';
const PERIOD_US = 100_000;
const FOLLOW_INTERVAL_MS = 1000;
const COMPETITOR_NICE = -10;

/** The share given as text, checked: a number strictly between 0 and 1. */
export function parseSlowShare(text) {
  const share = Number(text);
  if (!(share > 0 && share < 1)) throw new Error(`--slow expects the share of CPU taken from the switch, between 0 and 1 exclusive (e.g. 0.5), not '${text}'`);
  return share;
}

/** The CPU quota in microseconds per PERIOD_US that leaves the switch (1 − share) of `cores`. */
export function quotaMicros(share, cores) {
  return Math.max(1000, Math.round((1 - share) * cores * PERIOD_US));
}

/** CPU controllers mounted on this machine, v2 first: `[{ version, root }]`. */
function cpuHierarchies() {
  const found = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const [before, after] = line.split(' - ');
    if (!after) continue;
    const mountPoint = before.split(' ')[4];
    const [type, , options = ''] = after.split(' ');
    if (type === 'cgroup2' && readFileOr(`${mountPoint}/cgroup.controllers`).split(' ').includes('cpu')) found.push({ version: 2, root: mountPoint });
    if (type === 'cgroup' && options.split(',').includes('cpu')) found.push({ version: 1, root: mountPoint });
  }
  return found.sort((a, b) => b.version - a.version);
}

function readFileOr(path, fallback = '') {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return fallback;
  }
}

/** Moves every process of `dir` to its parent cgroup, then removes `dir`. */
function removeCgroup(dir, root) {
  for (const pid of readFileOr(`${dir}/cgroup.procs`).split('\n').filter(Boolean)) {
    try {
      writeFileSync(`${root}/cgroup.procs`, pid);
    } catch { /* gone meanwhile */ }
  }
  try {
    rmdirSync(dir);
  } catch { /* still busy: the next campaign removes it */ }
}

/** Removes the cgroups that campaigns no longer running left behind (one killed with SIGKILL). */
function removeStaleCgroups(root) {
  for (const entry of readdirSync(root)) {
    if (entry.startsWith(CGROUP_PREFIX) && !existsSync(`/proc/${entry.slice(CGROUP_PREFIX.length)}`)) removeCgroup(`${root}/${entry}`, root);
  }
}

/** A cgroup with the quota, on the first hierarchy that lets us create one; null if none does. */
function createQuotaCgroup(share, cores) {
  const quota = quotaMicros(share, cores);
  for (const { version, root } of cpuHierarchies()) {
    const dir = `${root}/${CGROUP_PREFIX}${process.pid}`;
    try {
      removeStaleCgroups(root);
      if (version === 2 && !readFileOr(`${root}/cgroup.subtree_control`).split(' ').includes('cpu')) writeFileSync(`${root}/cgroup.subtree_control`, '+cpu');
      mkdirSync(dir);
      if (version === 2) writeFileSync(`${dir}/cpu.max`, `${quota} ${PERIOD_US}`);
      else {
        writeFileSync(`${dir}/cpu.cfs_period_us`, String(PERIOD_US));
        writeFileSync(`${dir}/cpu.cfs_quota_us`, String(quota));
      }
      const setting = version === 2 ? `cpu.max "${quota} ${PERIOD_US}"` : `cpu.cfs_quota_us ${quota} per cpu.cfs_period_us ${PERIOD_US}`;
      return { dir, root, description: `cgroup v${version} ${dir}: ${setting}` };
    } catch {
      if (existsSync(dir)) removeCgroup(dir, root);
    }
  }
  return null;
}

/** The source of one competitor: busy for `busyMs` of every PERIOD, gone when its parent is. */
const COMPETITOR = `
const busyMs = Number(process.argv.at(-1));
process.on('disconnect', () => process.exit(0));
const spin = () => { const until = Date.now() + busyMs; while (Date.now() < until); setTimeout(spin, ${PERIOD_US / 1000} - busyMs); };
spin();
`;

function startCompetitors(share, cores) {
  const busyMs = Math.round(share * (PERIOD_US / 1000));
  const children = Array.from({ length: cores }, () => spawn(process.execPath, ['-e', COMPETITOR, String(busyMs)], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] }));
  // At an ordinary priority a competitor only gets its fair share beside a busy switch, so
  // much less than `share`; a high one (root only) lets it take what it asks, every period.
  let priority = 'at nice 0 (not permitted to raise: it takes less than asked when the switch is busy)';
  try {
    for (const child of children) setPriority(child.pid, COMPETITOR_NICE);
    priority = `at nice ${COMPETITOR_NICE}`;
  } catch { /* not root: the ordinary priority, said in the description */ }
  for (const child of children) child.unref();
  return { children, description: `${cores} competitor processes (pids ${children.map((child) => child.pid).join(', ')}) ${priority}, each busy ${busyMs} ms of every ${PERIOD_US / 1000} ms` };
}

/**
 * Starts the slowed mode: `{ description, stop() }`. `pidsToSlow()` lists the switch's
 * processes (the cgroup follows it every second); `method` is 'auto' (cgroup if possible,
 * else competitors), 'cgroup' (fails if impossible) or 'competitor'.
 */
export function startSlowdown({ share, method = 'auto', pidsToSlow, cores = availableParallelism() }) {
  if (!['auto', 'cgroup', 'competitor'].includes(method)) throw new Error(`--slow-by expects auto, cgroup or competitor, not '${method}'`);
  const cgroup = method === 'competitor' ? null : createQuotaCgroup(share, cores);
  if (method === 'cgroup' && !cgroup) throw new Error('--slow-by cgroup: no CPU cgroup (v2 cpu.max or v1 cpu.cfs_quota_us) can be created here; run as root, or use --slow-by competitor');
  const header = `slowed: ${Math.round(share * 1000) / 10} % of ${cores} cores' CPU taken from the switch`;
  if (!cgroup) {
    const { children, description } = startCompetitors(share, cores);
    const stop = () => children.forEach((child) => child.kill('SIGKILL'));
    process.once('exit', stop);
    return { description: `${header} by ${description}${method === 'auto' ? ' (no CPU cgroup writable here)' : ''}`, stop };
  }
  const placed = new Set();
  const follow = () => {
    for (const pid of pidsToSlow()) {
      if (placed.has(pid)) continue;
      try {
        appendFileSync(`${cgroup.dir}/cgroup.procs`, String(pid));
        placed.add(pid);
      } catch { /* exited meanwhile */ }
    }
  };
  follow();
  const timer = setInterval(follow, FOLLOW_INTERVAL_MS);
  timer.unref();
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    removeCgroup(cgroup.dir, cgroup.root);
  };
  process.once('exit', stop);
  return { description: `${header} by a quota on its components, MariaDB and Kafka: ${cgroup.description}`, stop };
}
