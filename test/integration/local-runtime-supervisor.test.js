// The local runtime restarts a service replica that exits (scripts/services.sh runs each under
// scripts/supervise.sh), as Kubernetes restarts a container: a handler that ends itself after
// HANDLER_EXIT_AFTER_MS without progress comes back. Run on a stand-in service
// (test/support/health-stand-in.js) in a runtime of the test's own: its RUN_DIR (so its run
// marker matches no process of `make up`), its services.conf, a port chosen free; the local
// runtime on the default ports is never touched.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { promisify } from 'node:util';
import { freePort } from '../../scripts/lib/ports.js';
import { processRunning } from '../support/processes.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let runDir;
let env;
let port;

const services = (command) => run('bash', [`${ROOT}scripts/services.sh`, command], { env, timeout: 60_000 });
const pidOf = (file) => {
  try {
    return Number(readFileSync(`${runDir}/pids/${file}`, 'utf8').trim());
  } catch {
    return 0;
  }
};
const healthy = async () => (await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) }).catch(() => null))?.status === 200;

before(async () => {
  runDir = mkdtempSync(`${tmpdir()}/local-runtime-supervisor-`);
  port = await freePort();
  writeFileSync(`${runDir}/services.conf`, `stand-in  test/support/health-stand-in.js  ${port}  1\n`);
  env = { ...process.env, RUN_DIR: runDir, LOG_DIR: `${runDir}/logs`, PID_DIR: `${runDir}/pids`, SERVICES_CONF: `${runDir}/services.conf`, CLIENT_IDENTITY: 'off', SERVICE_PORT_OFFSET: '0', SERVICE_RESTART_DELAY_MS: '300', HEALTH_TIMEOUT: '20', STOP_TIMEOUT: '5' };
  for (const name of ['TLS_CERT_PATH', 'TLS_KEY_PATH', 'TLS_CLIENT_CA_PATH', 'SCHEME_TLS_DIR']) delete env[name];
});

after(async () => {
  // Whatever happened, nothing of the test's runtime is left running.
  await services('stop').catch(() => {});
  for (const file of ['stand-in-0.supervisor.pid', 'stand-in-0.pid']) if (pidOf(file) && processRunning(pidOf(file))) process.kill(pidOf(file), 'SIGKILL');
  rmSync(runDir, { recursive: true, force: true });
});

test('a replica that is killed comes back on its port, make status counts it, make down stops it for good', async () => {
  await services('start');
  const first = pidOf('stand-in-0.pid');
  const supervisor = pidOf('stand-in-0.supervisor.pid');
  assert.ok(first && processRunning(first) && supervisor && processRunning(supervisor), 'the replica and its supervisor run');
  assert.ok(await healthy());

  process.kill(first, 'SIGKILL');
  const deadline = Date.now() + 15_000;
  while (!(pidOf('stand-in-0.pid') !== first && (await healthy()))) {
    assert.ok(Date.now() < deadline, 'the replica did not come back');
    await sleep(100);
  }
  const second = pidOf('stand-in-0.pid');
  assert.ok(processRunning(second));
  assert.match(readFileSync(`${runDir}/logs/stand-in-0.log`, 'utf8'), new RegExp(`supervisor: pid ${first} exited with status 137 after \\d+ s; restart 1 in 0\\.300 s`));
  const { stdout: status } = await services('status');
  assert.match(status, new RegExp(`^stand-in\\s+0\\s+${second}\\s+${port}\\s+running\\s+1\\s`, 'm'));

  // A second start leaves the supervised replica alone.
  await services('start');
  assert.equal(pidOf('stand-in-0.pid'), second);
  assert.equal(pidOf('stand-in-0.supervisor.pid'), supervisor);

  await services('stop');
  assert.equal(processRunning(supervisor), false, 'the supervisor stopped');
  assert.equal(processRunning(second), false, 'the replica stopped');
  await sleep(1000);
  assert.equal(await healthy(), false, 'nothing was restarted after the stop');
});
