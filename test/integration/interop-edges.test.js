// The edges as Mojaloop's acceptance collections meet them (issue 29, items 1 and 7 to 12),
// through the real switch (every component as a child process, real Kafka and MariaDB, the
// FSPIOP edges over mutual TLS) and test DFSPs over real HTTP: schema violations are 3100,
// amounts take four decimals unless the scheme holds a currency to its minor units, a quote
// for a DFSP that does not exist is answered by callback, an unknown FSPIOP-Source is 3101,
// the words DFSP tooling matches on, /health in Mojaloop's shape, and PUT /participants/…/error
// relayed. This file's switch holds JPY to its minor units (AMOUNT_MINOR_UNITS_CURRENCIES).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { randomUUID } from 'node:crypto';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { COMPONENTS, startSwitch } from '../support/switch.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from '../support/test-dfsp.js';
import { quoteHeaders, quoteRequestBody } from '../support/quote-dfsp.js';
import { signedFetch, unsignedFetch } from '../support/jws-keys.js';
import { probeFetch, testClientTls } from '../support/scheme-tls.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

let sw;
let payer;
let payee;
let quotingUrl;
let alsUrl;

before(async () => {
  sw = await startSwitch({ env: { AMOUNT_MINOR_UNITS_CURRENCIES: 'JPY' } });
  quotingUrl = sw.urlOf('quoting');
  alsUrl = sw.urlOf('account-lookup');
  await setUpHub(sw.admin.request);
  const urls = { quotes: quotingUrl, parties: alsUrl };
  payer = await startTestDfsp({ name: 'payerfsp', switchUrl: sw.apiUrl, urls });
  payee = await startTestDfsp({ name: 'payeefsp', switchUrl: sw.apiUrl, urls });
  await onboardDfsp(sw.admin.request, { name: 'payerfsp', endpointBase: payer.url, netDebitCap: '10000', fundsIn: '50000' });
  await onboardDfsp(sw.admin.request, { name: 'payeefsp', endpointBase: payee.url, netDebitCap: '10000', fundsIn: '50000' });
});

after(async () => {
  await Promise.all([payer, payee].map((dfsp) => dfsp?.close()));
  await sw?.stop();
});

async function answerOf(response) {
  const text = await response.text();
  return { status: response.status, text, error: text ? JSON.parse(text).errorInformation : undefined };
}

/** POST /quotes from payerfsp as a DFSP sends it, signed; `body` an object or raw text. */
async function postQuote(body, { destination = 'payeefsp', headers = {} } = {}) {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  return answerOf(await signedFetch(`${quotingUrl}/quotes`, { method: 'POST', headers: { ...quoteHeaders('payerfsp', destination), ...headers }, body: raw }));
}

const callTo = (dfsp, method, path, timeoutMs) => dfsp.waitFor((call) => call.method === method && call.path === path, timeoutMs);

/** A GET with exactly `headers` (fetch would add an Accept of its own), with payerfsp's client certificate. */
function getWithHeaders(url, headers) {
  return new Promise((resolve, reject) => {
    const request = https.request(url, { method: 'GET', headers, ...testClientTls('payerfsp') }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, error: JSON.parse(Buffer.concat(chunks).toString('utf8')).errorInformation }));
    });
    request.on('error', reject);
    request.end();
  });
}

