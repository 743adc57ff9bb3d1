// Mojaloop's central-ledger measured with the driver of `perf/bench-transfers.js --mode=kafka`,
// so that its transfers/s can be quoted beside our ledger core's, measured back to back on the
// same machine, MariaDB and Kafka:
//   - N transfers between DFSPs, at most IN_FLIGHT open; each prepare is produced straight
//     onto central-ledger's prepare topic in Mojaloop's message envelope (what its ml-api-adapter
//     would produce);
//   - this process reads the notification topic itself (no notification handler runs): for a
//     prepare forwarded to a payee it produces the payee's fulfil (COMMITTED) onto the fulfil
//     topic; the payer's COMMITTED notification ends the transfer;
//   - latency is prepare produced → payer's COMMITTED notification read.
// central-ledger runs as Mojaloop deploys it: its admin API, and one process per handler
// (prepare, position batch, fulfil, plus the admin handler that books funds-in), each with its
// health API, configured through a generated config file (rc's CLEDG_config) and CLEDG_* vars.
// Choices: the position *batch* handler, with every position action it supports routed to its
// topic (central-ledger README, "Batch Processing Configuration Guide"; Mojaloop's v17
// deployments run it); no timeout or notification handler; Redis (proxy cache) and MongoDB
// off; the in-process participant cache on (--cache=off turns it off); logs at warn and the
// event SDK's audit records not logged, as our services log in the benchmark.
// Every run gets a database (cl_bench_<suffix>, migrated and seeded by central-ledger's own
// admin API) and Kafka topics of its own, removed at the end. The topics are on our broker,
// so both benchmarks share one Kafka and its settings, under a per-run prefix
// (clbench-<suffix>-topic-…, set through central-ledger's topic templates and position topic
// map) that the switch's names (topic-…, or a test's test-<suffix>-topic-…) never take.
// Prerequisites: `make infra-up` (our MariaDB and Kafka); perf/central-ledger/setup.sh
// installs central-ledger and its Node 22 into .run/central-ledger/ and is run from here.
// Usage: node perf/bench-central-ledger.js --transfers=20000 --in-flight=300
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { testConfig, uniqueSuffix } from '../test/support/environment.js';
import { createDatabase } from '../platform/db.js';
import { createAdminClient, createTopic, deleteTopic } from '../platform/kafka/admin.js';
import { createProducer } from '../platform/kafka/producer.js';
import { startBatchConsumer } from '../platform/kafka/consumer.js';
import { CURRENCY, createTracker, newTransfer, runFigures } from './transfer-driver.js';
import { adminClient, ensureDfsp, ensureHub } from '../scripts/lib/onboarding.js';
import { freePort } from '../scripts/lib/ports.js';

const { values: options } = parseArgs({
  options: {
    transfers: { type: 'string', default: '10000' },
    'in-flight': { type: 'string', default: '1000' },
    dfsps: { type: 'string', default: '4' },
    // central-ledger's in-process cache of participants, accounts and limits (CACHE.CACHE_ENABLED);
    // Redis (the proxy cache) stays off either way.
    cache: { type: 'string', default: 'on' },
    // The position batch consumer's batch size; its default.json says 10.
    'position-batch-size': { type: 'string' },
    // Keep the database, topics and logs of the run for a look afterwards.
    keep: { type: 'boolean', default: false },
  },
});
const TRANSFERS = Number(options.transfers);
const IN_FLIGHT = Number(options['in-flight']);
const DFSP_COUNT = Number(options.dfsps);
const CACHE_ON = options.cache !== 'off';
const logger = pino({ level: 'warn' });

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CL_DIR = process.env.CL_DIR ?? path.join(REPO_ROOT, '.run', 'central-ledger');
const CL_NODE = path.join(CL_DIR, 'node', 'bin', 'node');
const CL_APP = path.join(CL_DIR, 'app', 'node_modules', '@mojaloop', 'central-ledger');

