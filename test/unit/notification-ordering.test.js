// Lanes keep each (id, DFSP) in batch order while everything else runs concurrently; the
// per-DFSP limiter bounds calls in flight and queued; the breaker fails a dead DFSP fast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLaneScheduler, laneKey, runInLanes } from '../../handlers/notification/lanes.js';
import { createKeyedLimiter, QueueFullError } from '../../platform/delivery/limiter.js';
import { createCircuitBreaker, retryDelayMs } from '../../platform/delivery/deliver.js';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (id, to, seq) => ({ id, to, seq });

test('lanes are keyed by (id, to)', () => {
  assert.notEqual(laneKey(event('t1', 'payer')), laneKey(event('t1', 'payee')));
  assert.equal(laneKey(event('t1', 'payer')), laneKey(event('t1', 'payer')));
});

test('a lane runs one item at a time in order, across batches, while lanes run concurrently', async () => {
  const started = [];
  let running = 0;
  let maxRunning = 0;
  const run = createLaneScheduler(async (item) => {
    started.push(item.seq);
    running += 1;
    maxRunning = Math.max(maxRunning, running);
    // The first item of lane "a" is the slowest; its successors must still wait for it,
    // including the one that arrives in a later batch.
    await sleep(item.seq === 0 ? 40 : 5);
    running -= 1;
    return { seq: item.seq };
  });
  const first = runInLanes([event('a', 'x', 0), event('b', 'x', 1), event('a', 'x', 2)], run);
  const second = runInLanes([event('c', 'x', 3), event('a', 'x', 4), event('b', 'x', 5)], run);
  const [one, two] = await Promise.all([first, second]);
  assert.equal(maxRunning, 3, 'the three lanes ran at the same time');
  assert.deepEqual(started.filter((seq) => [0, 2, 4].includes(seq)), [0, 2, 4], 'lane a kept its order across batches');
  assert.ok(started.indexOf(3) < started.indexOf(2), 'the later batch did not wait for the slow lane of the earlier one');
  assert.deepEqual([one.length, two.length], [3, 3]);
});

test('an item that throws stops its lane (later ones must not overtake it) but not the others', async () => {
  const run = createLaneScheduler(async (item) => {
    if (item.seq === 0) throw new Error('lookup failed');
    return item.seq;
  });
  const outcomes = await runInLanes([event('a', 'x', 0), event('a', 'x', 1), event('b', 'x', 2), event('b', 'x', 3)], run);
  assert.deepEqual(outcomes.map((o) => [o.item.seq, o.error ? 'error' : o.result]), [[0, 'error'], [1, 'error'], [2, 2], [3, 3]]);
  const after = await runInLanes([event('a', 'x', 4)], run);
  assert.deepEqual(after.map((o) => o.result), [4], 'a lane that failed is forgotten, so a redelivery goes through');
});

test('the limiter keeps at most maxInFlight per key, queues in order, and refuses past queueMax', async () => {
  const limiter = createKeyedLimiter({ maxInFlight: 2, queueMax: 2 });
  const order = [];
  const gates = [];
  const task = (name) => () => new Promise((resolve) => { order.push(name); gates.push(() => resolve(name)); });
  const runs = ['a1', 'a2', 'a3', 'a4'].map((name) => limiter.run('A', task(name)));
  const other = limiter.run('B', task('b1'));
  await assert.rejects(limiter.run('A', task('a5')), QueueFullError);
  await sleep(0);
  assert.deepEqual(order, ['a1', 'a2', 'b1'], 'a full DFSP does not hold back another');
  assert.deepEqual(limiter.load('A'), { active: 2, queued: 2 });
  gates[0]();
  await sleep(0);
  assert.deepEqual(order, ['a1', 'a2', 'b1', 'a3']);
  // Opening the gates one at a time lets the last queued task (a4) start, then finish.
  for (let index = 1; index < 5; index += 1) {
    while (gates.length <= index) await sleep(0);
    gates[index]();
  }
  assert.deepEqual(await Promise.all([...runs, other]), ['a1', 'a2', 'a3', 'a4', 'b1']);
  assert.deepEqual(limiter.load('A'), { active: 0, queued: 0 }, 'an idle key is forgotten');
});

test('a failing task frees its slot', async () => {
  const limiter = createKeyedLimiter({ maxInFlight: 1, queueMax: 10 });
  const failing = limiter.run('A', async () => { throw new Error('boom'); });
  const next = limiter.run('A', async () => 'ran');
  await assert.rejects(failing, /boom/);
  assert.equal(await next, 'ran');
});

test('the breaker opens after threshold failures in a row, and one failure after it reopens', () => {
  let clock = 1_000;
  const opened = [];
  const breaker = createCircuitBreaker({ threshold: 3, openMs: 500, now: () => clock, onOpen: (key) => opened.push(key) });
  breaker.failed('A');
  breaker.failed('A');
  breaker.succeeded('A');
  breaker.failed('A');
  breaker.failed('A');
  assert.equal(breaker.isOpen('A'), false, 'a success resets the count');
  breaker.failed('A');
  assert.equal(breaker.isOpen('A'), true);
  assert.equal(breaker.isOpen('B'), false, 'per DFSP');
  clock += 501;
  assert.equal(breaker.isOpen('A'), false, 'calls go through again after openMs');
  breaker.failed('A');
  assert.equal(breaker.isOpen('A'), true, 'one more failure reopens it');
  assert.deepEqual(opened, ['A', 'A']);
  const disabled = createCircuitBreaker({ threshold: 0, openMs: 500 });
  for (let i = 0; i < 10; i += 1) disabled.failed('A');
  assert.equal(disabled.isOpen('A'), false);
});

test('retry backoff doubles', () => {
  assert.deepEqual([1, 2, 3].map((attempt) => retryDelayMs(200, attempt)), [200, 400, 800]);
});