test('a quote body breaking a pattern, format or enumeration is 3100; a wrong type and JSON that does not parse 3101; a missing element 3102', async () => {
  const cases = [
    ['an amount of 5.5.5', quoteRequestBody({ amount: '5.5.5' }), '3100', /\/requestBody\/amount\/amount must match pattern/],
    ['a currency XYZW', quoteRequestBody({ currency: 'XYZW' }), '3100', /\/requestBody\/amount\/currency/],
    ['an amountType outside its enumeration', { ...quoteRequestBody(), amountType: 'BOTH' }, '3100', /\/requestBody\/amountType must be equal to one of the allowed values/],
    ['a malformed date', { ...quoteRequestBody(), expiration: '2026-13-45T25:61:00.000Z' }, '3100', /\/requestBody\/expiration/],
    ['an amount that is not an object', { ...quoteRequestBody(), amount: '10' }, '3101', /^Malformed syntax - \/requestBody\/amount must be object$/],
    ['a body that is not JSON', '{"quoteId":', '3101', /^Malformed syntax - Invalid request payload JSON format$/],
    ['no amountType', { ...quoteRequestBody(), amountType: undefined }, '3102', /^Missing mandatory element - \/requestBody must have required property 'amountType'$/],
  ];
  for (const [name, body, code, description] of cases) {
    const answer = await postQuote(body);
    assert.deepEqual([answer.status, answer.error?.errorCode], [400, code], `${name}: ${answer.text}`);
    assert.match(answer.error.errorDescription, description, name);
    if (code === '3100') assert.match(answer.error.errorDescription, /^Generic validation error - /, name);
  }
});

test('amounts with four decimals: a USD 100.1234 quote is answered and a transfer of it committed; JPY, held to its minor units here, refuses 1.5', async () => {
  const quote = quoteRequestBody({ amount: '100.1234' });
  assert.equal((await postQuote(quote)).status, 202);
  const quoted = await callTo(payer, 'PUT', `/quotes/${quote.quoteId}`);
  assert.deepEqual(quoted.body.transferAmount, { amount: '100.1234', currency: 'USD' });

  const transferId = randomUUID();
  const expiration = new Date(Date.now() + 30_000).toISOString();
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount: '100.1234', currency: 'USD', payeeAddress: 'g.payeefsp.msisdn.1', expiration });
  const transfer = { transferId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '100.1234', currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
  const sent = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders('payerfsp', 'payeefsp'), body: JSON.stringify(transfer) });
  assert.equal(sent.status, 202, await sent.text());
  const committed = await callTo(payer, 'PUT', `/transfers/${transferId}`);
  assert.equal(committed.body.transferState, 'COMMITTED', committed.rawBody);
  const [[row]] = await sw.admin.db.raw('SELECT CAST(amount AS CHAR) AS amount FROM transfer WHERE transfer_id = ?', [transferId]);
  assert.equal(row.amount, '100.1234');

  const finer = await postQuote(quoteRequestBody({ amount: '1.5', currency: 'JPY' }));
  assert.deepEqual([finer.status, finer.error.errorCode], [400, '3100'], finer.text);
  assert.match(finer.error.errorDescription, /JPY allows 0/);
});

test('a quote for a payee DFSP that does not exist, whatever its name, is accepted and answered with an error callback to the payer', async () => {
  for (const name of ['nonexistentfsp4198', 'no such fsp']) {
    const quote = quoteRequestBody({ payee: name });
    const answer = await postQuote(quote, { destination: name });
    assert.equal(answer.status, 202, `${name}: ${answer.text}`);
    const error = await callTo(payer, 'PUT', `/quotes/${quote.quoteId}/error`);
    assert.equal(error.body.errorInformation.errorCode, '3203', name);
    assert.deepEqual([error.headers['fspiop-source'], error.headers['fspiop-destination']], ['Hub', 'payerfsp']);
  }
});

test('GET /parties with an FSPIOP-Source that is no DFSP of the switch is 3101, in Mojaloop\'s words', async () => {
  // A name that could be a DFSP's, with a certificate of that name, and one that cannot, with payerfsp's.
  const unknown = await answerOf(await unsignedFetch(`${alsUrl}/parties/MSISDN/27710000001`, { headers: dfspHeaders('parties', 'invalidFSPIOPText') }));
  const malformed = await getWithHeaders(`${alsUrl}/parties/MSISDN/27710000001`, dfspHeaders('parties', '{fspId}'));
  for (const answer of [unknown, malformed]) {
    assert.deepEqual([answer.status, answer.error?.errorCode], [400, '3101'], JSON.stringify(answer.error));
    assert.match(answer.error.errorDescription, /^Malformed syntax - Invalid fspiop-source header/);
  }
});