const NET_DEBIT_CAP = '100000000';
const FUNDS_IN = '100000000';
const CONTENT_TYPE = 'application/vnd.interoperability.transfers+json;version=1.1';
// The same partition counts as our own local topics (platform/kafka/topics.js), so that the
// two benchmarks differ in the ledger and not in the topics; the admin topic is idle.
const PARTITIONS = 4;
const STARTUP_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 10_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// --- central-ledger installation, configuration and processes --------------------------------

function ensureInstalled() {
  const setup = spawnSync('bash', [path.join(REPO_ROOT, 'perf', 'central-ledger', 'setup.sh')], { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CL_DIR } });
  if (setup.status !== 0) throw new Error(`perf/central-ledger/setup.sh failed (exit ${setup.status})`);
  return JSON.parse(readFileSync(path.join(CL_APP, 'package.json'), 'utf8')).version;
}

/** The names of the run's topics: central-ledger's own names behind a prefix of the run's. */
function topicsOf(prefix) {
  const general = (functionality, action) => `${prefix}topic-${functionality}-${action}`;
  return {
    prepare: general('transfer', 'prepare'),
    fulfil: general('transfer', 'fulfil'),
    positionBatch: general('transfer', 'position-batch'),
    // The non-batch position topic stays the destination of bulk prepares and commits only.
    position: general('transfer', 'position'),
    notification: general('notification', 'event'),
    admin: general('admin', 'transfer'),
  };
}

/**
 * The overrides of central-ledger's config/default.json for this run (rc deep-merges them).
 * Every Kafka client of its default.json gets our broker, and every consumer group a name of
 * the run's; the topic templates get the run's prefix; every position action that the batch
 * handler supports goes to the batch topic, as Mojaloop's batch deployment configures it.
 */
function centralLedgerConfig({ db, dbName, brokers, prefix, topics, suffix, apiPort }) {
  const defaults = JSON.parse(readFileSync(path.join(CL_APP, 'config', 'default.json'), 'utf8'));
  const kafkaClients = {};
  for (const flow of ['CONSUMER', 'PRODUCER']) {
    kafkaClients[flow] = {};
    for (const [functionality, actions] of Object.entries(defaults.KAFKA[flow])) {
      kafkaClients[flow][functionality] = {};
      for (const [action, client] of Object.entries(actions)) {
        const rdkafkaConf = { 'metadata.broker.list': brokers };
        if (flow === 'CONSUMER') rdkafkaConf['group.id'] = `${client.config.rdkafkaConf['group.id']}-${suffix}`;
        const config = { rdkafkaConf };
        if (flow === 'CONSUMER' && functionality === 'TRANSFER' && action === 'POSITION_BATCH' && options['position-batch-size']) {
          config.options = { batchSize: Number(options['position-batch-size']) };
        }
        kafkaClients[flow][functionality][action] = { config };
      }
    }
  }
  const batchActions = ['PREPARE', 'FX_PREPARE', 'COMMIT', 'FX_COMMIT', 'RESERVE', 'FX_RESERVE', 'TIMEOUT_RESERVED', 'FX_TIMEOUT_RESERVED', 'ABORT', 'FX_ABORT'];
  return {
    PORT: apiPort,
    HOSTNAME: `http://127.0.0.1:${apiPort}`,
    DATABASE: { HOST: db.host, PORT: db.port, USER: db.user, PASSWORD: db.password, SCHEMA: dbName },
    MONGODB: { DISABLED: true },
    PROXY_CACHE: { enabled: false },
    CACHE: { CACHE_ENABLED: CACHE_ON },
    HANDLERS: { TIMEOUT: { DISABLED: true } },
    KAFKA: {
      EVENT_TYPE_ACTION_TOPIC_MAP: { POSITION: Object.fromEntries(batchActions.map((action) => [action, topics.positionBatch])) },
      TOPIC_TEMPLATES: {
        PARTICIPANT_TOPIC_TEMPLATE: { TEMPLATE: `${prefix}topic-{{participantName}}-{{functionality}}-{{action}}`, REGEX: `${prefix}topic-(.*)-(.*)-(.*)` },
        GENERAL_TOPIC_TEMPLATE: { TEMPLATE: `${prefix}topic-{{functionality}}-{{action}}`, REGEX: `${prefix}topic-(.*)-(.*)` },
      },
      ...kafkaClients,
    },
  };
}

