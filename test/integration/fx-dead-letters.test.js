// Dead letters in a conversion payment, on the running switch: a message of the fx flow that a
// handler cannot process (here one the database refuses to store, produced straight onto the
// topic as a buggy or hostile producer could) is set aside after a few attempts, what it
// concerned ends with nothing left reserved in either currency, its parties hear 2001 (the
// FXP a PATCH ABORTED where a conversion it had reserved ends), and the next conversion payment
// commits. The pure decisions are in test/unit/fx-dead-letters.test.js.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { conversionPayment, FXP, PAYER, PAYEE, reservedBody, startFxScene, waitUntil } from '../support/fx-switch.js';
import { fspiopHeaders, fulfilmentFor } from '../support/test-dfsp.js';
import { testConfig } from '../support/environment.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { createLogger } from '../../platform/logger.js';
import { createMetrics } from '../../platform/metrics.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { TOPIC, topicName } from '../../platform/kafka/topics.js';
import { readDeadLetters } from '../../platform/kafka/dead-letter-reader.js';

// Accepted by the API's DateTime pattern, but year 10000 in UTC: MariaDB refuses to store it.
const YEAR_10000 = '9999-12-31T23:59:59.999-01:00';

let scene;
let producer;

before(async () => {
  scene = await startFxScene({ env: { DEAD_LETTER_AFTER_FAILURES: '2' } });
  const config = testConfig({ KAFKA_TOPIC_PREFIX: scene.sw.prefix, LOG_LEVEL: 'warn' });
  producer = createProducer({ kafka: config.kafka, logger: createLogger(config), metrics: createMetrics(config) });
  await producer.connect();
});

after(async () => {
  await producer?.disconnect();
  await scene?.stop();
});

/** Produces an event onto one of the switch's topics, as the edge does but without its checks. */
async function produceRaw(baseTopic, event) {
  const headers = event.type === 'fxTransfer' ? { 'content-type': 'application/vnd.interoperability.fxTransfers+json;version=2.0' } : fspiopHeaders(event.from, event.to);
  const carried = { ...event, headers: { ...headers, 'fspiop-source': event.from, 'fspiop-destination': event.to }, rawBody: JSON.stringify(event.body), at: Date.now() };
  await producer.produce([{ topic: topicName(scene.sw.prefix, baseTopic), key: event.id, value: encodeEvent(carried) }]);
}

async function statesOf(flow) {
  const [rows] = await scene.sw.admin.db.raw('SELECT transfer_id, state FROM transfer WHERE transfer_id IN (?, ?)', [flow.commitRequestId, flow.transferId]);
  const stateOf = (id) => rows.find((row) => row.transfer_id === id)?.state;
  const states = { conversion: stateOf(flow.commitRequestId), payment: stateOf(flow.transferId) };
  return Object.fromEntries(Object.entries(states).filter(([, state]) => state !== undefined));
}

async function waitForStates(flow, expected) {
  await waitUntil(async () => JSON.stringify(await statesOf(flow)) === JSON.stringify(expected), 20_000)
    .catch(async () => assert.fail(`states ${JSON.stringify(await statesOf(flow))}, not ${JSON.stringify(expected)}`));
}

const errorAbout = (dfsp, path) => dfsp.waitFor((call) => call.method === 'PUT' && call.path === `${path}/error` && call.body?.errorInformation?.errorCode === '2001', 20_000);
const patchAborted = (flow) => scene.fxp.waitFor((call) => call.method === 'PATCH' && call.path === `/fxTransfers/${flow.commitRequestId}` && call.body?.conversionState === 'ABORTED', 20_000);

async function deadLetterOf(handler, key) {
  const kafka = testConfig({ KAFKA_TOPIC_PREFIX: scene.sw.prefix }).kafka;
  let found = [];
  await waitUntil(async () => {
    found = (await readDeadLetters({ kafka, handler })).filter((record) => record.key === key);
    return found.length > 0;
  }, 20_000).catch(() => assert.fail(`no dead letter keyed ${key} on the ${handler} handler's topic`));
  return found[0];
}

