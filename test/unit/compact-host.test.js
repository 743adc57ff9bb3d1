import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { COMPONENT_MODULES, parseComponents, threadPoolSize } from '../../scripts/compact-host.js';
import { componentEnv } from '../../platform/component.js';
import { COMPONENTS } from '../support/switch.js';
import { readCompactHosts } from '../../scripts/lib/services-conf.js';

const ROOT = new URL('../..', import.meta.url).pathname;

test('the host reads names with optional ports, over one or several arguments', () => {
  assert.deepEqual(parseComponents(['prepare,position=4211', 'bulk']), [
    { name: 'prepare', port: undefined }, { name: 'position', port: 4211 }, { name: 'bulk', port: undefined },
  ]);
});

test('the host refuses an unknown component, one named twice, a bad port and an empty list', () => {
  assert.throws(() => parseComponents(['prepare,nosuch']), /unknown component "nosuch"/);
  assert.throws(() => parseComponents(['prepare,prepare=4202']), /named twice/);
  assert.throws(() => parseComponents(['prepare=port']), /unknown component "prepare=port"/);
  assert.throws(() => parseComponents([]), /usage/);
});

test('every component has a module with start(), beside the main.js the separate profile runs', () => {
  for (const [name, module] of Object.entries(COMPONENT_MODULES)) assert.ok(existsSync(`${ROOT}${module}`), `${name}: ${module}`);
  for (const name of Object.keys(COMPONENTS)) assert.ok(COMPONENT_MODULES[name], `${name} can be hosted`);
});

test('every compact host names known components, each in one host only', () => {
  const seen = [];
  for (const members of readCompactHosts().values()) {
    for (const name of members) assert.ok(COMPONENT_MODULES[name], name);
    seen.push(...members);
  }
  assert.equal(new Set(seen).size, seen.length);
  assert.deepEqual([...seen].sort(), Object.keys(COMPONENT_MODULES).sort(), 'the compact profile runs every component');
});

test('the libuv pool has four threads beyond the consumers waiting in consume()', () => {
  assert.equal(threadPoolSize(parseComponents(['prepare,position,fulfil,timeout,bulk'])), 8);
  assert.equal(threadPoolSize(parseComponents(['notification,quoting-handler'])), 7);
  assert.equal(threadPoolSize(parseComponents(['api-adapter,quoting'])), 4);
});

test('each component reads its own name and port, never the host\'s', () => {
  const env = componentEnv({ SERVICE_NAME: 'ledger-handlers', PORT: '4201', DB_NAME: 'x' }, { name: 'position', port: 4211 });
  assert.deepEqual(env, { SERVICE_NAME: 'position', PORT: '4211', DB_NAME: 'x' });
  assert.equal(componentEnv({ PORT: '4201' }, { name: 'bulk' }).PORT, undefined, 'no port given: its default');
});
