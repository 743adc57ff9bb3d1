// The test suite runs beside a developer's own switch (`make demo` leaves one up, and
// `make test` follows it): every process of a test's switch listens on ports the test chose
// free, never on one the local runtime binds by default (the built-in oracle's 4003 once did,
// and every discovery test failed with EADDRINUSE while the demo ran).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startSwitch } from '../support/switch.js';
import { listeningPorts, localRuntimePorts } from '../support/listening-ports.js';

let sw;

before(async () => {
  sw = await startSwitch();
});

after(async () => {
  await sw?.stop();
});

test('no process of a test switch listens on a port of the local runtime', () => {
  const fixed = localRuntimePorts();
  const byProcess = [...sw.processes].map(([name, child]) => [name, listeningPorts([child.pid])]);
  byProcess.push(['test process (admin API)', listeningPorts([process.pid])]);
  for (const [name, ports] of byProcess) {
    assert.ok(ports.length > 0, `${name} listens on nothing: the check would prove nothing`);
    assert.deepEqual(ports.filter((port) => fixed.has(port)), [], `${name} listens on ${ports.join(', ')}`);
  }
  const oracle = Number(new URL(sw.oracleUrl).port);
  assert.ok(listeningPorts([sw.processes.get('account-lookup-admin-0').pid]).includes(oracle), 'the built-in oracle listens where the switch was told');
});
