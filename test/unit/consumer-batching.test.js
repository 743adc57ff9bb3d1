// The rules by which the batch consumer forms a batch (platform/kafka/consumer.js, formBatch),
// over a scripted stand-in for node-rdkafka's consume(count, cb) so that each rule is checked
// without a clock: every call either asks for one record with a wait or for many with a
// timeout of 0 (node-rdkafka restarts a call's timeout after each record, so any other call
// has no bound), a backlog fills a batch without waiting, a wait ends the batch, and records
// already taken survive a consume error. test/integration/consumer-batching.test.js checks
// the same behaviour against the real Kafka.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formBatch } from '../../platform/kafka/consumer.js';

const FIRST_WAIT_MS = 100;
// Far longer than any test runs, so that the deadline never decides a batch here.
const BATCH_WAIT_MS = 600_000;

/**
 * A consumer whose local queue holds `queued` records and, once that is empty, answers each
 * waiting call with the next entry of `arrivals` (records that arrived within the wait, or
 * none: the wait ran out). `failOnCall`, optional, makes that call (1-based) fail.
 */
function scriptedConsumer({ queued = 0, arrivals = [], failOnCall } = {}) {
  let nextOffset = 0;
  let timeoutMs = 1000;
  const calls = [];
  const take = (count) => Array.from({ length: count }, () => ({ topic: 't', partition: 0, offset: nextOffset++ }));
  let backlog = queued;
  return {
    calls,
    setDefaultConsumeTimeout(ms) { timeoutMs = ms; },
    consume(count, callback) {
      calls.push({ count, timeoutMs });
      if (calls.length === failOnCall) { setImmediate(() => callback(Object.assign(new Error('broker transport failure'), { code: -195 }))); return; }
      let records = take(Math.min(count, backlog));
      backlog -= records.length;
      if (records.length === 0 && timeoutMs > 0) records = take(Math.min(count, arrivals.shift() ?? 0));
      setImmediate(() => callback(null, records));
    },
  };
}

function context(consumer, { batchSizeMax = 500, batchWaitMs = BATCH_WAIT_MS } = {}) {
  const logged = [];
  return { consumer, batchSizeMax, batchWaitMs, stopping: false, logged, log: { debug: (fields, msg) => logged.push({ fields, msg }) } };
}

function assertEveryCallBounded(calls) {
  for (const call of calls) {
    assert.ok(call.count === 1 || call.timeoutMs === 0, `a call asked for ${call.count} records with a ${call.timeoutMs} ms timeout`);
  }
}

test('a backlog fills the batch to batchSizeMax without a single wait after the first record', async () => {
  const consumer = scriptedConsumer({ queued: 1_200 });
  const batch = await formBatch(context(consumer), FIRST_WAIT_MS);
  assert.equal(batch.length, 500);
  assert.deepEqual(batch.map((record) => record.offset), Array.from({ length: 500 }, (_, offset) => offset));
  assert.deepEqual(consumer.calls, [{ count: 1, timeoutMs: FIRST_WAIT_MS }, { count: 499, timeoutMs: 0 }]);
});

test('records arriving one by one are gathered until a wait runs out, and every call is bounded', async () => {
  const consumer = scriptedConsumer({ arrivals: [1, 1, 1, 1, 0] });
  const batch = await formBatch(context(consumer), FIRST_WAIT_MS);
  assert.equal(batch.length, 4);
  assertEveryCallBounded(consumer.calls);
  const waits = consumer.calls.slice(1).filter((call) => call.timeoutMs > 0);
  assert.equal(waits.length, 4, 'one wait per record after the first, and the one that ran out');
  assert.ok(waits.every((call) => call.timeoutMs <= BATCH_WAIT_MS), 'no wait exceeds the batch wait');
});

test('the batch never exceeds batchSizeMax while records keep arriving', async () => {
  const consumer = scriptedConsumer({ arrivals: Array.from({ length: 50 }, () => 1) });
  const batch = await formBatch(context(consumer, { batchSizeMax: 7 }), FIRST_WAIT_MS);
  assert.equal(batch.length, 7);
  assertEveryCallBounded(consumer.calls);
  assert.ok(consumer.calls.every((call) => call.count <= 7));
});

test('a batch wait of 0 takes only what has already been fetched', async () => {
  const consumer = scriptedConsumer({ queued: 3, arrivals: [1, 1] });
  const batch = await formBatch(context(consumer, { batchWaitMs: 0 }), FIRST_WAIT_MS);
  assert.equal(batch.length, 3);
  assert.deepEqual(consumer.calls, [{ count: 1, timeoutMs: FIRST_WAIT_MS }, { count: 499, timeoutMs: 0 }]);
});

test('nothing within the first wait gives an empty batch and no further call', async () => {
  const consumer = scriptedConsumer({ arrivals: [0] });
  assert.deepEqual(await formBatch(context(consumer), FIRST_WAIT_MS), []);
  assert.equal(consumer.calls.length, 1);
});

test('a consume error after records were taken hands over those records instead of dropping them', async () => {
  const consumer = scriptedConsumer({ queued: 1, arrivals: [1], failOnCall: 3 });
  const ctx = context(consumer);
  const batch = await formBatch(ctx, FIRST_WAIT_MS);
  assert.deepEqual(batch.map((record) => record.offset), [0]);
  assert.equal(ctx.logged.length, 1);
});

test('a consume error before any record is taken fails the call, so the loop backs off', async () => {
  const consumer = scriptedConsumer({ failOnCall: 1 });
  await assert.rejects(formBatch(context(consumer), FIRST_WAIT_MS), /broker transport failure/);
});
