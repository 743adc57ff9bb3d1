// The ledger benchmarks' shared driver (perf/transfer-driver.js): transfers between every pair
// of DFSPs with a condition their fulfilment meets, at most the in-flight limit open, and the
// report's counts and percentiles.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createTracker, newTransfer, percentile, runFigures } from '../../perf/transfer-driver.js';

test('transfers go from every DFSP to every other, never to itself, each with a condition its fulfilment meets', () => {
  const names = ['a', 'b', 'c', 'd'];
  const pairs = new Set();
  for (let index = 0; index < 24; index += 1) {
    const { body, fulfilment } = newTransfer(index, names);
    assert.notEqual(body.payerFsp, body.payeeFsp);
    assert.equal(createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url'), body.condition);
    pairs.add(`${body.payerFsp}>${body.payeeFsp}`);
  }
  assert.equal(pairs.size, 12);
});

test('the tracker keeps at most the in-flight limit open, and counts commits and failures apart', async () => {
  const tracker = createTracker(2);
  tracker.begin('t1');
  tracker.begin('t2');
  let admitted = false;
  const waiting = tracker.room().then((value) => { admitted = value; });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(admitted, false, 'a third waits while two are open');
  tracker.finish('t1');
  await waiting;
  assert.equal(admitted, true);
  tracker.finish('t2', '4001');
  tracker.finish('t2');
  assert.equal(tracker.done(), 2, 'a transfer finishes once');
  tracker.begin('t3');
  tracker.begin('t4');
  assert.equal(await tracker.room(() => true), false, 'a run told to stop stops waiting');
  const figures = runFigures(tracker, 5, 1000);
  assert.deepEqual({ committed: figures.committed, failed: figures.failed, unfinished: figures.unfinished, rate: figures.transfersPerSecond },
    { committed: 1, failed: { 4001: 1 }, unfinished: 3, rate: 1 });
});

test('a percentile is the value at that share of the sorted latencies', () => {
  const sorted = Array.from({ length: 100 }, (_, index) => index + 1);
  assert.equal(percentile(sorted, 50), 51);
  assert.equal(percentile(sorted, 95), 96);
  assert.equal(percentile(sorted, 100), 100);
});