test('a missing Accept says "Accept is required"; malformed syntax says so', async () => {
  const headers = quoteHeaders('payerfsp', 'payeefsp', { accept: false });
  const missing = await getWithHeaders(`${quotingUrl}/quotes/${randomUUID()}`, headers);
  assert.deepEqual([missing.status, missing.error.errorCode, missing.error.errorDescription], [400, '3102', 'Missing mandatory element - Accept is required']);
  const malformed = await getWithHeaders(`${quotingUrl}/quotes/${randomUUID()}`, { ...headers, accept: 'text/html' });
  assert.deepEqual([malformed.status, malformed.error.errorCode, malformed.error.errorDescription], [400, '3101', 'Malformed syntax - Invalid accept header']);
  const currency = await sw.admin.request('POST', '/participants', { name: 'newfsp', currency: 'XYZW' });
  assert.deepEqual([currency.status, currency.body.errorInformation.errorCode], [400, '3101'], currency.text);
  assert.match(currency.body.errorInformation.errorDescription, /^Malformed syntax - \/currency/);
});

test('every process answers /health in Mojaloop\'s shape, the settlement API under /v2 as well', async () => {
  const withDatabase = new Set(['prepare', 'position', 'fulfil', 'timeout', 'account-lookup', 'account-lookup-admin', 'quoting-handler', 'settlement-api']);
  const withBroker = new Set(['api-adapter', 'quoting', 'account-lookup', 'prepare', 'position', 'fulfil', 'timeout', 'quoting-handler', 'notification']);
  const paths = Object.keys(COMPONENTS).map((name) => [name, `${sw.urlOf(name)}/health`]);
  paths.push(['settlement-api under /v2', `${sw.urlOf('settlement-api')}/v2/health`]);
  for (const [name, url] of paths) {
    const response = await probeFetch(url);
    const health = await response.json();
    assert.equal(response.status, 200, `${name}: ${JSON.stringify(health)}`);
    assert.deepEqual(Object.keys(health), ['status', 'uptime', 'startTime', 'versionNumber', 'services'], name);
    assert.equal(health.status, 'OK', name);
    assert.ok(health.uptime > 0 && Date.parse(health.startTime) < Date.now(), name);
    assert.match(health.versionNumber, /^\d+\.\d+\.\d+/, name);
    const services = Object.fromEntries(health.services.map((service) => [service.name, service.status]));
    const component = name.split(' ')[0];
    if (withDatabase.has(component)) assert.equal(services.datastore, 'OK', `${name}: ${JSON.stringify(health.services)}`);
    if (withBroker.has(component)) assert.equal(services.broker, 'OK', `${name}: ${JSON.stringify(health.services)}`);
    assert.equal(services.kafka, undefined, `${name}: the broker is called broker, as Mojaloop names it`);
  }
});

test('PUT /participants/{Type}/{ID}/error is relayed to its FSPIOP-Destination as sent; an unknown destination is told to the sender', async () => {
  const path = '/participants/MSISDN/27710000009/error';
  const raw = JSON.stringify({ errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } }, null, 1);
  const headers = dfspHeaders('participants', 'payeefsp', 'payerfsp', { accept: false });
  const sent = await answerOf(await signedFetch(`${alsUrl}${path}`, { method: 'PUT', headers, body: raw }));
  assert.equal(sent.status, 200, sent.text);
  const relayed = await callTo(payer, 'PUT', path);
  assert.equal(relayed.rawBody, raw, 'the bytes the payee sent');
  assert.deepEqual([relayed.headers['fspiop-source'], relayed.headers['fspiop-destination'], relayed.signatureProblem], ['payeefsp', 'payerfsp', null]);

  const nowhere = '/participants/MSISDN/27710000010/error';
  const unrouted = await answerOf(await signedFetch(`${alsUrl}${nowhere}`, { method: 'PUT', headers: { ...headers, 'fspiop-destination': 'ghostfsp' }, body: raw }));
  assert.equal(unrouted.status, 200, unrouted.text);
  const told = await callTo(payee, 'PUT', nowhere);
  assert.deepEqual([told.body.errorInformation.errorCode, told.headers['fspiop-source']], ['3201', 'Hub']);
  assert.match(told.body.errorInformation.errorDescription, /ghostfsp is not an active DFSP/);
});
