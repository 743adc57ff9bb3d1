// The fault campaign's slowed mode (perf/slowdown.js) and its short preset (perf/chaos.js
// --short): the share is checked, the quota is what the share leaves, and whichever slow-down
// this machine allows, it is undone however the process ends: stop(), an error, or the
// process killed outright (then the competitors leave with it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { campaignOptions } from '../../perf/chaos.js';
import { parseSlowShare, quotaMicros, startSlowdown } from '../../perf/slowdown.js';
import { processRunning } from '../support/processes.js';

const SLOWDOWN = new URL('../../perf/slowdown.js', import.meta.url).href;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const cpuCgroupOf = (pid) => readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').find((line) => /^\d+:(cpu[,:]|:)/.test(line) || line.startsWith('0::'));
/** The cgroup directory or the competitors' pids the description names. */
const traces = (description) => ({ dir: description.match(/cgroup v\d (\S+):/)?.[1], pids: (description.match(/pids ([\d, ]+)\)/)?.[1] ?? '').split(', ').filter(Boolean).map(Number) });

async function gone({ dir, pids }) {
  for (let attempt = 0; attempt < 50 && ((dir && existsSync(dir)) || pids.some(processRunning)); attempt += 1) await sleep(100);
  assert.ok(!dir || !existsSync(dir), `${dir} removed`);
  assert.deepEqual(pids.filter(processRunning), [], 'no competitor left');
}

test('the share is a number strictly between 0 and 1, and the quota is what it leaves of the cores', () => {
  assert.equal(parseSlowShare('0.5'), 0.5);
  for (const bad of ['0', '1', '1.5', '-0.2', 'half', '']) assert.throws(() => parseSlowShare(bad), /between 0 and 1/);
  assert.equal(quotaMicros(0.5, 2), 100_000);
  assert.equal(quotaMicros(0.75, 4), 100_000);
});

test('the short campaign: position killed, Kafka and MariaDB restarted, at 20/s, recovery required', () => {
  const short = campaignOptions(['--short']);
  assert.deepEqual(short.faults.map((fault) => fault.name), ['kill-position', 'kafka-restart', 'mariadb-restart']);
  assert.equal(short.tps, 20);
  assert.equal(short.requireRecovery, true);
  assert.equal(short.afterS, 45);
  assert.equal(short.slow, null);
  assert.equal(campaignOptions(['--short', '--tps', '30', '--slow', '0.5']).tps, 30);
  assert.deepEqual(campaignOptions(['--slow', '0.5', '--slow-by', 'competitor']).slow, { share: 0.5, method: 'competitor' });
  const full = campaignOptions([]);
  assert.equal(full.tps, 45);
  assert.equal(full.requireRecovery, false);
  assert.equal(full.afterS, 30);
  assert.ok(full.faults.length > 10);
  assert.throws(() => campaignOptions(['--only', 'kill-nothing']), /no such fault: kill-nothing/);
});

test('whichever slow-down is applied, stop() puts the slowed process back and leaves nothing behind', async (t) => {
  const busy = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
  t.after(() => busy.kill('SIGKILL'));
  const before = cpuCgroupOf(busy.pid);
  const slowdown = startSlowdown({ share: 0.5, pidsToSlow: () => [busy.pid] });
  const { dir, pids } = traces(slowdown.description);
  assert.ok(dir || pids.length > 0, slowdown.description);
  if (dir) assert.notEqual(cpuCgroupOf(busy.pid), before, 'the slowed process is in the quota cgroup');
  slowdown.stop();
  slowdown.stop();
  assert.doesNotMatch(cpuCgroupOf(busy.pid), /fspiop-chaos-/, 'the slowed process is out of the quota cgroup');
  await gone({ dir, pids });
});

test('competitors asked for are used, and stop() ends them', async () => {
  const slowdown = startSlowdown({ share: 0.2, method: 'competitor', pidsToSlow: () => [], cores: 2 });
  const { pids } = traces(slowdown.description);
  assert.equal(pids.length, 2);
  assert.ok(pids.every(processRunning));
  assert.match(slowdown.description, /each busy 20 ms of every 100 ms/);
  slowdown.stop();
  await gone({ dir: undefined, pids });
});

for (const [ending, code] of [['an error nothing caught', 'throw new Error("campaign failed")'], ['SIGKILL', 'process.kill(process.pid, "SIGKILL")']]) {
  test(`a process that ends on ${ending} leaves no competitor behind`, async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', `
      import { startSlowdown } from ${JSON.stringify(SLOWDOWN)};
      const slowdown = startSlowdown({ share: 0.2, method: 'competitor', pidsToSlow: () => [] });
      process.stdout.write(slowdown.description + '\\n');
      setTimeout(() => { ${code}; }, 300);
    `], { stdio: ['ignore', 'pipe', 'ignore'] });
    let output = '';
    child.stdout.on('data', (chunk) => { output += chunk; });
    await once(child, 'exit');
    const { pids } = traces(output);
    assert.ok(pids.length > 0, output);
    await gone({ dir: undefined, pids });
  });
}

test('a process that ends on an error nothing caught removes its cgroup (where one can be made)', async () => {
  const child = spawn(process.execPath, ['--input-type=module', '-e', `
    import { startSlowdown } from ${JSON.stringify(SLOWDOWN)};
    const slowdown = startSlowdown({ share: 0.5, pidsToSlow: () => [process.pid] });
    process.stdout.write(slowdown.description + '\\n');
    setTimeout(() => { throw new Error('campaign failed'); }, 300);
  `], { stdio: ['ignore', 'pipe', 'ignore'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  await once(child, 'exit');
  await gone(traces(output));
});
