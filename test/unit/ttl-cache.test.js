// The keyed TTL cache the edges and account lookup share: answers are reused for their TTL,
// failures are forgotten, and a flood of invented keys evicts the least recently used
// answers one at a time instead of growing the cache or emptying it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTtlCache } from '../../platform/ttl-cache.js';

function counter() {
  const reads = [];
  return { reads, read: async (key) => { reads.push(key); return `answer-${key}`; } };
}

test('an answer is reused until its TTL passes, then read again', async () => {
  let clock = 1_000;
  const cache = createTtlCache({ ttlMs: 100, now: () => clock });
  const { reads, read } = counter();
  assert.equal(await cache.get('payerfsp', read), 'answer-payerfsp');
  clock += 99;
  assert.equal(await cache.get('payerfsp', read), 'answer-payerfsp');
  assert.deepEqual(reads, ['payerfsp']);
  clock += 1;
  await cache.get('payerfsp', read);
  assert.deepEqual(reads, ['payerfsp', 'payerfsp']);
});

test('a failed read is forgotten, so the next question asks again', async () => {
  const cache = createTtlCache({ ttlMs: 60_000 });
  let calls = 0;
  const read = async () => { calls += 1; if (calls === 1) throw new Error('down'); return 'up'; };
  await assert.rejects(cache.get('k', read), /down/);
  assert.equal(await cache.get('k', read), 'up');
  assert.equal(calls, 2);
});

test('invented keys evict the least recently used answer; a DFSP in use keeps its answer', async () => {
  const cache = createTtlCache({ ttlMs: 60_000, entriesMax: 3 });
  const { reads, read } = counter();
  await cache.get('payerfsp', read);
  for (let index = 0; index < 1_000; index += 1) {
    await cache.get(`${','.repeat(10)}${index}`, read);
    await cache.get('payerfsp', read);
    assert.ok(cache.size() <= 3, `size ${cache.size()} after ${index + 1} invented keys`);
  }
  assert.equal(reads.filter((key) => key === 'payerfsp').length, 1, 'the DFSP in use was read once, never evicted');
});
