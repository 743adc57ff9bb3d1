// Free ports for the processes a test starts: a port handed out is not yet bound, so the next
// draw in the same process must not hand it out again (two components of one test's switch
// once drew the same port, and the second could never start).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, freePortRange } from '../../scripts/lib/ports.js';

test('no port is handed out twice by one process, even before its listener binds', async () => {
  const ports = [];
  // Without the record, 400 draws from 12,000 ports repeat one with probability 1 - e^(-400²/24,000),
  // over 99.8%.
  for (let draw = 0; draw < 400; draw += 1) ports.push(await freePort());
  const base = await freePortRange(5);
  for (let port = base; port < base + 5; port += 1) ports.push(port);
  assert.equal(new Set(ports).size, ports.length);
});
