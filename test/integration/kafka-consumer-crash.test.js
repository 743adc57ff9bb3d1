// The batch consumer against a real Kafka and MariaDB: a consumer killed with SIGKILL between
// its database commit and its offset commit loses nothing and applies nothing twice, and two
// consumers in one group share the partitions. The consumers are child processes running
// test/fixtures/counting-consumer.js, which follows the processing contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../support/kafka-topic.js';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createTestDatabase, testConfig, uniqueSuffix } from '../support/environment.js';
import { createAdminClient, createTopic, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/counting-consumer.js', import.meta.url));
const DISTINCT_IDS = 20_000;
const DUPLICATE_EVERY = 100; // every 100th id is produced twice, to exercise the in-batch check
const PRODUCE_CHUNK = 1_000;
const PARTITIONS = 4;
const APPLY_TIMEOUT_MS = 60_000;
const SESSION_TIMEOUT_MS = 6_000; // the broker's minimum; a killed member is dropped this fast

/** The messages to produce, and the exact total, summed here independently of the fixture. */
function buildWorkload() {
  const records = [];
  let expectedScaled = 0n;
  for (let index = 0; index < DISTINCT_IDS; index += 1) {
    const id = `credit-${String(index).padStart(6, '0')}`;
    const whole = (index * 7_919) % 1_000;
    const fraction = (index * 104_729) % 10_000;
    const amount = `${whole}.${String(fraction).padStart(4, '0')}`;
    expectedScaled += BigInt(whole) * 10_000n + BigInt(fraction);
    const value = encodeEvent({ id, type: 'fixture', action: 'credit', body: { amount }, at: new Date(0).toISOString() });
    records.push({ key: id, value });
    if (index % DUPLICATE_EVERY === 0) records.push({ key: id, value });
  }
  return { records, expectedScaled };
}

function scaledFromDecimal(text) {
  const [whole, fraction = ''] = String(text).split('.');
  return BigInt(whole) * 10_000n + BigInt(fraction.padEnd(4, '0'));
}

async function createFixtureTables(db) {
  await db.schema.createTable('fixture_applied', (table) => {
    table.string('id', 64).primary();
    table.decimal('amount', 18, 4).notNullable();
    table.string('applied_by', 32).notNullable();
  });
  await db.schema.createTable('fixture_total', (table) => {
    table.integer('id').primary();
    table.decimal('total', 18, 4).notNullable();
  });
  await db('fixture_total').insert({ id: 1, total: '0.0000' });
}

/** A fixture consumer process and what it has told us over IPC. */
function spawnConsumer(environment, name, extraEnv = {}) {
  const child = spawn(process.execPath, [FIXTURE], {
    env: { ...process.env, ...environment, FIXTURE_NAME: name, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const state = { child, name, started: false, holding: false, stopped: null, batches: [], injected: [], assignment: [], output: '' };
  child.stdout.on('data', (chunk) => { state.output += chunk; });
  child.stderr.on('data', (chunk) => { state.output += chunk; });
  child.on('message', (message) => {
    if (message.type === 'started') state.started = true;
    if (message.type === 'holding') state.holding = true;
    if (message.type === 'batch') state.batches.push(message);
    if (message.type === 'injected') state.injected.push(message.stage);
    if (message.type === 'rebalance') state.assignment = message.assignment;
    if (message.type === 'stopped') state.stopped = message.stats;
  });
  state.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  state.sum = (field) => state.batches.reduce((total, batch) => total + batch[field], 0);
  return state;
}

function throughput(consumer) {
  const { batches } = consumer;
  if (batches.length < 2) return 0;
  const messages = consumer.sum('size') - batches[0].size;
  return Math.round(messages / ((batches.at(-1).at - batches[0].at) / 1000));
}

async function setUp(t, label) {
  const config = testConfig();
  const database = await createTestDatabase('fixture');
  const topic = `test-${uniqueSuffix()}-${label}`;
  const admin = createAdminClient(config.kafka);
  const producer = createProducer({ kafka: config.kafka, logger: pino({ level: 'warn' }) });
  const consumers = [];
  t.after(async () => {
    for (const { child } of consumers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await producer.disconnect().catch(() => {});
    await deleteTopic(admin, topic).catch((error) => t.diagnostic(`topic cleanup failed: ${error.message}`));
    admin.disconnect();
    await database.drop();
  });
  await createFixtureTables(database.db);
  await createTopic(admin, { topic, partitions: PARTITIONS });
  await producer.connect();
  const environment = {
    ...database.env,
    DB_HOST: config.db.host, DB_PORT: String(config.db.port), DB_USER: config.db.user, DB_PASSWORD: config.db.password,
    KAFKA_BROKERS: config.kafka.brokers, TOPIC: topic, GROUP_ID: `test-${uniqueSuffix()}-group`,
    SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS), LOG_LEVEL: 'info',
  };
  const start = (name, extraEnv) => {
    const consumer = spawnConsumer(environment, name, extraEnv);
    consumers.push(consumer);
    return consumer;
  };
  return { db: database.db, topic, producer, start };
}

/** Produces the workload in chunks, two produce() calls in flight at a time. */
async function produceAll(producer, topic, records) {
  const chunks = [];
  for (let index = 0; index < records.length; index += PRODUCE_CHUNK) {
    chunks.push(records.slice(index, index + PRODUCE_CHUNK).map((record) => ({ topic, ...record })));
  }
  const started = Date.now();
  for (let index = 0; index < chunks.length; index += 2) {
    await Promise.all(chunks.slice(index, index + 2).map((chunk) => producer.produce(chunk)));
  }
  return Date.now() - started;
}

const appliedCount = async (db) => Number((await db('fixture_applied').count({ n: '*' }))[0].n);

async function assertExactTotals(db, expectedScaled) {
  assert.equal(await appliedCount(db), DISTINCT_IDS);
  const [{ total }] = await db('fixture_total').where({ id: 1 }).select('total');
  assert.equal(typeof total, 'string', 'DECIMAL must come back as a string');
  assert.equal(scaledFromDecimal(total), expectedScaled);
  const [{ amounts }] = await db('fixture_applied').sum({ amounts: 'amount' });
  assert.equal(scaledFromDecimal(amounts), expectedScaled, 'the total equals the sum of the applied rows');
}

async function stopGracefully(consumer) {
  consumer.child.kill('SIGTERM');
  const { code } = await consumer.exited;
  assert.equal(code, 0, `${consumer.name} should exit cleanly on SIGTERM:\n${consumer.output}`);
  assert.ok(consumer.stopped, `${consumer.name} should report its stats on stop`);
}

test('a consumer killed after its database commit but before its offset commit loses nothing and applies nothing twice', { timeout: 150_000 }, async (t) => {
  const { db, topic, producer, start } = await setUp(t, 'crash');
  const { records, expectedScaled } = buildWorkload();
  const first = start('first', { HOLD_AFTER_APPLIED: '5000' });
  await waitFor('the first consumer to start', () => first.started, 30_000);
  const produceMs = await produceAll(producer, topic, records);
  t.diagnostic(`produced ${records.length} messages in ${produceMs} ms (${Math.round(records.length / (produceMs / 1000))}/s)`);

  await waitFor('the first consumer to hold after a database commit', () => first.holding, 30_000);
  const appliedAtKill = await appliedCount(db);
  assert.ok(appliedAtKill >= 5000 && appliedAtKill < DISTINCT_IDS, `some but not all applied at the kill (${appliedAtKill})`);
  first.child.kill('SIGKILL');
  assert.equal((await first.exited).signal, 'SIGKILL');

  const restartedAt = Date.now();
  const second = start('second');
  await waitFor('every id to be applied', async () => (await appliedCount(db)) >= DISTINCT_IDS, APPLY_TIMEOUT_MS, 200);
  t.diagnostic(`second consumer finished ${Date.now() - restartedAt} ms after its start (session timeout ${SESSION_TIMEOUT_MS} ms)`);
  t.diagnostic(`second consumer: ${second.batches.length} batches, ${throughput(second)} messages/s`);

  await assertExactTotals(db, expectedScaled);
  const heldBatch = first.batches.at(-1);
  assert.ok(heldBatch.applied > 0, 'the held batch applied rows that were never acknowledged');
  assert.ok(second.sum('skippedApplied') >= heldBatch.applied,
    `the second consumer was redelivered the unacknowledged batch (skipped ${second.sum('skippedApplied')}, held ${heldBatch.applied})`);
  assert.equal(first.sum('applied') + second.sum('applied'), DISTINCT_IDS, 'each id applied by exactly one consumer, once');
  const byConsumer = await db('fixture_applied').select('applied_by').count({ n: '*' }).groupBy('applied_by');
  assert.deepEqual(Object.fromEntries(byConsumer.map((row) => [row.applied_by, Number(row.n)])),
    { first: first.sum('applied'), second: second.sum('applied') });
  await stopGracefully(second);
});

test('two consumers in one group share the partitions and the total stays exact', { timeout: 120_000 }, async (t) => {
  const { db, topic, producer, start } = await setUp(t, 'share');
  const { records, expectedScaled } = buildWorkload();
  const consumers = [start('left'), start('right')];
  await waitFor('both consumers to own partitions', () => {
    const [left, right] = consumers.map((consumer) => consumer.assignment.map((tp) => tp.partition));
    return left.length > 0 && right.length > 0 && new Set([...left, ...right]).size === PARTITIONS
      && left.length + right.length === PARTITIONS;
  }, 30_000);

  const startedAt = Date.now();
  await produceAll(producer, topic, records);
  await waitFor('every id to be applied', async () => (await appliedCount(db)) >= DISTINCT_IDS, APPLY_TIMEOUT_MS, 200);
  const elapsedMs = Date.now() - startedAt;
  t.diagnostic(`two consumers applied ${DISTINCT_IDS} ids (${records.length} messages) in ${elapsedMs} ms, produce included`);

  await assertExactTotals(db, expectedScaled);
  const byConsumer = await db('fixture_applied').select('applied_by').count({ n: '*' }).groupBy('applied_by');
  const counts = Object.fromEntries(byConsumer.map((row) => [row.applied_by, Number(row.n)]));
  assert.ok(counts.left > 0 && counts.right > 0, `both consumers applied rows: ${JSON.stringify(counts)}`);
  assert.equal(counts.left + counts.right, DISTINCT_IDS);
  const duplicatesSkipped = consumers.reduce((total, c) => total + c.sum('skippedDuplicates') + c.sum('skippedApplied'), 0);
  assert.equal(duplicatesSkipped, records.length - DISTINCT_IDS, 'every duplicate message was recognised');
  for (const consumer of consumers) await stopGracefully(consumer);
});

test('a batch whose handler throws is rewound and retried, never acknowledged', { timeout: 120_000 }, async (t) => {
  const { db, topic, producer, start } = await setUp(t, 'retry');
  const { records, expectedScaled } = buildWorkload();
  const consumer = start('flaky', { FAIL_EVERY: '3', LOG_LEVEL: 'fatal' });
  await waitFor('the consumer to start', () => consumer.started, 30_000);
  await produceAll(producer, topic, records);
  await waitFor('every id to be applied', async () => (await appliedCount(db)) >= DISTINCT_IDS, APPLY_TIMEOUT_MS, 200);
  await stopGracefully(consumer);

  await assertExactTotals(db, expectedScaled);
  const before = consumer.injected.filter((stage) => stage === 'before-apply').length;
  const after = consumer.injected.filter((stage) => stage === 'after-apply').length;
  t.diagnostic(`${consumer.injected.length} injected failures (${before} before apply, ${after} after), ${consumer.stopped.batches} committed batches`);
  assert.ok(before > 0 && after > 0, 'both kinds of failure were injected');
  assert.equal(consumer.stopped.failedBatches, consumer.injected.length, 'every injected failure was seen as a failed batch');
  assert.equal(consumer.sum('applied'), DISTINCT_IDS, 'no id applied twice');
  // A batch that failed after its database commit comes back and is recognised as applied.
  assert.ok(consumer.sum('skippedApplied') > 0, 'batches failed after apply were redelivered');
});
