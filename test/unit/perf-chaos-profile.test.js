// The fault campaign in either profile (perf/chaos.js --profile): in the compact one a kill
// names a component and acts on the process that hosts it, so the row's label says which host
// goes down; the campaign's switch knows, for each of its processes, the components it runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { campaignOptions, processOfComponent } from '../../perf/chaos.js';
import { membersOfProcess } from '../../perf/run.js';
import { readCompactHosts } from '../../scripts/lib/services-conf.js';

test('the campaign runs in the separate profile unless told, and in no profile that does not exist', () => {
  assert.equal(campaignOptions(['--short']).profile, 'separate');
  assert.equal(campaignOptions(['--short', '--profile', 'compact']).profile, 'compact');
  assert.throws(() => campaignOptions(['--profile', 'tiny']), /--profile must be one of separate, compact/);
});

test('in the compact profile the short campaign kills the ledger-handlers host, and its rows say so', () => {
  const compact = campaignOptions(['--short', '--profile', 'compact']);
  const separate = campaignOptions(['--short']);
  // The same faults, rate and recovery bound as the separate campaign: only what a kill takes down differs.
  assert.deepEqual(compact.faults.map((fault) => fault.name), separate.faults.map((fault) => fault.name));
  assert.deepEqual([compact.tps, compact.afterS, compact.requireRecovery], [separate.tps, separate.afterS, separate.requireRecovery]);
  assert.match(compact.faults[0].label, /^SIGKILL position's host ledger-handlers, restarted after 3 s$/);
  assert.match(separate.faults[0].label, /^SIGKILL position, restarted after 3 s$/);
  const full = campaignOptions(['--profile', 'compact']);
  assert.match(full.faults.find((fault) => fault.name === 'kill-quoting-handler').label, /host callbacks-quotes/);
  assert.match(full.faults.find((fault) => fault.name === 'kill-account-lookup').label, /host directory-admin/);
});

test('each process of the switch runs the components it was started with, and a kill finds the one that hosts its component', () => {
  const hosts = readCompactHosts();
  // The admin API runs in the campaign's own process: the directory-admin host runs the rest.
  const ports = new Map(['api-adapter', 'quoting', 'prepare', 'position', 'fulfil', 'timeout', 'bulk', 'account-lookup', 'account-lookup-admin']
    .map((name, at) => [`${name}-0`, 4000 + at]));
  const members = new Map(['edges-0', 'ledger-handlers-0', 'directory-admin-0'].map((key) => [key, membersOfProcess(key, hosts, ports)]));
  assert.deepEqual(members.get('ledger-handlers-0'), ['prepare', 'position', 'fulfil', 'timeout', 'bulk']);
  assert.deepEqual(members.get('directory-admin-0'), ['account-lookup', 'account-lookup-admin']);
  assert.equal(processOfComponent(members, 'position'), 'ledger-handlers-0');
  assert.equal(processOfComponent(members, 'quoting'), 'edges-0');
  assert.throws(() => processOfComponent(members, 'notification'), /no process runs notification/);
  const separate = new Map([['position-0', membersOfProcess('position-0', new Map(), new Map([['position-0', 4001]]))]]);
  assert.deepEqual(separate.get('position-0'), ['position']);
  assert.equal(processOfComponent(separate, 'position'), 'position-0');
});
