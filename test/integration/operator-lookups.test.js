// The admin API's routes for the operators' portal against a real switch (the transfer
// components as processes, real Kafka and MariaDB): who a token is, transfers found by id,
// quote and party as their ILP packets name them, and dead letters listed and replayed once,
// whoever asks how often, with a read-only token refused the replay.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import Kafka from 'node-rdkafka';
import { startTransferSwitch } from '../support/transfer-switch.js';
import { fspiopHeaders, quoteIlp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';
import { operatorClient, pollUntil } from '../support/settlement-api.js';
import { testConfig } from '../support/environment.js';
import { produceDeadLetter } from '../support/kafka-topic.js';
import { TOPIC, topicName } from '../../platform/kafka/topics.js';

let sw;
let payer;
let payee;
let stop;
let readWrite;
let readOnly;

before(async () => {
  ({ sw, dfsps: [payer, payee], stop } = await startTransferSwitch({ dfsps: [
    { name: 'payerfsp', netDebitCap: '1000', fundsIn: '5000' }, { name: 'payeefsp', netDebitCap: '1000', fundsIn: '5000' },
  ] }));
  readWrite = operatorClient(sw.admin.baseUrl, 'readWrite');
  readOnly = operatorClient(sw.admin.baseUrl, 'readOnly');
});

after(() => stop?.());

const party = (msisdn, fspId) => ({ partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: msisdn, fspId } });

/** A committed transfer whose ILP packet names `quoteId` and both parties. */
async function pay({ quoteId, payerMsisdn, payeeMsisdn, amount = '12.5' }) {
  const transferId = randomUUID();
  payee.setBehaviour(transferId, 'fulfil');
  const expiration = new Date(Date.now() + 30000).toISOString();
  const transaction = { quoteId, payer: party(payerMsisdn, payer.name), payee: party(payeeMsisdn, payee.name) };
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount, currency: 'USD', payeeAddress: 'g.payeefsp', expiration, transaction });
  const body = { transferId, payerFsp: payer.name, payeeFsp: payee.name, amount: { amount, currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders(payer.name, payee.name), body: JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
  const answer = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${transferId}`);
  assert.equal(answer.body.transferState, 'COMMITTED');
  return transferId;
}

test('GET /operatorToken tells each token its subject and scopes', async () => {
  const asked = await readOnly('GET', '/operatorToken');
  assert.equal(asked.status, 200, asked.text);
  assert.equal(asked.body.subject, 'operator:read-only');
  assert.ok(asked.body.scopes.includes('admin:read') && !asked.body.scopes.includes('admin:write'));
  assert.ok((await readWrite('GET', '/operatorToken')).body.scopes.includes('settlement:write'));
  const directory = await operatorClient(sw.admin.baseUrl, 'dfspDirectoryRead')('GET', '/operatorToken');
  assert.deepEqual(directory.body, { subject: 'service:dfsp-directory-read', scopes: ['dfsp-directory:read'] });
  const stranger = await fetch(`${sw.admin.baseUrl}/operatorToken`, { headers: { authorization: 'Bearer nobody' } });
  assert.equal(stranger.status, 401);
});

test('a transfer is found by its id with its parties, quote and history, and by its quote and either party', async () => {
  const quoteId = randomUUID();
  const transferId = await pay({ quoteId, payerMsisdn: '26110000001', payeeMsisdn: '26120000002' });
  const other = await pay({ quoteId: randomUUID(), payerMsisdn: '26120000002', payeeMsisdn: '26110000009', amount: '1' });
  const found = await readOnly('GET', `/transfers/${transferId}`);
  assert.equal(found.status, 200, found.text);
  assert.equal(found.body.state, 'COMMITTED');
  assert.deepEqual([found.body.payerFsp, found.body.payeeFsp, found.body.amount], ['payerfsp', 'payeefsp', { amount: '12.5', currency: 'USD' }]);
  assert.equal(found.body.quoteId, quoteId);
  assert.deepEqual(found.body.payee, { partyIdType: 'MSISDN', partyIdentifier: '26120000002', fspId: 'payeefsp' });
  assert.deepEqual(found.body.history.map((step) => step.state), ['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED']);
  assert.ok(found.body.completedAt >= found.body.createdAt);
  const byQuote = await readOnly('GET', `/transfers?quoteId=${quoteId}`);
  assert.deepEqual(byQuote.body.map((transfer) => transfer.transferId), [transferId]);
  // 26120000002 is the first payment's payee and the second's payer: both, newest first.
  const byParty = await readOnly('GET', '/transfers?partyIdType=MSISDN&partyIdentifier=26120000002');
  assert.deepEqual(byParty.body.map((transfer) => transfer.transferId), [other, transferId]);
  assert.deepEqual((await readOnly('GET', '/transfers?partyIdType=MSISDN&partyIdentifier=26120000002&limit=1')).body.map((transfer) => transfer.transferId), [other]);
  const unknown = await readOnly('GET', `/transfers/${randomUUID()}`);
  assert.equal(unknown.body.errorInformation.errorCode, '3208', unknown.text);
  for (const query of ['', '?quoteId=a&partyIdType=MSISDN&partyIdentifier=1', '?partyIdType=MSISDN', '?quoteId=a&limit=0', '?quoteId=a&colour=red']) {
    const refused = await readOnly('GET', `/transfers${query}`);
    assert.equal(refused.status, 400, `${query}: ${refused.text}`);
    assert.equal(refused.body.errorInformation.errorCode, '3100', query);
  }
});

const produceLetter = (key) => produceDeadLetter({
  prefix: sw.prefix, handler: 'notification', sourceTopic: TOPIC.notificationEvent, key, value: `{"replay":"${key}"}`, reason: `poison ${key}`,
});

test('dead letters are listed with why they failed, and each is replayed once, however often it is asked', async () => {
  await produceLetter('letter-a');
  await produceLetter('letter-b');
  const listed = await pollUntil('the letters listed', async () => {
    const answer = await readOnly('GET', '/deadLetters?handler=notification');
    return answer.body?.length >= 2 ? answer.body : null;
  });
  const [a, b] = listed.slice(-2);
  assert.deepEqual([a.key, a.error.message, a.failures, a.replayedAt], ['letter-a', 'poison letter-a', 3, null]);
  assert.match(a.preview, /letter-a/);
  assert.ok((await readOnly('GET', '/deadLetters')).body.some((letter) => letter.key === 'letter-b'), 'every handler\'s letters without a filter');

  const refused = await readOnly('POST', '/deadLetters/notification/replay', { letters: [a.address] });
  assert.equal(refused.status, 403, 'a read-only token may look, not replay');
  const replayed = await readWrite('POST', '/deadLetters/notification/replay', { letters: [a.address] });
  assert.equal(replayed.status, 200, replayed.text);
  assert.deepEqual(replayed.body, { replayed: [a.address], alreadyReplayed: [], withoutValue: [] });
  const again = await readWrite('POST', '/deadLetters/notification/replay', { all: true });
  assert.deepEqual(again.body.alreadyReplayed, [a.address]);
  assert.ok(again.body.replayed.includes(b.address) && !again.body.replayed.includes(a.address));
  const third = await readWrite('POST', '/deadLetters/notification/replay', { all: true });
  assert.deepEqual(third.body.replayed, [], 'nothing is replayed twice');
  const after = (await readOnly('GET', '/deadLetters?handler=notification')).body.find((letter) => letter.address === a.address);
  assert.equal(after.replayedBy, 'operator:read-write');
  assert.ok(after.replayedAt);

  for (const [path, body] of [['/deadLetters/nobody/replay', { all: true }], ['/deadLetters/notification/replay', { letters: ['0:999999'] }],
    ['/deadLetters/notification/replay', { all: true, letters: [a.address] }], ['/deadLetters/notification/replay', {}]]) {
    const answer = await readWrite('POST', path, body);
    assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}: ${answer.text}`);
  }
  assert.equal((await readOnly('GET', '/deadLetters?handler=nobody')).status, 400);
  const audit = (await readOnly('GET', '/audit?target=/deadLetters/notification/replay&limit=10')).body;
  assert.ok(audit.some((entry) => entry.status === 200 && entry.after.deadLetterReplays > entry.before.deadLetterReplays), 'each replay is in the audit trail');
});