/** Starts one central-ledger process with its output in a log file; resolves once it is healthy. */
async function startProcess(run, { name, args, port, env }) {
  const log = createWriteStream(path.join(run.dir, `${name}.log`));
  const child = spawn(CL_NODE, args, {
    cwd: CL_APP,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME,
      NODE_ENV: 'production',
      CLEDG_config: run.configFile,
      CLEDG_PORT: String(port),
      // Logs at warn, and no audit records from the event SDK.
      LOG_LEVEL: 'warn', CSL_LOG_LEVEL: 'warn',
      EVENT_SDK_LOG_FILTER: 'log:warn, log:error', EVENT_SDK_LOG_METADATA_ONLY: 'true', EVENT_SDK_SIDECAR_DISABLED: 'true',
      ...env,
    },
  });
  child.stdout.pipe(log);
  child.stderr.pipe(log);
  const entry = { name, child, exited: null };
  child.on('exit', (code, signal) => { entry.exited = { code, signal }; });
  run.processes.push(entry);
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  for (;;) {
    if (entry.exited) throw new Error(`central-ledger ${name} exited during start-up (${JSON.stringify(entry.exited)}); see ${path.join(run.dir, `${name}.log`)}`);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
      if (answer.ok) return entry;
    } catch { /* Not listening yet. */ }
    if (Date.now() > deadline) throw new Error(`central-ledger ${name} not healthy within ${STARTUP_TIMEOUT_MS / 1000} s`);
    await sleep(250);
  }
}

