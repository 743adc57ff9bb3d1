// A bulk-processing record the bulk handler cannot process must not stop its partition nor
// leave its bulk open: after a few attempts it is set aside on the bulk handler's dead-letter
// topic, the bulk ends FAILED, its payer (and its payee, which was sent the bulk) are told
// 2001 once, however many of its records are set aside, and its reserved transfers expire as
// single ones. The poison is produced straight onto topic-bulk-processing, as a buggy
// producer could. A bulk that lost a result another way stays waiting past its expiry until
// the timeout handler's sweep has the bulk handler end it EXPIRED, its payer told once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTransferSwitch } from '../support/transfer-switch.js';
import { fulfilmentFor, quoteIlp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';
import { testConfig } from '../support/environment.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { createLogger } from '../../platform/logger.js';
import { createMetrics } from '../../platform/metrics.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { TOPIC, topicName } from '../../platform/kafka/topics.js';
import { readDeadLetters } from '../../platform/kafka/dead-letter-reader.js';

const ITEM_AMOUNT = '10';

let sw;
let payer;
let payee;
let stop;
let producer;

before(async () => {
  ({ sw, dfsps: [payer, payee], stop } = await startTransferSwitch({
    dfsps: [{ name: 'bdlpayer', netDebitCap: '10000', fundsIn: '10000' }, { name: 'bdlpayee', netDebitCap: '10000', fundsIn: '10000' }],
    // A bulk that lost results is swept a second after its expiry and its transfers' ends.
    env: { DEAD_LETTER_AFTER_FAILURES: '2', TIMEOUT_STALE_RELEASE_AFTER_MS: '1000' },
  }));
  const config = testConfig({ KAFKA_TOPIC_PREFIX: sw.prefix, LOG_LEVEL: 'warn' });
  producer = createProducer({ kafka: config.kafka, logger: createLogger(config), metrics: createMetrics(config) });
  await producer.connect();
});

after(async () => {
  await producer?.disconnect();
  await stop?.();
});

function bulkBody(items, expiresInMs) {
  const expiration = new Date(Date.now() + expiresInMs).toISOString();
  return {
    bulkTransferId: randomUUID(), bulkQuoteId: randomUUID(), payerFsp: payer.name, payeeFsp: payee.name, expiration,
    individualTransfers: Array.from({ length: items }, () => {
      const transferId = randomUUID();
      const ilp = quoteIlp({ secret: payee.secret, transferId, amount: ITEM_AMOUNT, currency: 'USD', payeeAddress: `g.${payee.name}.msisdn.1`, expiration });
      return { transferId, transferAmount: { currency: 'USD', amount: ITEM_AMOUNT }, ilpPacket: ilp.ilpPacket, condition: ilp.condition };
    }),
  };
}

/** Posts a bulk from the payer and waits until the payee has it. */
async function forwardedBulk(items, expiresInMs = 60_000) {
  const body = bulkBody(items, expiresInMs);
  const response = await signedFetch(`${sw.apiUrl}/bulkTransfers`, { method: 'POST', headers: dfspHeaders('bulkTransfers', payer.name, payee.name), body: JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
  await payee.waitFor((call) => call.method === 'POST' && call.path === '/bulkTransfers' && call.body?.bulkTransferId === body.bulkTransferId, 30_000);
  return body;
}

async function position(name) {
  const [account] = (await sw.admin.request('GET', `/participants/${name}/accounts`)).body.filter((row) => row.ledgerAccountType === 'POSITION');
  return account.value;
}

async function bulkState(bulkTransferId) {
  return (await sw.admin.db('bulk_transfer').where({ bulk_transfer_id: bulkTransferId }).first('state'))?.state;
}

async function journal(transferId) {
  return (await sw.admin.db('transfer_state_change').where({ transfer_id: transferId }).orderBy('id').select('state')).map((row) => row.state);
}

async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function deadLettersOf(predicate, count) {
  let found = [];
  await until(async () => {
    found = (await readDeadLetters({ kafka: testConfig({ KAFKA_TOPIC_PREFIX: sw.prefix }).kafka, handler: 'bulk' })).filter(predicate);
    return found.length >= count;
  }, 20_000, `${count} dead letters of the bulk handler`);
  return found;
}

const bulkErrors = (dfsp, bulkTransferId) => dfsp.received.filter((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${bulkTransferId}/error`);

test('item results the database cannot store are dead-lettered: the bulk ends FAILED, each party told 2001 once, its transfers expire, the next bulk goes through', { timeout: 90_000 }, async () => {
  const before = await position(payer.name);
  const body = await forwardedBulk(3, 12_000);
  assert.equal(await position(payer.name), before + 3 * Number(ITEM_AMOUNT));
  // Two poisons of the same bulk: a result longer than its column, which MariaDB refuses.
  for (const item of body.individualTransfers.slice(0, 2)) {
    await producer.produce([{
      topic: topicName(sw.prefix, TOPIC.bulkProcessing),
      key: body.bulkTransferId,
      value: encodeEvent({
        id: body.bulkTransferId, type: 'bulkItem', action: 'final-result', transferId: item.transferId, result: 'NOT-A-RESULT-'.repeat(5),
        errorInformation: { errorCode: '5000', errorDescription: 'not a result' }, at: Date.now(),
      }),
    }]);
  }
  const toPayer = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}/error`, 30_000);
  const toPayee = await payee.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}/error`, 30_000);
  for (const told of [toPayer, toPayee]) {
    assert.equal(told.body.errorInformation.errorCode, '2001');
    assert.equal(told.headers['fspiop-source'], 'Hub');
    assert.equal(told.signatureProblem, null);
  }
  assert.equal(await bulkState(body.bulkTransferId), 'FAILED');
  const letters = await deadLettersOf((record) => record.key === body.bulkTransferId, 2);
  assert.equal(letters.length, 2, 'both poisons are on the bulk handler\'s dead-letter topic');
  for (const letter of letters) assert.equal(letter.topic, topicName(sw.prefix, TOPIC.bulkProcessing));

  // The payee's answer to a bulk the switch ended is refused and commits nothing.
  const results = body.individualTransfers.map((item) => ({ transferId: item.transferId, fulfilment: fulfilmentFor(payee.secret, item.ilpPacket) }));
  const answered = await signedFetch(`${sw.apiUrl}/bulkTransfers/${body.bulkTransferId}`, {
    method: 'PUT', headers: dfspHeaders('bulkTransfers', payee.name, payer.name, { accept: false }), body: JSON.stringify({ bulkTransferState: 'COMPLETED', individualTransferResults: results }),
  });
  assert.equal(answered.status, 200);
  await until(() => bulkErrors(payee, body.bulkTransferId).length === 2, 30_000, 'the refusal of the payee\'s answer');
  assert.equal(bulkErrors(payee, body.bulkTransferId)[1].body.errorInformation.errorCode, '2001');

  // The reservations expire as single transfers and are released; nobody hears more.
  for (const item of body.individualTransfers) {
    await until(async () => (await journal(item.transferId)).at(-1) === 'EXPIRED_RESERVED', 40_000, `the expiry of ${item.transferId}`);
  }
  assert.equal(await position(payer.name), before, 'every reservation released');
  await until(async () => (await sw.admin.db('bulk_transfer_item').where({ bulk_transfer_id: body.bulkTransferId }).whereNotNull('final_result')).length === 3, 20_000, 'the expiries recorded');
  assert.equal(await bulkState(body.bulkTransferId), 'FAILED');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(bulkErrors(payer, body.bulkTransferId).length, 1, 'the payer is told once');
  assert.equal(bulkErrors(payee, body.bulkTransferId).length, 2, 'the payee: the failure once, and the refusal of its answer');
  assert.equal(payer.received.filter((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`).length, 0, 'no other answer about the bulk');
  const ids = new Set(body.individualTransfers.map((item) => item.transferId));
  assert.equal([...payer.received, ...payee.received].filter((call) => call.path.startsWith('/transfers/') && ids.has(call.path.split('/')[2])).length, 0, 'no single transfer callback');

  // The partition moved on: the next bulk is forwarded and completes.
  const next = await forwardedBulk(2);
  const nextResults = next.individualTransfers.map((item) => ({ transferId: item.transferId, fulfilment: fulfilmentFor(payee.secret, item.ilpPacket) }));
  const fulfilled = await signedFetch(`${sw.apiUrl}/bulkTransfers/${next.bulkTransferId}`, {
    method: 'PUT', headers: dfspHeaders('bulkTransfers', payee.name, payer.name, { accept: false }), body: JSON.stringify({ bulkTransferState: 'COMPLETED', individualTransferResults: nextResults }),
  });
  assert.equal(fulfilled.status, 200);
  const completed = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${next.bulkTransferId}`, 30_000);
  assert.equal(completed.body.bulkTransferState, 'COMPLETED');
});

test('a bulk that lost an item\'s result stays RECEIVED past its expiry until the sweep ends it EXPIRED: its payer told once with every result it has', { timeout: 90_000 }, async () => {
  const before = await position(payer.name);
  const body = await forwardedBulk(3, 5000);
  const [, , lost] = body.individualTransfers;
  // As if the last item's prepare result had never reached the bulk handler: the bulk would
  // still be RECEIVED, waiting for it.
  await sw.admin.db('bulk_transfer_item').where({ bulk_transfer_id: body.bulkTransferId, transfer_id: lost.transferId }).update({ prepare_result: null });
  await sw.admin.db('bulk_transfer').where({ bulk_transfer_id: body.bulkTransferId }).update({ state: 'RECEIVED' });
  const told = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`, 40_000);
  assert.equal(told.body.bulkTransferState, 'REJECTED');
  assert.equal(told.headers['fspiop-source'], 'Hub');
  assert.equal(told.signatureProblem, null);
  assert.deepEqual(told.body.individualTransferResults.map((result) => [result.transferId, result.errorInformation?.errorCode]),
    body.individualTransfers.map((item) => [item.transferId, '3303']), 'every transfer\'s expiry, the one whose prepare result was lost too');
  assert.equal(await bulkState(body.bulkTransferId), 'EXPIRED');
  for (const item of body.individualTransfers) assert.equal((await journal(item.transferId)).at(-1), 'EXPIRED_RESERVED');
  assert.equal(await position(payer.name), before, 'every reservation released');
  // Later sweeps find it ended: nobody hears more.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(payer.received.filter((call) => call.path.startsWith(`/bulkTransfers/${body.bulkTransferId}`)).length, 1, 'the payer is told once');
  assert.equal(bulkErrors(payee, body.bulkTransferId).length, 0, 'the bulk the payee holds was, as the bulk handler knew it, never sent');
});
