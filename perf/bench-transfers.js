// Transfers benchmark: N transfers through prepare → position → fulfil → commit on real
// Kafka and MariaDB (durable commits), in one of two modes:
//   --mode=kafka  events go straight onto the topics; this process plays both DFSPs by
//                 reading the notification topic and producing the payee's fulfil;
//   --mode=http   through the api-adapter (plain HTTP, without mutual TLS, as its figures in
//                 perf/RESULTS.md were measured) and the notification handler, with callbacks
//                 to fast local DFSPs served by this process.
// It prints transfers/s and latency percentiles (prepare accepted → payer told COMMITTED).
// Usage: node perf/bench-transfers.js --mode=kafka --transfers=20000 --in-flight=2000
import http from 'node:http';
import { parseArgs } from 'node:util';
import { setUpHub, onboardDfsp } from '../test/support/admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch } from '../test/support/switch.js';
import { fspiopHeaders } from '../test/support/test-dfsp.js';
import { testConfig } from '../test/support/environment.js';
import { createProducer } from '../platform/kafka/producer.js';
import { startBatchConsumer } from '../platform/kafka/consumer.js';
import { decodeEvent, encodeEvent } from '../platform/kafka/envelope.js';
import { TOPIC, topicName } from '../platform/kafka/topics.js';
import pino from 'pino';
import { createTracker, newTransfer, runFigures } from './transfer-driver.js';

const { values: options } = parseArgs({
  options: {
    mode: { type: 'string', default: 'kafka' },
    transfers: { type: 'string', default: '10000' },
    'in-flight': { type: 'string', default: '1000' },
    dfsps: { type: 'string', default: '4' },
    replicas: { type: 'string', default: '1' },
    'profile-dir': { type: 'string' },
  },
});
const TRANSFERS = Number(options.transfers);
const IN_FLIGHT = Number(options['in-flight']);
const DFSP_COUNT = Number(options.dfsps);
const logger = pino({ level: 'warn' });

function fulfilBody(fulfilment) {
  return { transferState: 'COMMITTED', fulfilment, completedTimestamp: new Date().toISOString() };
}

/** Sends every transfer, never more than IN_FLIGHT open; returns the wall time until all finished. */
async function sendAll(names, tracker, fulfilments, send) {
  const startedAt = performance.now();
  for (let index = 0; index < TRANSFERS; index += 1) {
    await tracker.room();
    const { body, fulfilment } = newTransfer(index, names);
    fulfilments.set(body.transferId, fulfilment);
    tracker.begin(body.transferId);
    send(body);
  }
  await waitDone(tracker);
  return performance.now() - startedAt;
}

async function runKafkaMode(sw, names, tracker, fulfilments) {
  const config = testConfig({ KAFKA_TOPIC_PREFIX: sw.prefix });
  const producer = createProducer({ kafka: config.kafka, logger });
  await producer.connect();
  const topic = (base) => topicName(sw.prefix, base);
  // The simulated DFSPs answer what has arrived at once: the consumer's batch wait (meant to
  // gather events for a handler's transaction) would only add the driver's own delay to
  // every transfer, twice, and measure the driver rather than the switch.
  const consumer = await startBatchConsumer({
    kafka: config.kafka, groupId: `bench-${Date.now()}`, topics: [topic(TOPIC.notificationEvent)], logger, batchWaitMs: 0,
    handleBatch: async (messages) => {
      const fulfils = [];
      for (const message of messages) {
        const event = decodeEvent(message.value);
        if (event.action === 'prepare') {
          const body = fulfilBody(fulfilments.get(event.id));
          fulfils.push({ topic: topic(TOPIC.transferFulfil), key: event.id, value: encodeEvent({ id: event.id, type: 'transfer', action: 'commit', from: event.to, to: event.from, headers: fspiopHeaders(event.to, event.from), body, rawBody: JSON.stringify(body), at: Date.now() }) });
        } else if (event.action === 'commit') {
          fulfilments.delete(event.id);
          tracker.finish(event.id);
        } else if (event.action === 'error') tracker.finish(event.id, event.body.errorInformation.errorCode);
      }
      if (fulfils.length) await producer.produce(fulfils);
    },
  });
  const elapsedMs = await sendAll(names, tracker, fulfilments, (body) => {
    const event = { id: body.transferId, type: 'transfer', action: 'prepare', from: body.payerFsp, to: body.payeeFsp, headers: fspiopHeaders(body.payerFsp, body.payeeFsp), body, rawBody: JSON.stringify(body), at: Date.now() };
    producer.produce([{ topic: topic(TOPIC.transferPrepare), key: body.transferId, value: encodeEvent(event) }]).catch((error) => tracker.finish(body.transferId, error.message));
  });
  await consumer.stop();
  await producer.disconnect();
  return elapsedMs;
}

