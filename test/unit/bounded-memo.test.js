import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedMemo } from '../../platform/bounded-memo.js';

test('a key is built once while remembered, and the bound starts the memory over', () => {
  const built = [];
  const memo = boundedMemo((key) => { built.push(key); return `text ${key}`; }, 2);
  assert.equal(memo(1), 'text 1');
  assert.equal(memo(1), 'text 1');
  assert.equal(memo(2), 'text 2');
  assert.deepEqual(built, [1, 2], 'a remembered key is not built again');
  assert.equal(memo(3), 'text 3');
  assert.equal(memo(1), 'text 1');
  assert.deepEqual(built, [1, 2, 3, 1], 'past the bound the earlier keys are built again');
});
