// scripts/supervise.sh, the local runtime's restart loop (scripts/services.sh runs every
// replica under one), on a stand-in command: a command that exits is started again with the
// same command and environment after a delay that doubles up to its maximum, each exit is a
// line in the output, and SIGTERM stops the command and the supervisor with nothing restarted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { processRunning } from '../support/processes.js';

const SUPERVISE = new URL('../../scripts/supervise.sh', import.meta.url).pathname;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const readOr = (path) => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
};

/** The supervisor on `command` in a directory of its own: `{ child, dir, pidFile, output() }`. */
function supervise(t, command, env = {}) {
  const dir = mkdtempSync(`${tmpdir()}/supervise-`);
  const pidFile = `${dir}/stand-in-0.pid`;
  const settings = { SERVICE_RESTART_DELAY_MS: '1000', SERVICE_RESTART_MAX_DELAY_MS: '30000', SERVICE_RESTART_RESET_S: '60', ...env };
  const child = spawn('bash', [SUPERVISE, pidFile, ...command], { env: { ...process.env, ...settings }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  t.after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    const pid = Number(readOr(pidFile));
    if (pid && processRunning(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  return { child, dir, pidFile, output: () => output };
}

async function until(what, check, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    assert.ok(Date.now() < deadline, `timed out waiting for ${what}`);
    await sleep(50);
  }
}

test('a killed command is started again with the same environment, said in the output and counted', async (t) => {
  const { pidFile, output } = supervise(t, ['node', '-e', 'setInterval(() => {}, 1000)'], { SERVICE_RESTART_DELAY_MS: '200', STAND_IN_MARK: 'kept' });
  const first = Number(await until('the first pid', () => readOr(pidFile)));
  assert.ok(processRunning(first));
  process.kill(first, 'SIGKILL');
  const second = Number(await until('a new pid', () => { const pid = Number(readOr(pidFile)); return pid !== first && processRunning(pid) && pid; }));
  assert.ok(readFileSync(`/proc/${second}/environ`, 'utf8').split('\0').includes('STAND_IN_MARK=kept'), 'the restarted command has the environment');
  assert.deepEqual(readFileSync(`/proc/${second}/cmdline`, 'utf8').split('\0').slice(1, 2), ['-e']);
  assert.match(output(), new RegExp(`pid ${first} exited with status 137 after \\d+ s; restart 1 in 0\\.200 s`));
  assert.equal(readOr(pidFile.replace(/\.pid$/, '.restarts')), '1');
});

test('a command that keeps exiting is restarted after a delay that doubles up to the maximum', async (t) => {
  const { pidFile, output } = supervise(t, ['bash', '-c', 'exit 3'], { SERVICE_RESTART_DELAY_MS: '100', SERVICE_RESTART_MAX_DELAY_MS: '400' });
  const delays = () => [...output().matchAll(/exited with status 3 after \d+ s; restart \d+ in ([\d.]+) s/g)].map((match) => match[1]);
  await until('five restarts', () => delays().length >= 5);
  assert.deepEqual(delays().slice(0, 5), ['0.100', '0.200', '0.400', '0.400', '0.400']);
  assert.ok(Number(readOr(pidFile.replace(/\.pid$/, '.restarts'))) >= 5, 'the restarts are counted');
});

test('SIGTERM stops the command and the supervisor, and nothing is started after', async (t) => {
  const { child, pidFile, output } = supervise(t, ['node', '-e', 'setInterval(() => {}, 1000)'], { SERVICE_RESTART_DELAY_MS: '100' });
  const pid = Number(await until('the pid', () => readOr(pidFile)));
  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
  assert.equal(processRunning(pid), false, 'the command was stopped with its supervisor');
  await sleep(400);
  assert.equal(Number(readOr(pidFile)), pid, 'no command was started after the stop');
  assert.doesNotMatch(output(), /restart \d+ in/);
});

test('a SIGTERM that arrives between two restarts stops the supervisor at once', async (t) => {
  const { child, pidFile } = supervise(t, ['bash', '-c', 'exit 1'], { SERVICE_RESTART_DELAY_MS: '5000' });
  await until('the first exit', () => readOr(pidFile.replace(/\.pid$/, '.restarts')) === '1');
  const startedMs = Date.now();
  child.kill('SIGTERM');
  await once(child, 'exit');
  assert.ok(Date.now() - startedMs < 2000, 'it did not sleep out its delay');
});