/** Fast DFSPs for the HTTP mode: payees fulfil at once, payers record the outcome. */
async function startFastDfsps(names, apiUrl, tracker, fulfilments) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const servers = [];
  const bases = {};
  for (const name of names) {
    const server = http.createServer({ keepAliveTimeout: 60000 }, (request, response) => {
      let text = '';
      request.on('data', (chunk) => { text += chunk; });
      request.on('end', () => {
        response.writeHead(request.method === 'POST' ? 202 : 200).end();
        const id = request.url.split('/')[2];
        if (request.method === 'POST') {
          const prepare = JSON.parse(text);
          const body = JSON.stringify(fulfilBody(fulfilments.get(prepare.transferId)));
          const put = http.request(`${apiUrl}/transfers/${prepare.transferId}`, { method: 'PUT', agent, headers: fspiopHeaders(name, prepare.payerFsp, { accept: false }) });
          put.on('response', (answer) => answer.resume()).on('error', () => tracker.finish(prepare.transferId, 'fulfil-send-failed'));
          put.end(body);
        } else if (request.method === 'PUT' && request.url.endsWith('/error')) {
          tracker.finish(id, JSON.parse(text).errorInformation.errorCode);
        } else if (request.method === 'PUT') {
          fulfilments.delete(id);
          tracker.finish(id);
        }
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    bases[name] = `http://127.0.0.1:${server.address().port}`;
  }
  return { bases, agent, close: () => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))) };
}

function runHttpMode(sw, names, tracker, dfsps, fulfilments) {
  return sendAll(names, tracker, fulfilments, (body) => {
    const post = http.request(`${sw.apiUrl}/transfers`, { method: 'POST', agent: dfsps.agent, headers: fspiopHeaders(body.payerFsp, body.payeeFsp) });
    post.on('response', (answer) => {
      answer.resume();
      if (answer.statusCode !== 202) tracker.finish(body.transferId, `http-${answer.statusCode}`);
    }).on('error', (error) => tracker.finish(body.transferId, error.code));
    post.end(JSON.stringify(body));
  });
}

async function waitDone(tracker) {
  const deadline = Date.now() + 600000;
  while (tracker.done() < TRANSFERS && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function main() {
  const replicas = Number(options.replicas);
  const components = options.mode === 'kafka' ? ['prepare', 'position', 'fulfil'] : TRANSFER_COMPONENTS;
  const sw = await startSwitch({ components, replicas: { prepare: replicas, position: replicas, fulfil: replicas, notification: replicas }, env: { LOG_LEVEL: 'warn', CLIENT_IDENTITY: 'off' },
    nodeArgs: options['profile-dir'] ? ['--cpu-prof', `--cpu-prof-dir=${options['profile-dir']}`] : [] });
  const tracker = createTracker(IN_FLIGHT);
  const fulfilments = new Map();
  const names = Array.from({ length: DFSP_COUNT }, (_, index) => `benchfsp${index + 1}`);
  let dfsps;
  try {
    await setUpHub(sw.admin.request);
    if (options.mode === 'http') dfsps = await startFastDfsps(names, sw.apiUrl, tracker, fulfilments);
    for (const name of names) await onboardDfsp(sw.admin.request, { name, netDebitCap: '100000000', fundsIn: '100000000', endpointBase: dfsps?.bases[name] });
    const elapsedMs = options.mode === 'kafka' ? await runKafkaMode(sw, names, tracker, fulfilments) : await runHttpMode(sw, names, tracker, dfsps, fulfilments);
    report(tracker, elapsedMs);
  } finally {
    await dfsps?.close();
    await sw.stop();
  }
}

function report(tracker, elapsedMs) {
  console.log(JSON.stringify({
    mode: options.mode, transfers: TRANSFERS, inFlightMax: IN_FLIGHT, dfsps: DFSP_COUNT, replicas: Number(options.replicas),
    ...runFigures(tracker, TRANSFERS, elapsedMs),
  }, null, 2));
}

await main();
