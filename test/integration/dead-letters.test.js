// A message a handler cannot process must not stop its partition: after a few attempts it
// is set aside on the handler's dead-letter topic, what it concerned is finished (a transfer
// released or refused, its parties told with 2001), and the next normal payment goes through
// within seconds. The poison is produced straight onto each topic, as a buggy or hostile
// producer could, so this holds whatever the edges let through.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch } from '../support/switch.js';
import { fspiopHeaders, fulfilmentFor, quoteIlp, startTestDfsp } from '../support/test-dfsp.js';
import { quoteHeaders, quoteRequestBody } from '../support/quote-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';
import { testConfig } from '../support/environment.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { createLogger } from '../../platform/logger.js';
import { createMetrics } from '../../platform/metrics.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { TOPIC, topicName } from '../../platform/kafka/topics.js';
import { readDeadLetters } from '../../platform/kafka/dead-letter-reader.js';

// Accepted by the API's DateTime pattern, but year 10000 in UTC: MariaDB refuses to store it.
const YEAR_10000 = '9999-12-31T23:59:59.999-01:00';
// Every later payment must finish this soon after a poison, not wait behind it.
const NEXT_PAYMENT_WITHIN_MS = 10_000;

let sw;
let payer;
let payee;
let producer;

before(async () => {
  sw = await startSwitch({
    components: [...TRANSFER_COMPONENTS, 'quoting', 'quoting-handler'],
    env: { DEAD_LETTER_AFTER_FAILURES: '2' },
  });
  await setUpHub(sw.admin.request);
  const quotingUrl = sw.urlOf('quoting');
  payer = await startTestDfsp({ name: 'dlpayer', switchUrl: sw.apiUrl, urls: { quotes: quotingUrl } });
  payee = await startTestDfsp({ name: 'dlpayee', switchUrl: sw.apiUrl, urls: { quotes: quotingUrl } });
  for (const dfsp of [payer, payee]) await onboardDfsp(sw.admin.request, { name: dfsp.name, endpointBase: dfsp.url, netDebitCap: '100000', fundsIn: '100000' });
  const config = testConfig({ KAFKA_TOPIC_PREFIX: sw.prefix, LOG_LEVEL: 'warn' });
  producer = createProducer({ kafka: config.kafka, logger: createLogger(config), metrics: createMetrics(config) });
  await producer.connect();
});

after(async () => {
  await producer?.disconnect();
  await Promise.all([payer, payee].filter(Boolean).map((dfsp) => dfsp.close()));
  await sw?.stop();
});

function prepareBody(transferId) {
  const expiration = new Date(Date.now() + 30_000).toISOString();
  const amount = '1.5';
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount, currency: 'USD', payeeAddress: `g.${payee.name}`, expiration });
  return { transferId, payerFsp: payer.name, payeeFsp: payee.name, amount: { amount, currency: 'USD' }, ...ilp, expiration };
}

/** Produces an event onto one of the switch's topics, as the edges do but without their checks. */
async function produceRaw(baseTopic, key, event) {
  await producer.produce([{ topic: topicName(sw.prefix, baseTopic), key, value: encodeEvent(event) }]);
}

function transferEvent(action, { id, from, to, body }) {
  const headers = fspiopHeaders(from, to);
  return { id, type: 'transfer', action, from, to, headers, body, rawBody: JSON.stringify(body), at: Date.now() };
}

async function pay({ behaviour } = {}) {
  const transferId = randomUUID();
  if (behaviour) payee.setBehaviour(transferId, behaviour);
  const response = await signedFetch(`${sw.apiUrl}/transfers`, {
    method: 'POST', headers: fspiopHeaders(payer.name, payee.name), body: JSON.stringify(prepareBody(transferId)),
  });
  assert.equal(response.status, 202, await response.text());
  return transferId;
}

