// A consumer whose handler is held (a produce waiting through a broker restart, a hung
// statement) must neither keep its group from rebalancing nor stall in silence (issue 28).
// librdkafka serves a group's rebalance to the application only inside consume(), and the
// group waits for every member to answer before anyone gets partitions again: a member that
// stops consuming while its batch waits holds every other member of its group idle, up to
// max.poll.interval.ms (five minutes), and cannot rejoin itself. The timing is forced here
// with a batch that is held on purpose, against the real Kafka.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, uniqueSuffix } from '../support/environment.js';
import { sleep, topicWithProducer, waitFor } from '../support/kafka-topic.js';
import { startBatchConsumer } from '../../platform/kafka/consumer.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { freePort } from '../../scripts/lib/ports.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/held-handler.js', import.meta.url));
const PARTITIONS = 2;
const RECORDS = 20;
// Far below max.poll.interval.ms (five minutes), the longest the old consumer kept its group
// waiting; the revoke's own wait for the held batch (REVOKE_WAIT_MAX_MS, 10 s) fits in it.
const REBALANCE_WAIT_MS = 45_000;

/** A group member that records what it handled; `hold()` makes its next batch wait until `release()`. */
async function startMember(t, { config, logger, topic }, groupId) {
  const member = { handled: [], assignment: [], events: [], holding: false };
  let release = null;
  member.hold = () => { member.held = new Promise((resolve) => { release = resolve; }); };
  member.release = () => release?.();
  member.consumer = await startBatchConsumer({
    kafka: config.kafka, groupId, topics: [topic], logger, sessionTimeoutMs: 6_000,
    onRebalance: ({ event, assignment }) => {
      member.events.push(event);
      member.assignment = assignment.map((tp) => tp.partition);
      member.onRebalance?.(event);
    },
    handleBatch: async (messages) => {
      if (member.held) {
        const { held } = member;
        member.held = null;
        member.holding = true;
        await held;
        member.holding = false;
      }
      member.handled.push(...messages.map((message) => message.value.toString()));
    },
  });
  t.after(async () => {
    member.release();
    await member.consumer.stop();
  });
  return member;
}

test('a member whose batch is held answers its group, and once released fetches the partitions it is given again', { timeout: 120_000 }, async (t) => {
  const setup = await topicWithProducer(t, 'held', { partitions: PARTITIONS });
  const groupId = `test-held-${uniqueSuffix()}`;
  const first = await startMember(t, setup, groupId);
  await waitFor('the first member to own both partitions', () => first.assignment.length === PARTITIONS, 30_000);

  first.hold();
  await setup.producer.produce([{ topic: setup.topic, key: 'held', value: 'held' }]);
  await waitFor('the first member to hold its batch', () => first.holding, 30_000);

  // Released as soon as it has given its partitions up, before it is given some again: what
  // it paused while held must not stay paused.
  first.onRebalance = (event) => { if (event === 'revoke') first.release(); };
  const second = await startMember(t, setup, groupId);
  const startedAt = Date.now();
  await waitFor('the held member to give its partitions up when the second one joins', () => first.events.includes('revoke'), REBALANCE_WAIT_MS);
  t.diagnostic(`the held member gave its partitions up ${Date.now() - startedAt} ms after the second one joined`);
  const records = Array.from({ length: RECORDS }, (_, index) => ({ topic: setup.topic, key: `key-${index}`, value: `record-${index}` }));
  await setup.producer.produce(records);
  await waitFor('both members to own partitions', () => first.assignment.length > 0 && second.assignment.length > 0, 30_000);
  const handled = () => new Set([...first.handled, ...second.handled]);
  await waitFor('every record to be handled, the held one included', () => handled().size === RECORDS + 1, 30_000);
  assert.ok(first.handled.some((value) => value.startsWith('record-')), 'the first member handles records of its new partition');
  // The held batch's partition moved while it ran: the batch was not acknowledged, so its
  // record came again to the partition's owner, and a record given twice is harmless.
  assert.ok([...first.handled, ...second.handled].filter((value) => value === 'held').length >= 1);
  assert.deepEqual(first.consumer.health(), { status: 'OK' });
  assert.deepEqual(second.consumer.health(), { status: 'OK' });
});

test('a handler whose batch call hangs says why in /health and exits with code 1, to be restarted', { timeout: 120_000 }, async (t) => {
  const { config, topic, producer } = await topicWithProducer(t, 'hung', { partitions: PARTITIONS });
  const database = await createTestDatabase('held');
  t.after(() => database.drop());
  const port = await freePort();
  const child = spawn(process.execPath, [FIXTURE], {
    env: {
      ...process.env, ...database.env, DB_PASSWORD: config.db.password, KAFKA_BROKERS: config.kafka.brokers, TOPIC: topic,
      KAFKA_GROUP_PREFIX: `test-${uniqueSuffix()}`, PORT: String(port), LOG_LEVEL: 'warn',
      HANDLER_STUCK_AFTER_MS: '2000', HANDLER_EXIT_AFTER_MS: '10000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); });

  const health = async () => {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      return { status: response.status, body: await response.json() };
    } catch {
      return null;
    }
  };
  await waitFor('the handler to answer /health with 200', async () => {
    assert.equal(child.exitCode, null, `the handler exited during start-up:\n${output.slice(-2000)}`);
    return (await health())?.status === 200;
  }, 30_000);
  await producer.produce([{ topic, key: 'hung', value: encodeEvent({ id: 'hung', type: 'fixture', action: 'hang', body: {}, at: new Date().toISOString() }) }]);

  const stuck = await waitFor('/health to say the consumer is stuck', async () => {
    const answer = await health();
    return answer?.status === 503 ? answer : null;
  }, 30_000);
  const consumer = stuck.body.services.find((service) => service.name === 'consumer');
  assert.equal(consumer.status, 'STUCK');
  assert.match(consumer.reason, /batch running or failing for \d+ s/);

  const { code } = await Promise.race([exited, sleep(30_000).then(() => ({ code: 'still running after 30 s' }))]);
  assert.equal(code, 1, `the handler should exit with code 1:\n${output.slice(-2000)}`);
  assert.match(output, /cannot make progress; exiting so that the process is restarted/);
});
