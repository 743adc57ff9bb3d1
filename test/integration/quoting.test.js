// Quotes end to end through the real switch: the quoting edge, the quoting handler and the
// notification handler as their own processes, real Kafka and MariaDB, and DFSPs over real
// HTTP, the payee answering with an ILP packet and condition derived from its secret.
// Persistence is on here (the default); quoting-no-persist.test.js runs with it off.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import Kafka from 'node-rdkafka';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { quoteHeaders, quoteRequestBody, startQuoteDfsp } from '../support/quote-dfsp.js';
import { testConfig } from '../support/environment.js';
import { unsignedFetch } from '../support/jws-keys.js';
import { testClientTlsFor } from '../support/scheme-tls.js';
import pino from 'pino';
import { TOPIC, topicName } from '../../platform/kafka/topics.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';

let sw;
let quotingUrl;
let payer;
let payee;
let sleepy;
let offsetClient;

before(async () => {
  // The DFSPs here send placeholder signatures to prove they are forwarded byte for byte, so
  // verification is off; test/integration/jws.test.js proves it against the running switch.
  sw = await startSwitch({ components: ['quoting', 'quoting-handler', 'notification'], env: { JWS_VERIFICATION: 'off' } });
  quotingUrl = sw.urlOf('quoting');
  await setUpHub(sw.admin.request);
  payer = await startQuoteDfsp({ name: 'payerfsp', quotingUrl, placeholderSignatures: true });
  payee = await startQuoteDfsp({ name: 'payeefsp', quotingUrl, placeholderSignatures: true });
  sleepy = await startQuoteDfsp({ name: 'sleepyfsp', quotingUrl, placeholderSignatures: true });
  for (const dfsp of [payer, payee, sleepy]) await onboardDfsp(sw.admin.request, { name: dfsp.name, endpointBase: dfsp.url, fundsIn: '' });
  const deactivated = await sw.admin.request('PUT', '/participants/sleepyfsp', { isActive: false });
  assert.equal(deactivated.status, 200, deactivated.text);
  offsetClient = new Kafka.Producer({ 'bootstrap.servers': testConfig().kafka.brokers });
  await new Promise((resolve, reject) => offsetClient.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve())));
});

after(async () => {
  if (offsetClient) await new Promise((resolve) => offsetClient.disconnect(() => resolve()));
  await Promise.all([payer, payee, sleepy].map((dfsp) => dfsp?.close()));
  await sw?.stop();
});

async function postQuote(body, { source = 'payerfsp', destination = body.payee.partyIdInfo.fspId, raw = JSON.stringify(body), headers = {} } = {}) {
  const response = await unsignedFetch(`${quotingUrl}/quotes`, { method: 'POST', headers: quoteHeaders(source, destination, headers), body: raw });
  assert.equal(response.status, 202, await response.text());
}

async function getQuote(quoteId, source = 'payerfsp') {
  const response = await unsignedFetch(`${quotingUrl}/quotes/${quoteId}`, { headers: quoteHeaders(source, 'payeefsp') });
  assert.equal(response.status, 202, await response.text());
}

const quoteRow = async (quoteId) => (await sw.admin.db('quote').where({ quote_id: quoteId }))[0];
const answerTo = (dfsp, quoteId, suffix = '') => dfsp.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${quoteId}${suffix}`);
const errorTo = (dfsp, quoteId) => answerTo(dfsp, quoteId, '/error');
const postsOf = (quoteId) => payee.received.filter((call) => call.method === 'POST' && call.path === '/quotes' && call.body?.quoteId === quoteId);
const callbacksTo = (dfsp, quoteId) => dfsp.received.filter((call) => call.path.startsWith(`/quotes/${quoteId}`));

// Proving that a request produced nothing. The edge puts every request about a quote on
// topic-quotes-post under the quote id, so the handler decides them in the order they were
// accepted, and the notification handler delivers callbacks about one quote to one DFSP in
// that order too (handlers/notification/lanes.js). So once a later request's callback has
// reached a DFSP, anything the earlier request made for that DFSP would already be there.

/** A later request whose only effect is a 3205 to the payee: GET /quotes/{ID} from a DFSP that did not ask. */
async function markerToPayee(quoteId) {
  await getQuote(quoteId, 'payeefsp');
  return payee.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${quoteId}/error` && call.body.errorInformation.errorCode === '3205');
}