/** A normal payment sent now commits, and its payer hears so, within the bound. */
async function assertNextPaymentCommits(after) {
  const started = Date.now();
  const transferId = await pay();
  await payer.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${transferId}` && call.body?.transferState === 'COMMITTED', NEXT_PAYMENT_WITHIN_MS);
  return { after, ms: Date.now() - started };
}

const errorCallback = (dfsp, path) => dfsp.waitFor((call) => call.method === 'PUT' && call.path === `${path}/error` && call.body?.errorInformation?.errorCode === '2001', 20_000);

async function stateOf(transferId) {
  const row = await sw.admin.db('transfer').where('transfer_id', transferId).first('state');
  return row?.state;
}

async function waitForState(transferId, states, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await stateOf(transferId);
    if (states.includes(state)) return state;
    if (Date.now() > deadline) throw new Error(`transfer ${transferId} is ${state}, not ${states.join(' or ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function positionOf(name) {
  const row = await sw.admin.db('position').join('account', 'account.id', 'position.account_id')
    .join('participant', 'participant.id', 'account.participant_id')
    .where({ 'participant.name': name, 'account.type': 'POSITION' }).first(sw.admin.db.raw('CAST(position.value * 10000 AS SIGNED) AS units'));
  return BigInt(row.units);
}

async function deadLettersOf(handler, predicate) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = (await readDeadLetters({ kafka: testConfig({ KAFKA_TOPIC_PREFIX: sw.prefix }).kafka, handler })).filter(predicate);
    if (found.length > 0 || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test('a prepare the database cannot store is dead-lettered, its payer told 2001, and the next payment commits', { timeout: 60_000 }, async () => {
  const poisonId = randomUUID();
  await produceRaw(TOPIC.transferPrepare, poisonId, transferEvent('prepare', {
    id: poisonId, from: payer.name, to: payee.name, body: { ...prepareBody(poisonId), expiration: YEAR_10000 },
  }));
  const { ms } = await assertNextPaymentCommits('prepare poison');
  assert.ok(ms < NEXT_PAYMENT_WITHIN_MS);
  await errorCallback(payer, `/transfers/${poisonId}`);
  assert.equal(await stateOf(poisonId), undefined, 'the poison was never stored');
  const [letter] = await deadLettersOf('prepare', (record) => record.key === poisonId);
  assert.ok(letter, 'the poison is on the prepare dead-letter topic');
  assert.equal(letter.topic, topicName(sw.prefix, TOPIC.transferPrepare));
  assert.equal(letter.failures, 2);
  assert.match(letter.error.message, /./);
  assert.equal(JSON.parse(letter.value.toString('utf8')).id, poisonId, 'the original message is kept byte for byte');
});

test('a poison too large to keep as base64 under Kafka\'s message size is dead-lettered without its bytes, not retried forever', { timeout: 60_000 }, async () => {
  const poisonId = randomUUID();
  // About 800 KB as an event (written with its raw body alone): under the 1 MB a record may
  // have, over it as base64.
  const body = { ...prepareBody(poisonId), expiration: YEAR_10000, note: 'x'.repeat(800_000) };
  await produceRaw(TOPIC.transferPrepare, poisonId, transferEvent('prepare', { id: poisonId, from: payer.name, to: payee.name, body }));
  await assertNextPaymentCommits('oversized prepare poison');
  await errorCallback(payer, `/transfers/${poisonId}`);
  const [letter] = await deadLettersOf('prepare', (record) => record.key === poisonId);
  assert.ok(letter, 'the poison is on the prepare dead-letter topic');
  assert.equal(letter.value, null, 'its bytes were left out');
  assert.ok(letter.valueBytes > 750_000, `its size is kept (${letter.valueBytes})`);
});

test('a fulfil the database cannot store is dead-lettered; the reserved transfer is released and both parties told 2001', { timeout: 60_000 }, async () => {
  const transferId = await pay({ behaviour: 'late' });
  await waitForState(transferId, ['RESERVED']);
  const reserved = await positionOf(payer.name);
  const { body: prepare } = await payee.waitFor((call) => call.method === 'POST' && call.body?.transferId === transferId);
  const body = { fulfilment: fulfilmentFor(payee.secret, prepare.ilpPacket), completedTimestamp: YEAR_10000, transferState: 'COMMITTED' };
  await produceRaw(TOPIC.transferFulfil, transferId, transferEvent('commit', { id: transferId, from: payee.name, to: payer.name, body }));
  await assertNextPaymentCommits('fulfil poison');
  await Promise.all([errorCallback(payer, `/transfers/${transferId}`), errorCallback(payee, `/transfers/${transferId}`)]);
  assert.equal(await waitForState(transferId, ['ABORTED_ERROR']), 'ABORTED_ERROR');
  // The reservation of 1.5 was released, and the next payment's 1.5 committed.
  assert.equal(await positionOf(payer.name), reserved - 15000n + 15000n, 'the payer\'s reservation was released');
  assert.equal((await deadLettersOf('fulfil', (record) => record.key === transferId)).length, 1);
});

test('a position event the handler cannot process is dead-lettered and the next payment commits', { timeout: 60_000 }, async () => {
  const id = randomUUID();
  await produceRaw(TOPIC.transferPositionBatch, 'not-an-account', {
    id, type: 'position', action: 'prepare', accountId: 'not-an-account', from: payer.name, to: payee.name, body: {},
  });
  await assertNextPaymentCommits('position poison');
  assert.equal((await deadLettersOf('position', (record) => record.key === 'not-an-account')).length, 1);
});

test('a quote the database cannot store is dead-lettered, its payer told 2001, and the next quote is answered', { timeout: 60_000 }, async () => {
  const poison = quoteRequestBody({ payer: payer.name, payee: payee.name });
  poison.expiration = YEAR_10000;
  const headers = quoteHeaders(payer.name, payee.name);
  await produceRaw(TOPIC.quotesPost, poison.quoteId, {
    id: poison.quoteId, type: 'quote', action: 'request', from: payer.name, to: payee.name, headers, body: poison, rawBody: JSON.stringify(poison), at: Date.now(),
  });
  const next = quoteRequestBody({ payer: payer.name, payee: payee.name });
  const response = await signedFetch(`${sw.urlOf('quoting')}/quotes`, { method: 'POST', headers, body: JSON.stringify(next) });
  assert.equal(response.status, 202, await response.text());
  await payer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${next.quoteId}`, NEXT_PAYMENT_WITHIN_MS);
  await errorCallback(payer, `/quotes/${poison.quoteId}`);
  assert.equal((await deadLettersOf('quoting-handler', (record) => record.key === poison.quoteId)).length, 1);
});