/** The next conversion payment commits whole: the poison held nothing up. */
async function assertNextConversionCommits() {
  const flow = conversionPayment(scene.payee);
  const outcome = await scene.payThroughFxp(flow);
  assert.equal(outcome.body?.transferState, 'COMMITTED', JSON.stringify(outcome.body));
}

test('an fx prepare the database cannot store is dead-lettered, never stored, the payer told 2001, and the next conversion payment commits', { timeout: 90_000 }, async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(scene.payee);
  await produceRaw(TOPIC.transferPrepare, {
    id: flow.commitRequestId, type: 'fxTransfer', action: 'fx-prepare', from: PAYER, to: FXP, body: { ...flow.conversion, expiration: YEAR_10000 },
  });
  await errorAbout(scene.payer, `/fxTransfers/${flow.commitRequestId}`);
  const letter = await deadLetterOf('prepare', flow.commitRequestId);
  assert.equal(JSON.parse(letter.value.toString('utf8')).id, flow.commitRequestId, 'the original message is kept byte for byte');
  assert.deepEqual(await statesOf(flow), {}, 'the poison was never stored');
  assert.deepEqual(await scene.allPositions(), before, 'nothing was reserved');
  await assertNextConversionCommits();
});

test('an FXP answer the database cannot store is dead-lettered: the reserved conversion ends, the payer\'s USD is released, payer and FXP hear 2001', { timeout: 90_000 }, async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(scene.payee);
  await scene.postConversion(flow);
  await scene.conversionAtFxp(flow);
  await waitForStates(flow, { conversion: 'RESERVED' });
  await produceRaw(TOPIC.transferFulfil, {
    id: flow.commitRequestId, type: 'fxTransfer', action: 'fx-reserve', from: FXP, to: PAYER, body: { ...reservedBody(flow.fxFulfilment), completedTimestamp: YEAR_10000 },
  });
  await Promise.all([errorAbout(scene.payer, `/fxTransfers/${flow.commitRequestId}`), errorAbout(scene.fxp, `/fxTransfers/${flow.commitRequestId}`)]);
  await waitForStates(flow, { conversion: 'ABORTED_ERROR' });
  assert.deepEqual(await scene.allPositions(), before, 'the payer\'s USD reservation was released');
  await deadLetterOf('fulfil', flow.commitRequestId);
  await assertNextConversionCommits();
});

test('a payee fulfil of a conversion payment the database cannot store is dead-lettered: both reservations are released, the FXP is PATCHed ABORTED, payer and payee hear 2001', { timeout: 90_000 }, async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(scene.payee, { payeeBehaviour: 'late' });
  await scene.reservedConversion(flow);
  await scene.postPayment(flow);
  await waitForStates(flow, { conversion: 'RECEIVED_FULFIL_DEPENDENT', payment: 'RESERVED' });
  const body = { fulfilment: fulfilmentFor(scene.payee.secret, flow.payment.ilpPacket), completedTimestamp: YEAR_10000, transferState: 'COMMITTED' };
  await produceRaw(TOPIC.transferFulfil, { id: flow.transferId, type: 'transfer', action: 'commit', from: PAYEE, to: PAYER, body });
  await Promise.all([
    errorAbout(scene.payer, `/transfers/${flow.transferId}`), errorAbout(scene.payee, `/transfers/${flow.transferId}`), patchAborted(flow),
  ]);
  await waitForStates(flow, { conversion: 'ABORTED_ERROR', payment: 'ABORTED_ERROR' });
  assert.deepEqual(await scene.allPositions(), before, 'the payer\'s USD and the FXP\'s EUR were released');
  await deadLetterOf('fulfil', flow.transferId);
  await assertNextConversionCommits();
});