/** A later request whose only effect is a 3106 to the payer: the same quote id with another amount. */
async function markerToPayer(body) {
  await postQuote({ ...body, amount: { amount: '99', currency: 'USD' } });
  return payer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${body.quoteId}/error` && call.body.errorInformation.errorCode === '3106');
}

test('happy path: the payee gets the payer\'s bytes, the payer gets the payee\'s, and both are stored', async () => {
  const body = quoteRequestBody({ amount: '123.45' });
  const raw = JSON.stringify(body, null, 1);
  const signature = '{"signature":"payer-signed","protectedHeader":"y"}';
  await postQuote(body, { raw, headers: { 'fspiop-signature': signature } });
  const forwarded = await payee.waitFor((call) => call.method === 'POST' && call.path === '/quotes' && call.body.quoteId === body.quoteId);
  assert.equal(forwarded.rawBody, raw, 'the payer\'s body bytes reach the payee unchanged');
  assert.deepEqual([forwarded.headers['fspiop-source'], forwarded.headers['fspiop-destination'], forwarded.headers['fspiop-signature']], ['payerfsp', 'payeefsp', signature]);
  assert.equal(forwarded.headers['content-type'], 'application/vnd.interoperability.quotes+json;version=1.1');
  const answer = await answerTo(payer, body.quoteId);
  const sent = payee.answers.get(body.quoteId);
  assert.equal(answer.rawBody, sent.rawBody, 'the payee\'s body bytes reach the payer unchanged');
  assert.deepEqual([answer.headers['fspiop-source'], answer.headers['fspiop-destination']], ['payeefsp', 'payerfsp']);
  assert.match(answer.headers['fspiop-signature'], /payeefsp-signed/);
  assert.match(answer.body.condition, /^[A-Za-z0-9_-]{43}$/);
  const row = await quoteRow(body.quoteId);
  assert.deepEqual([row.state, row.payer_fsp, row.payee_fsp, row.amount, row.currency, row.transaction_id], ['ANSWERED', 'payerfsp', 'payeefsp', '123.4500', 'USD', body.transactionId]);
  assert.equal(row.request_body, raw);
  assert.equal(JSON.parse(row.request_headers)['fspiop-signature'], signature);
  assert.equal(row.answer_body, sent.rawBody);
  assert.equal(row.ilp_condition, answer.body.condition);
});

test('POST without FSPIOP-Destination is refused 400 3102 naming the header, as Mojaloop\'s quoting service answers, and reaches no one', async () => {
  const body = quoteRequestBody();
  const response = await unsignedFetch(`${quotingUrl}/quotes`, { method: 'POST', headers: quoteHeaders('payerfsp', null), body: JSON.stringify(body) });
  assert.equal(response.status, 400);
  assert.deepEqual((await response.json()).errorInformation,
    { errorCode: '3102', errorDescription: "Missing mandatory element - /header must have required property 'fspiop-destination'" });
  // The same quote with its destination is relayed: nothing of the refused one was kept.
  await postQuote(body);
  await payee.waitFor((call) => call.method === 'POST' && call.body?.quoteId === body.quoteId);
  await answerTo(payer, body.quoteId);
});

test('duplicates: ignored while the payee has not answered, the stored answer once answered, 3106 when modified', async () => {
  const body = quoteRequestBody();
  payee.setBehaviour(body.quoteId, 'silent');
  await postQuote(body);
  await payee.waitFor((call) => call.method === 'POST' && call.body?.quoteId === body.quoteId);
  await postQuote(body);
  const payeeMarker = await markerToPayee(body.quoteId);
  const payerMarker = await markerToPayer(body);
  assert.deepEqual(callbacksTo(payee, body.quoteId), [payeeMarker], 'the payee heard nothing about the resend');
  assert.equal(postsOf(body.quoteId).length, 1, 'a resend in flight is not forwarded again');
  assert.deepEqual(callbacksTo(payer, body.quoteId), [payerMarker], 'the payer heard nothing about the resend');

  const answered = quoteRequestBody();
  await postQuote(answered);
  const first = await answerTo(payer, answered.quoteId);
  await postQuote(answered);
  await payer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${answered.quoteId}` && call !== first);
  const answers = payer.callsTo('PUT', `/quotes/${answered.quoteId}`);
  assert.equal(answers.length, 2);
  assert.equal(answers[1].rawBody, first.rawBody, 'the resend gets the payee\'s stored answer, byte for byte');
  assert.equal(answers[1].headers['fspiop-source'], 'payeefsp');
  assert.equal(payee.received.filter((call) => call.body?.quoteId === answered.quoteId).length, 1, 'the payee is not asked again');

  await postQuote({ ...answered, amount: { amount: '99', currency: 'USD' } });
  const modified = await errorTo(payer, answered.quoteId);
  assert.equal(modified.body.errorInformation.errorCode, '3106');
  assert.equal(modified.headers['fspiop-source'], 'Hub');
});