async function stopProcesses(processes) {
  await Promise.all(processes.map(async ({ child, exited }) => {
    if (exited || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await gone;
    clearTimeout(timer);
  }));
}

// --- onboarding through central-ledger's admin API ----------------------------------------------

const isZero = (value) => !/[1-9]/.test(String(value));

/**
 * Onboards the hub and the DFSPs with the same client and sequence that onboard our switch
 * (scripts/lib/onboarding.js: central-ledger's own admin API requests), then waits until the
 * admin handler has booked each DFSP's funds-in, which central-ledger does asynchronously.
 */
async function onboard(apiUrl, names) {
  const request = adminClient(apiUrl);
  await ensureHub(request, CURRENCY);
  // No callback endpoints: central-ledger 19.5.5 answers 500 to endpoint types newer than it
  // (the FX ones among ours), and nothing here would call them.
  for (const name of names) await ensureDfsp(request, { name, currency: CURRENCY, netDebitCap: NET_DEBIT_CAP, fundsIn: FUNDS_IN });
  const deadline = Date.now() + 60_000;
  for (const name of names) {
    for (;;) {
      const { body: accounts } = await request('GET', `/participants/${name}/accounts`);
      if (!isZero(accounts.find((account) => account.ledgerAccountType === 'SETTLEMENT' && account.currency === CURRENCY).value)) break;
      if (Date.now() > deadline) throw new Error(`funds in for ${name} not booked within 60 s (is the admin handler running?)`);
      await sleep(200);
    }
  }
}

// --- Mojaloop's Kafka message envelope ---------------------------------------------------------

function fspiopHeaders(source, destination) {
  return { 'content-type': CONTENT_TYPE, accept: CONTENT_TYPE, date: new Date().toUTCString(), 'fspiop-source': source, 'fspiop-destination': destination };
}

/** A message as central-ledger's handlers consume it; `payload` travels as a base64 data: URI. */
function mojaloopMessage({ id, from, to, type, action, body, uriParams }) {
  const text = JSON.stringify(body);
  return JSON.stringify({
    id, to, from, type: 'application/json',
    content: {
      headers: { ...fspiopHeaders(from, to), 'content-length': String(Buffer.byteLength(text)) },
      payload: `data:${CONTENT_TYPE};base64,${Buffer.from(text).toString('base64')}`,
      uriParams,
    },
    metadata: { event: { id: randomUUID(), type, action, createdAt: new Date().toISOString(), state: { status: 'success', code: 0, description: 'action successful' } } },
  });
}

/** The error code of a failed notification: the state's, or the FSPIOP error in the payload. */
function failureCode(value) {
  const code = value.metadata?.event?.state?.code;
  if (code !== undefined && code !== null && code !== 0) return String(code);
  return String(value.content?.payload?.errorInformation?.errorCode ?? 'unknown-error');
}

async function drive({ kafka, topics, names, tracker, run }) {
  const producer = createProducer({ kafka, logger });
  await producer.connect();
  const open = new Map();
  // As in bench-transfers.js: the simulated DFSPs answer what has arrived at once.
  const consumer = await startBatchConsumer({
    kafka, groupId: `bench-central-ledger-${run.suffix}`, topics: [topics.notification], logger, batchWaitMs: 0,
    handleBatch: async (messages) => {
      const fulfils = [];
      for (const message of messages) {
        const value = JSON.parse(message.value.toString('utf8'));
        const { action, state } = value.metadata.event;
        const id = value.content?.uriParams?.id ?? value.id;
        if (state?.status !== 'success') {
          open.delete(id);
          tracker.finish(id, failureCode(value));
        } else if (action === 'prepare') {
          const transfer = open.get(id);
          if (!transfer) continue;
          const body = { transferState: 'COMMITTED', fulfilment: transfer.fulfilment, completedTimestamp: new Date().toISOString() };
          fulfils.push({ topic: topics.fulfil, key: id, value: mojaloopMessage({ id, from: transfer.payee, to: transfer.payer, type: 'fulfil', action: 'commit', body, uriParams: { id } }) });
        } else if (action === 'commit') {
          open.delete(id);
          tracker.finish(id);
        }
      }
      if (fulfils.length) await producer.produce(fulfils);
    },
  });
  const startedAt = performance.now();
  const deadline = Date.now() + 600000;
  const shouldStop = () => run.crashed() || Date.now() > deadline;
  try {
    for (let index = 0; index < TRANSFERS; index += 1) {
      if (!await tracker.room(shouldStop)) break;
      const { body, fulfilment } = newTransfer(index, names);
      open.set(body.transferId, { fulfilment, payer: body.payerFsp, payee: body.payeeFsp });
      tracker.begin(body.transferId);
      const value = mojaloopMessage({ id: body.transferId, from: body.payerFsp, to: body.payeeFsp, type: 'prepare', action: 'prepare', body, uriParams: {} });
      producer.produce([{ topic: topics.prepare, key: body.transferId, value }]).catch((error) => tracker.finish(body.transferId, error.message));
    }
    while (tracker.done() < TRANSFERS && !shouldStop()) await sleep(50);
    return performance.now() - startedAt;
  } finally {
    await consumer.stop();
    await producer.disconnect();
  }
}

// --- the run -----------------------------------------------------------------------------------

async function main() {
  const version = ensureInstalled();
  const config = testConfig();
  const suffix = uniqueSuffix();
  const dbName = `cl_bench_${suffix}`;
  const prefix = `clbench-${suffix.replaceAll('_', '-')}-`;
  const topics = topicsOf(prefix);
  const dir = path.join(CL_DIR, 'runs', suffix);
  mkdirSync(dir, { recursive: true });
  const run = { suffix, dir, configFile: path.join(dir, 'config.json'), processes: [] };
  run.crashed = () => run.processes.some((entry) => entry.exited);
  const names = Array.from({ length: DFSP_COUNT }, (_, index) => `benchfsp${index + 1}`);
  const tracker = createTracker(IN_FLIGHT);
  let createdDb = false;
  const createdTopics = [];
  let succeeded = false;
  const cleanUp = async () => {
    await stopProcesses(run.processes);
    // A failed run keeps its processes' logs to read; a passed one leaves nothing behind.
    if (succeeded && !options.keep) rmSync(dir, { recursive: true, force: true });
    else process.stderr.write(`central-ledger logs: ${dir}\n`);
    if (options.keep) {
      process.stderr.write(`kept: database ${dbName}, topics ${prefix}*\n`);
      return;
    }
    if (createdTopics.length) {
      const admin = createAdminClient(config.kafka);
      try {
        for (const topic of createdTopics) await deleteTopic(admin, topic).catch((error) => logger.warn({ err: error, topic }, 'could not delete topic'));
      } finally { admin.disconnect(); }
    }
    if (createdDb) {
      const admin = createDatabase(config.db, { database: undefined });
      try { await admin.raw(`DROP DATABASE IF EXISTS \`${dbName}\``); } finally { await admin.destroy(); }
    }
  };
  let cleaned = null;
  const cleanUpOnce = () => (cleaned ??= cleanUp());
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => { cleanUpOnce().finally(() => process.exit(130)); });
  }
  try {
    const dbAdmin = createDatabase(config.db, { database: undefined });
    try {
      await dbAdmin.raw(`CREATE DATABASE \`${dbName}\` CHARACTER SET utf8mb4`);
      createdDb = true;
    } finally { await dbAdmin.destroy(); }

    const kafkaAdmin = createAdminClient(config.kafka);
    try {
      for (const topic of Object.values(topics)) {
        await createTopic(kafkaAdmin, { topic, partitions: topic === topics.admin ? 1 : PARTITIONS });
        createdTopics.push(topic);
      }
    } finally { kafkaAdmin.disconnect(); }

    const apiPort = await freePort();
    writeFileSync(run.configFile, JSON.stringify(centralLedgerConfig({ db: config.db, dbName, brokers: config.kafka.brokers, prefix, topics, suffix, apiPort }), null, 2));
    // The admin API runs central-ledger's migrations and seeds into the new database first.
    await startProcess(run, { name: 'admin-api', args: ['src/api/index.js'], port: apiPort, env: { CLEDG_HANDLERS__DISABLED: 'true', CLEDG_MIGRATIONS__DISABLED: 'false' } });
    // Each handler serves its health API on a port of its own, as in Mojaloop's deployments.
    const handlers = ['admin', 'prepare', 'positionbatch', 'fulfil'];
    const ports = await Promise.all(handlers.map(() => freePort()));
    await Promise.all(handlers.map((handler, index) => startProcess(run, {
      name: `handler-${handler}`, args: ['src/handlers/index.js', 'handler', `--${handler}`], port: ports[index],
      env: { CLEDG_MIGRATIONS__DISABLED: 'true' },
    })));
    await onboard(`http://127.0.0.1:${apiPort}`, names);
    const loadAtStart = os.loadavg()[0];
    const elapsedMs = await drive({ kafka: config.kafka, topics, names, tracker, run });
    const crashed = run.processes.filter((entry) => entry.exited).map((entry) => entry.name);
    if (crashed.length) throw new Error(`central-ledger process(es) exited during the run: ${crashed.join(', ')}; see ${dir}`);
    report(tracker, elapsedMs, version, [loadAtStart, os.loadavg()[0]]);
    succeeded = true;
  } finally {
    await cleanUpOnce();
  }
}

/** `loadAverage`: the machine's 1-minute load at the start and the end of the run: on a shared
 * two-core machine, anything well above the benchmark's own processes means a disturbed run. */
function report(tracker, elapsedMs, version, loadAverage) {
  console.log(JSON.stringify({
    mode: 'central-ledger', centralLedgerVersion: version, positionHandler: 'batch', cache: CACHE_ON ? 'on' : 'off',
    transfers: TRANSFERS, inFlightMax: IN_FLIGHT, dfsps: DFSP_COUNT, ...runFigures(tracker, TRANSFERS, elapsedMs),
    loadAverage1m: loadAverage.map((load) => Number(load.toFixed(2))),
  }, null, 2));
}

await main();