/** Every record's value on every partition of `topic`, from the first offset to the end. */
async function valuesOn(topic) {
  const consumer = new Kafka.KafkaConsumer({
    'bootstrap.servers': testConfig().kafka.brokers, 'group.id': `reader-${randomUUID()}`, 'enable.auto.commit': false, 'enable.partition.eof': true,
  }, {});
  await new Promise((resolve, reject) => consumer.connect({ timeout: 10_000 }, (error) => (error ? reject(error) : resolve())));
  try {
    const metadata = await new Promise((resolve, reject) => consumer.getMetadata({ topic, timeout: 10_000 }, (error, data) => (error ? reject(error) : resolve(data))));
    const partitions = metadata.topics.find((candidate) => candidate.name === topic).partitions.map((partition) => partition.id);
    const ended = new Set();
    consumer.on('partition.eof', ({ partition }) => ended.add(partition));
    consumer.assign(partitions.map((partition) => ({ topic, partition, offset: 0 })));
    const values = [];
    const deadline = Date.now() + 15000;
    while (ended.size < partitions.length && Date.now() < deadline) {
      const batch = await new Promise((resolve, reject) => consumer.consume(100, (error, messages) => (error ? reject(error) : resolve(messages))));
      values.push(...batch.map((message) => message.value.toString('utf8')));
    }
    return values;
  } finally {
    await new Promise((resolve) => { consumer.disconnect(() => resolve()); });
  }
}

test('each replayed letter is back on the topic it came from, exactly once', async () => {
  const values = await valuesOn(topicName(sw.prefix, TOPIC.notificationEvent));
  assert.equal(values.filter((value) => value === '{"replay":"letter-a"}').length, 1, 'letter-a');
  assert.equal(values.filter((value) => value === '{"replay":"letter-b"}').length, 1, 'letter-b');
});
