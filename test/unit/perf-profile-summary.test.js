// perf/profile-summary.js: which package a V8 profile frame's code belongs to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { packageOf } from '../../perf/profile-summary.js';

const ROOT = new URL('../..', import.meta.url).pathname;

test('a frame belongs to its npm package, scoped or not, to Node, to the project folder, or to V8 itself', () => {
  assert.equal(packageOf({ functionName: 'route', url: `file://${ROOT}node_modules/@hapi/call/lib/index.js` }), '@hapi/call');
  assert.equal(packageOf({ functionName: 'query', url: `file://${ROOT}node_modules/mysql2/lib/commands/query.js` }), 'mysql2');
  assert.equal(packageOf({ functionName: 'emit', url: 'node:events' }), 'node:internal');
  assert.equal(packageOf({ functionName: 'readBody', url: `file://${ROOT}platform/fspiop/edge.js` }), 'platform/fspiop');
  assert.equal(packageOf({ functionName: '(garbage collector)', url: '' }), '(garbage collector)');
  assert.equal(packageOf({ functionName: 'writeBuffer', url: '' }), '(native)');
});