test('an unknown payee FSP gets 3203 and an inactive payer FSP 3202, to the requester; nothing is forwarded or stored', async () => {
  const unknownPayee = quoteRequestBody({ payee: 'ghostfsp' });
  await postQuote(unknownPayee);
  const refused = await errorTo(payer, unknownPayee.quoteId);
  assert.equal(refused.body.errorInformation.errorCode, '3203');
  assert.match(refused.body.errorInformation.errorDescription, /ghostfsp/);
  assert.equal(refused.headers['fspiop-source'], 'Hub');

  const inactivePayer = quoteRequestBody({ payer: 'sleepyfsp' });
  await postQuote(inactivePayer, { source: 'sleepyfsp' });
  const inactive = await errorTo(sleepy, inactivePayer.quoteId);
  assert.equal(inactive.body.errorInformation.errorCode, '3202');
  assert.match(inactive.body.errorInformation.errorDescription, /sleepyfsp is not active/);

  for (const quoteId of [unknownPayee.quoteId, inactivePayer.quoteId]) {
    assert.equal(await quoteRow(quoteId), undefined);
    assert.equal(payee.received.filter((call) => call.body?.quoteId === quoteId).length, 0);
  }
});

test('an answer to a quote the switch did not relay gets 3205; one naming another DFSP than the payer, or from another DFSP than the payee, 3100: none reaches anyone else', async () => {
  const answer = JSON.stringify({ transferAmount: { amount: '1', currency: 'USD' }, expiration: new Date(Date.now() + 60_000).toISOString(), ilpPacket: 'AYIB', condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA' });
  const putAnswer = (quoteId, destination, source = 'payeefsp') => unsignedFetch(`${quotingUrl}/quotes/${quoteId}`, { method: 'PUT', headers: quoteHeaders(source, destination, { accept: false }), body: answer });
  const unrequested = randomUUID();
  assert.equal((await putAnswer(unrequested, 'payerfsp')).status, 200);
  assert.equal((await errorTo(payee, unrequested)).body.errorInformation.errorCode, '3205');

  const body = quoteRequestBody();
  payee.setBehaviour(body.quoteId, 'silent');
  await postQuote(body);
  await payee.waitFor((call) => call.method === 'POST' && call.body?.quoteId === body.quoteId);
  assert.equal((await putAnswer(body.quoteId, 'sleepyfsp')).status, 200);
  const misdirected = await errorTo(payee, body.quoteId);
  assert.equal(misdirected.body.errorInformation.errorCode, '3100');
  assert.match(misdirected.body.errorInformation.errorDescription, /its payer is payerfsp, not sleepyfsp/);
  // Nor may any DFSP but the quote's payee answer it (here its payer, impersonating the payee's role).
  assert.equal((await putAnswer(body.quoteId, 'payerfsp', 'payerfsp')).status, 200);
  const impostor = await errorTo(payer, body.quoteId);
  assert.equal(impostor.body.errorInformation.errorCode, '3100');
  assert.match(impostor.body.errorInformation.errorDescription, /payerfsp cannot answer it/);
  // A later event of the same quote reaches the payer after anything the answers would have sent it.
  const payerMarker = await markerToPayer(body);
  assert.deepEqual(callbacksTo(payer, body.quoteId), [impostor, payerMarker], 'the payer heard nothing of the refused answers but its own refusal');
  assert.deepEqual(callbacksTo(sleepy, body.quoteId), [], 'nor did the DFSP it named');
});

test('the payee\'s error reaches the payer as the payee sent it and the quote is stored FAILED', async () => {
  const body = quoteRequestBody();
  payee.setBehaviour(body.quoteId, 'reject');
  await postQuote(body);
  const rejection = await errorTo(payer, body.quoteId);
  assert.equal(rejection.rawBody, payee.answers.get(body.quoteId).rawBody);
  assert.deepEqual(rejection.body.errorInformation, { errorCode: '5101', errorDescription: 'Payee rejected quote' });
  assert.equal(rejection.headers['fspiop-source'], 'payeefsp');
  const row = await quoteRow(body.quoteId);
  assert.deepEqual([row.state, row.answer_error_code], ['FAILED', '5101']);
});

test('GET /quotes/{ID}: the payer gets the stored answer; an unknown quote and another DFSP get 3205', async () => {
  const body = quoteRequestBody();
  await postQuote(body);
  const first = await answerTo(payer, body.quoteId);
  await getQuote(body.quoteId);
  await payer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${body.quoteId}` && call !== first);
  const [, again] = payer.callsTo('PUT', `/quotes/${body.quoteId}`);
  assert.equal(again.rawBody, first.rawBody);
  assert.equal(again.headers['fspiop-source'], 'payeefsp');

  const unknown = randomUUID();
  await getQuote(unknown);
  assert.equal((await errorTo(payer, unknown)).body.errorInformation.errorCode, '3205');
  await getQuote(body.quoteId, 'payeefsp');
  assert.equal((await errorTo(payee, body.quoteId)).body.errorInformation.errorCode, '3205');
});

test('a redelivered request record is forwarded again while the payee has not answered; a DFSP resend is not', async () => {
  const body = quoteRequestBody();
  payee.setBehaviour(body.quoteId, 'silent');
  const raw = JSON.stringify(body);
  await postQuote(body, { raw });
  await payee.waitFor((call) => call.method === 'POST' && call.body?.quoteId === body.quoteId);
  const row = await quoteRow(body.quoteId);
  // The record the edge produced, again: the same event with the same acceptance time, as
  // Kafka redelivers it to a handler that crashed before committing its offsets.
  const record = {
    id: body.quoteId, type: 'quote', action: 'request', from: 'payerfsp', to: 'payeefsp',
    headers: JSON.parse(row.request_headers), body, rawBody: raw, at: Number(row.request_at),
  };
  const producer = createProducer({ kafka: testConfig().kafka, logger: pino({ level: 'silent' }) });
  await producer.connect();
  try {
    await producer.produce([{ topic: topicName(sw.prefix, TOPIC.quotesPost), key: body.quoteId, value: encodeEvent(record) }]);
  } finally {
    await producer.disconnect();
  }
  await payee.waitFor((call) => call.method === 'POST' && call.body?.quoteId === body.quoteId && call.rawBody === raw
    && payee.received.filter((other) => other.body?.quoteId === body.quoteId).length === 2);
  await postQuote(body, { raw });
  await markerToPayee(body.quoteId);
  assert.equal(postsOf(body.quoteId).length, 2, 'the resend through the edge is ignored');
});

// Asked through a client of its own, from the broker's high watermarks.
function watermark(topic, partition) {
  return new Promise((resolve, reject) => {
    offsetClient.queryWatermarkOffsets(topic, partition, 10_000, (error, offsets) => (error ? reject(error) : resolve(offsets.highOffset)));
  });
}

async function producedTotal() {
  const topics = [TOPIC.quotesPost, TOPIC.quotesPut].map((base) => topicName(sw.prefix, base));
  const offsets = await Promise.all(topics.flatMap((topic) => [0, 1, 2, 3].map((partition) => watermark(topic, partition))));
  return offsets.reduce((total, offset) => total + offset, 0);
}

/**
 * An HTTP request with exactly the given headers (fetch would add Accept and Content-Type), over
 * HTTPS with the client certificate of its FSPIOP-Source (the payer's when it has none).
 */
function send({ method, path, headers, body }) {
  const allHeaders = body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) };
  const url = `${quotingUrl}${path}`;
  const tls = testClientTlsFor(url, headers['fspiop-source'] ?? 'payerfsp');
  return new Promise((resolve, reject) => {
    const request = (tls ? https : http).request(url, { method, headers: allHeaders, ...tls }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode, text, json: text ? JSON.parse(text) : undefined }));
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

const validBody = () => JSON.stringify(quoteRequestBody());
const answerBody = JSON.stringify({ transferAmount: { amount: '1', currency: 'USD' }, expiration: '2030-01-01T00:00:00.000Z', ilpPacket: 'AYIB', condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA' });
const BAD_REQUESTS = [
  ['Content-Type missing', { headers: quoteHeaders('payerfsp', 'payeefsp', { 'content-type': undefined }) }, 400, '3102'],
  ['Content-Type for transfers', { headers: quoteHeaders('payerfsp', 'payeefsp', { 'content-type': 'application/vnd.interoperability.transfers+json;version=1.1' }) }, 400, '3101'],
  ['Content-Type version 3.0', { headers: quoteHeaders('payerfsp', 'payeefsp', { 'content-type': 'application/vnd.interoperability.quotes+json;version=3.0' }) }, 406, '3001'],
  ['Accept missing on POST', { headers: quoteHeaders('payerfsp', 'payeefsp', { accept: false }) }, 400, '3102'],
  ['Date malformed', { headers: quoteHeaders('payerfsp', 'payeefsp', { date: 'yesterday' }) }, 400, '3101'],
  ['FSPIOP-Source missing', { headers: quoteHeaders(undefined, 'payeefsp') }, 400, '3102'],
  ['body not JSON', { body: '{"quoteId":' }, 400, '3101'],
  ['body without payer', { body: JSON.stringify({ ...quoteRequestBody(), payer: undefined }) }, 400, '3102'],
  ['amount breaking the Amount pattern', { body: JSON.stringify(quoteRequestBody({ amount: '1.23456' })) }, 400, '3100'],
  ['quoteId not a CorrelationId', { body: JSON.stringify(quoteRequestBody({ quoteId: 'quote-1' })) }, 400, '3100'],
  ['PUT with an ID that is not a CorrelationId', { method: 'PUT', path: '/quotes/12345', headers: quoteHeaders('payeefsp', 'payerfsp', { accept: false }), body: answerBody }, 400, '3100'],
  ['POST without FSPIOP-Destination', { headers: quoteHeaders('payerfsp', null) }, 400, '3102'],
  ['PUT without condition', { method: 'PUT', path: `/quotes/${randomUUID()}`, headers: quoteHeaders('payeefsp', 'payerfsp', { accept: false }), body: JSON.stringify({ ...JSON.parse(answerBody), condition: undefined }) }, 400, '3102'],
  ['PUT /error without errorInformation', { method: 'PUT', path: `/quotes/${randomUUID()}/error`, headers: quoteHeaders('payeefsp', 'payerfsp', { accept: false }), body: '{}' }, 400, '3102'],
  ['GET without Accept', { method: 'GET', path: `/quotes/${randomUUID()}`, headers: quoteHeaders('payerfsp', 'payeefsp', { accept: false }) }, 400, '3102'],
];

test('bad headers and bodies are answered synchronously with errorInformation and produce no event', async () => {
  const before = await producedTotal();
  for (const [name, request, status, code] of BAD_REQUESTS) {
    const method = request.method ?? 'POST';
    const response = await send({
      method, path: request.path ?? '/quotes', headers: request.headers ?? quoteHeaders('payerfsp', 'payeefsp'), body: request.body ?? (method === 'GET' ? undefined : validBody()),
    });
    assert.equal(response.status, status, `${name}: ${response.text}`);
    assert.equal(response.json.errorInformation.errorCode, code, `${name}: ${response.text}`);
  }
  assert.equal(await producedTotal(), before, 'no record reached the quote topics');
  await postQuote(quoteRequestBody());
  assert.equal(await producedTotal(), before + 1, 'the watermark does count an accepted request');
});

// Runs last (node:test keeps the file's order). The DFSPs here forward placeholder
// signatures by design (verification is off), so only the hub's own callbacks can verify:
// every one of them must, with the hub's key.
test('every callback the hub originated verifies with the hub\'s key', () => {
  const fromHub = [payer, payee, sleepy].flatMap((dfsp) => dfsp.received.filter((call) => call.rawBody && call.headers['fspiop-source'] === 'Hub'));
  assert.ok(fromHub.length > 0, 'the DFSPs received hub callbacks');
  assert.deepEqual(fromHub.filter((call) => call.signatureProblem).map(({ method, path, signatureProblem }) => ({ method, path, signatureProblem })), []);
});
