// What the batch consumer's health() says (platform/kafka/consumer.js, healthOf), over a
// stand-in for its state with a fixed clock: each way a consumer can fail to make progress
// is reported after its bound with a reason, and ends the process only when a restart is
// the cure; the process's last Kafka error restarts the group and hung-call clocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { healthOf } from '../../platform/kafka/consumer.js';

const NOW_MS = 1_000_000;
const BOUNDS = { stuckAfterMs: 60_000, exitAfterMs: 120_000, rejoinWithinMs: 40_000 };

/** A consumer's state that is healthy at NOW_MS, with `changes` applied. */
function state(changes = {}) {
  return {
    loopError: null, lastPollAtMs: NOW_MS - 100, outOfGroupSinceMs: null, brokerErrorAtMs: 0,
    busySinceMs: null, failingSinceMs: null, pending: [], calls: new Set(), ...changes,
  };
}

test('a consumer that polls, holds an assignment and has no batch running is OK', () => {
  assert.deepEqual(healthOf(state(), BOUNDS, NOW_MS), { status: 'OK' });
});

test('a loop that ended is reported at once and ends the process', () => {
  const health = healthOf(state({ loopError: new Error('boom') }), BOUNDS, NOW_MS);
  assert.deepEqual(health, { status: 'STOPPED', reason: 'the consumer loop ended: boom', exit: true });
});

test('no poll for exitAfterMs is reported and ends the process', () => {
  assert.deepEqual(healthOf(state({ lastPollAtMs: NOW_MS - 121_000 }), BOUNDS, NOW_MS),
    { status: 'NOT_POLLING', reason: 'the consumer has not polled Kafka for 121 s', exit: true });
  assert.deepEqual(healthOf(state({ lastPollAtMs: NOW_MS - 119_000 }), BOUNDS, NOW_MS), { status: 'OK' });
});

test('a member out of its group for rejoinWithinMs is reported and ends the process, counted from the last Kafka error', () => {
  const outOfGroup = state({ outOfGroupSinceMs: NOW_MS - 45_000 });
  assert.deepEqual(healthOf(outOfGroup, BOUNDS, NOW_MS),
    { status: 'NOT_IN_GROUP', reason: 'no partitions assigned by the consumer group for 45 s', exit: true });
  assert.deepEqual(healthOf(state({ outOfGroupSinceMs: NOW_MS - 35_000 }), BOUNDS, NOW_MS), { status: 'OK' });
  // A Kafka client of the process reported an error 30 s ago: nobody could have rejoined before.
  assert.deepEqual(healthOf({ ...outOfGroup, brokerErrorAtMs: NOW_MS - 30_000 }, BOUNDS, NOW_MS), { status: 'OK' });
});

test('a batch failing through an outage is STUCK without ending the process; a hung call ends it', () => {
  const failing = state({ failingSinceMs: NOW_MS - 300_000 });
  assert.deepEqual(healthOf(failing, BOUNDS, NOW_MS), { status: 'STUCK', reason: 'a batch running or failing for 300 s', exit: false });
  const hung = state({ busySinceMs: NOW_MS - 125_000, calls: new Set([{ startedAtMs: NOW_MS - 125_000 }]) });
  assert.deepEqual(healthOf(hung, BOUNDS, NOW_MS), { status: 'STUCK', reason: 'a batch running or failing for 125 s', exit: true });
  // A produce held while the brokers were down is not a hang until they have been back for the bound.
  assert.equal(healthOf({ ...hung, brokerErrorAtMs: NOW_MS - 10_000 }, BOUNDS, NOW_MS).exit, false);
});

test('a consumer whose batches wait on purpose is never STUCK, but still watched for polling', () => {
  const waiting = state({ busySinceMs: NOW_MS - 600_000, calls: new Set([{ startedAtMs: NOW_MS - 600_000 }]) });
  const bounds = { stuckAfterMs: Infinity, exitAfterMs: 120_000 };
  assert.deepEqual(healthOf(waiting, bounds, NOW_MS), { status: 'OK' });
  assert.equal(healthOf({ ...waiting, lastPollAtMs: NOW_MS - 121_000 }, bounds, NOW_MS).status, 'NOT_POLLING');
});
