// Bulk quotes end to end through the real switch (FSPIOP /bulkQuotes in 1.0, 1.1 and 2.0): the
// quoting edge, the quoting handler and the notification handler as their own processes, real
// Kafka and MariaDB, DFSPs over real HTTP. A payer DFSP holding USD and EUR asks a payee DFSP
// holding USD alone; the test answers as the payee. Signatures are placeholders, forwarded byte
// for byte (verification is off, as in quoting.test.js).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { startRecordingServer } from '../support/recording-server.js';
import { unsignedFetch } from '../support/jws-keys.js';
import { BULK_QUOTE_PAYLOAD_BYTES_MAX } from '../../quoting/bulk-quote-checks.js';

let sw;
let quotingUrl;
let payer;
let payee;
let other;

const media = (version) => `application/vnd.interoperability.bulkQuotes+json;version=${version}`;

/** A DFSP's /bulkQuotes headers in `version`, with a placeholder signature of its own. */
function bulkHeaders(source, destination, { version = '1.1', accept = true } = {}) {
  return {
    'content-type': media(version), ...(accept ? { accept: media(version.split('.')[0]) } : {}), date: new Date().toUTCString(),
    'fspiop-source': source, ...(destination ? { 'fspiop-destination': destination } : {}),
    'fspiop-signature': `{"signature":"${source}-signed","protectedHeader":"x"}`,
  };
}

/** An IndividualQuote for a payee of payeefsp, in `currency`. */
function individualQuote(currency = 'USD', amount = '10') {
  return {
    quoteId: randomUUID(),
    transactionId: randomUUID(),
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: `2771${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`, fspId: 'payeefsp' }, name: 'Payee Person' },
    amountType: 'SEND',
    amount: { amount, currency },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
    note: 'salary',
  };
}

/** A BulkQuotesPostRequest of payerfsp with one individual quote per currency of `currencies`. */
function bulkBody(currencies = ['USD', 'USD', 'USD']) {
  return {
    bulkQuoteId: randomUUID(),
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '44123456789', fspId: 'payerfsp' }, name: 'Payer Person' },
    expiration: new Date(Date.now() + 60_000).toISOString(),
    individualQuotes: currencies.map((currency) => individualQuote(currency)),
  };
}

/** The payee's answer: a quote for every individual quote but those of `refused`, which get errorInformation. */
function answerBody(body, refused = new Set()) {
  return {
    expiration: new Date(Date.now() + 60_000).toISOString(),
    individualQuoteResults: body.individualQuotes.map(({ quoteId, amount }) => (refused.has(quoteId)
      ? { quoteId, errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected quote' } }
      : {
        quoteId, transferAmount: amount, payeeFspFee: { amount: '0.5', currency: amount.currency },
        ilpPacket: 'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4wCk5vbmNl',
        condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA',
      })),
  };
}

before(async () => {
  sw = await startSwitch({ components: ['quoting', 'quoting-handler', 'notification'], env: { JWS_VERIFICATION: 'off' } });
  quotingUrl = sw.urlOf('quoting');
  await setUpHub(sw.admin.request, 'USD');
  await setUpHub(sw.admin.request, 'EUR');
  [payer, payee, other] = await Promise.all(['payerfsp', 'payeefsp', 'otherfsp'].map((name) => startRecordingServer({ name })));
  const { request } = sw.admin;
  for (const [dfsp, name] of [[payer, 'payerfsp'], [payee, 'payeefsp'], [other, 'otherfsp']]) {
    await onboardDfsp(request, { name, currency: 'USD', endpointBase: dfsp.url, fundsIn: '' });
  }
  assert.equal((await request('POST', '/participants', { name: 'payerfsp', currency: 'EUR' })).status, 201);
  const limits = await request('POST', '/participants/payerfsp/initialPositionAndLimits', { currency: 'EUR', limit: { type: 'NET_DEBIT_CAP', value: 1000 } });
  assert.equal(limits.status, 201, limits.text);
});

after(async () => {
  await Promise.all([payer, payee, other].map((dfsp) => dfsp?.close()));
  await sw?.stop();
});

const send = (method, path, { source, destination, raw, version, accept }) => unsignedFetch(`${quotingUrl}${path}`, {
  method, headers: bulkHeaders(source, destination, { version, accept }), ...(raw === undefined ? {} : { body: raw }),
});

async function postBulk(body, { raw = JSON.stringify(body), source = 'payerfsp', destination = 'payeefsp', version } = {}) {
  const response = await send('POST', '/bulkQuotes', { source, destination, raw, version });
  assert.equal(response.status, 202, await response.text());
}

async function putAnswer(id, raw, { source = 'payeefsp', destination = 'payerfsp', suffix = '' } = {}) {
  const response = await send('PUT', `/bulkQuotes/${id}${suffix}`, { source, destination, raw, accept: false });
  assert.equal(response.status, 200, await response.text());
}

const bulkRow = async (id) => (await sw.admin.db('bulk_quote').where({ bulk_quote_id: id }))[0];
const putTo = (dfsp, id, suffix = '', skip = [], timeoutMs = undefined) => dfsp.waitFor(
  (call) => call.method === 'PUT' && call.path === `/bulkQuotes/${id}${suffix}` && !skip.includes(call), timeoutMs,
);
const callbacksTo = (dfsp, id) => dfsp.received.filter((call) => call.path.startsWith(`/bulkQuotes/${id}`));
const requestsTo = (dfsp, id) => dfsp.received.filter((call) => call.method === 'POST' && call.body?.bulkQuoteId === id);

/** A synchronous FSPIOP error: its HTTP status, code and description. */
async function syncError(response) {
  const { errorInformation } = await response.json();
  return [response.status, errorInformation.errorCode, errorInformation.errorDescription];
}

test('a bulk of three reaches the payee as the payer sent it, and the payee\'s mixed answer reaches the payer byte for byte', async () => {
  const body = bulkBody();
  const id = body.bulkQuoteId;
  const raw = JSON.stringify(body, null, 1);
  await postBulk(body, { raw });
  const forwarded = await payee.waitFor((call) => call.method === 'POST' && call.path === '/bulkQuotes' && call.body.bulkQuoteId === id);
  assert.equal(forwarded.rawBody, raw, 'the payer\'s body bytes reach the payee unchanged');
  assert.deepEqual([forwarded.headers['fspiop-source'], forwarded.headers['fspiop-destination'], forwarded.headers['fspiop-signature'], forwarded.headers['content-type']],
    ['payerfsp', 'payeefsp', '{"signature":"payerfsp-signed","protectedHeader":"x"}', media('1.1')]);

  const refused = new Set([body.individualQuotes[1].quoteId]);
  const answer = JSON.stringify(answerBody(body, refused), null, 2);
  await putAnswer(id, answer);
  const relayed = await putTo(payer, id);
  assert.equal(relayed.rawBody, answer, 'the payee\'s body bytes reach the payer unchanged');
  assert.deepEqual([relayed.headers['fspiop-source'], relayed.headers['fspiop-destination'], relayed.headers['fspiop-signature']],
    ['payeefsp', 'payerfsp', '{"signature":"payeefsp-signed","protectedHeader":"x"}']);
  assert.deepEqual(relayed.body.individualQuoteResults.map((result) => [result.quoteId, result.errorInformation?.errorCode ?? result.condition]), [
    [body.individualQuotes[0].quoteId, 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA'], [body.individualQuotes[1].quoteId, '5101'],
    [body.individualQuotes[2].quoteId, 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA']]);
  const row = await bulkRow(id);
  assert.deepEqual([row.state, row.payer_fsp, row.payee_fsp, row.item_count, row.currencies], ['ANSWERED', 'payerfsp', 'payeefsp', 3, 'USD']);
  assert.deepEqual(JSON.parse(row.quote_ids), body.individualQuotes.map((item) => item.quoteId));
  assert.deepEqual([row.request_body, row.answer_body], [raw, answer]);
});

test('an individual quote in a currency the payee holds no position in refuses the whole bulk, naming it, in the payer\'s version; the payee is never asked', async () => {
  const body = bulkBody(['USD', 'EUR', 'USD']);
  const euro = body.individualQuotes[1].quoteId;
  await postBulk(body, { version: '1.0' });
  const refusal = await putTo(payer, body.bulkQuoteId, '/error');
  assert.equal(refusal.body.errorInformation.errorCode, '3203');
  assert.equal(refusal.headers['content-type'], media('1.0'), 'the hub answers in the version the payer sent');
  assert.equal(refusal.body.errorInformation.errorDescription, `Payee FSP ID not found - individual quote ${euro}: payee FSP has no active EUR position`);
  assert.equal(refusal.headers['fspiop-source'], 'Hub');
  assert.equal(await bulkRow(body.bulkQuoteId), undefined);
  assert.deepEqual(requestsTo(payee, body.bulkQuoteId), []);

  const foreignPayer = { ...bulkBody(), payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '1', fspId: 'otherfsp' } } };
  await postBulk(foreignPayer);
  const named = await putTo(payer, foreignPayer.bulkQuoteId, '/error');
  assert.deepEqual([named.body.errorInformation.errorCode, named.body.errorInformation.errorDescription.includes('otherfsp is not the sender payerfsp')], ['3100', true]);
});

test('an answer from a DFSP that was not asked, or naming a quote that was not asked for, is refused with 3100; the payee\'s own answer still goes through', async () => {
  const body = bulkBody(['USD', 'USD']);
  const id = body.bulkQuoteId;
  await postBulk(body);
  await payee.waitFor((call) => call.method === 'POST' && call.body?.bulkQuoteId === id);
  await putAnswer(id, JSON.stringify(answerBody(body)), { source: 'otherfsp' });
  const impostor = await putTo(other, id, '/error');
  assert.equal(impostor.body.errorInformation.errorCode, '3100');
  assert.match(impostor.body.errorInformation.errorDescription, /was sent to payeefsp; otherfsp cannot answer it/);

  const stranger = randomUUID();
  const padded = answerBody(body);
  padded.individualQuoteResults.push({ quoteId: stranger, errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected quote' } });
  await putAnswer(id, JSON.stringify(padded));
  const refusal = await putTo(payee, id, '/error');
  assert.equal(refusal.body.errorInformation.errorCode, '3100');
  assert.equal(refusal.body.errorInformation.errorDescription, `Generic validation error - individual quote ${stranger} was not asked for`);
  assert.equal((await bulkRow(id)).state, 'FORWARDED');
  assert.deepEqual(callbacksTo(payer, id), [], 'the payer heard nothing of either');

  const genuine = JSON.stringify(answerBody(body));
  await putAnswer(id, genuine);
  assert.equal((await putTo(payer, id)).rawBody, genuine);
});

test('duplicates: a resend of an answered bulk gets the stored answer, a modified one 3106; GET gives the payer the stored answer and anyone else 3209', async () => {
  const body = bulkBody(['USD', 'USD']);
  const id = body.bulkQuoteId;
  await postBulk(body);
  await payee.waitFor((call) => call.method === 'POST' && call.body?.bulkQuoteId === id);
  const answer = JSON.stringify(answerBody(body, new Set([body.individualQuotes[0].quoteId])));
  await putAnswer(id, answer);
  const first = await putTo(payer, id);
  await postBulk(body);
  const again = await putTo(payer, id, '', [first]);
  assert.deepEqual([again.rawBody, again.headers['fspiop-source'], again.headers['fspiop-signature']], [answer, 'payeefsp', first.headers['fspiop-signature']]);
  assert.equal(requestsTo(payee, id).length, 1, 'the payee is not asked again');

  const modified = { ...body, individualQuotes: [body.individualQuotes[0]] };
  await postBulk(modified);
  assert.equal((await putTo(payer, id, '/error')).body.errorInformation.errorCode, '3106');

  const get = await send('GET', `/bulkQuotes/${id}`, { source: 'payerfsp', destination: 'payeefsp' });
  assert.equal(get.status, 202);
  const fetched = await putTo(payer, id, '', [first, again]);
  assert.equal(fetched.rawBody, answer);
  assert.equal((await send('GET', `/bulkQuotes/${id}`, { source: 'otherfsp', destination: 'payeefsp' })).status, 202);
  assert.equal((await putTo(other, id, '/error')).body.errorInformation.errorCode, '3209');
  const unknown = randomUUID();
  assert.equal((await send('PUT', `/bulkQuotes/${unknown}`, { source: 'payeefsp', destination: 'payerfsp', raw: answer, accept: false })).status, 200);
  assert.equal((await putTo(payee, unknown, '/error')).body.errorInformation.errorCode, '3209');
});

test('the payee\'s error callback reaches the payer as sent and fails the bulk quote', async () => {
  const body = bulkBody(['USD']);
  await postBulk(body, { version: '2.0' });
  await payee.waitFor((call) => call.method === 'POST' && call.body?.bulkQuoteId === body.bulkQuoteId);
  const rejection = JSON.stringify({ errorInformation: { errorCode: '5100', errorDescription: 'Payee cannot quote now' } });
  await putAnswer(body.bulkQuoteId, rejection, { suffix: '/error' });
  const relayed = await putTo(payer, body.bulkQuoteId, '/error');
  assert.deepEqual([relayed.rawBody, relayed.headers['fspiop-source']], [rejection, 'payeefsp']);
  const row = await bulkRow(body.bulkQuoteId);
  assert.deepEqual([row.state, row.answer_error_code], ['FAILED', '5100']);
});

test('no FSPIOP-Destination, 0 and 1,001 individual quotes, a repeated quoteId, a body over the limit and one Kafka cannot carry are answered synchronously; 1,000 are relayed and answered', async () => {
  for (const version of ['1.0', '1.1', '2.0']) {
    const empty = await send('POST', '/bulkQuotes', { source: 'payerfsp', destination: 'payeefsp', raw: JSON.stringify({ ...bulkBody(), individualQuotes: [] }), version });
    assert.deepEqual(await syncError(empty), [400, '3100', 'Generic validation error - /requestBody/individualQuotes must NOT have fewer than 1 items'], version);
  }
  const undirected = await send('POST', '/bulkQuotes', { source: 'payerfsp', raw: JSON.stringify(bulkBody()) });
  assert.deepEqual((await syncError(undirected)).slice(0, 2), [400, '3102']);
  const tooMany = { ...bulkBody(), individualQuotes: Array.from({ length: 1001 }, () => individualQuote()) };
  const refused = await send('POST', '/bulkQuotes', { source: 'payerfsp', destination: 'payeefsp', raw: JSON.stringify(tooMany) });
  assert.deepEqual(await syncError(refused), [400, '3100', 'Generic validation error - /requestBody/individualQuotes must NOT have more than 1000 items']);

  const repeated = bulkBody();
  repeated.individualQuotes[2].quoteId = repeated.individualQuotes[0].quoteId;
  const twice = await send('POST', '/bulkQuotes', { source: 'payerfsp', destination: 'payeefsp', raw: JSON.stringify(repeated) });
  assert.deepEqual(await syncError(twice), [400, '3100', 'Generic validation error - /requestBody/individualQuotes/2/quoteId repeats that of item 0']);

  const oversized = { ...bulkBody(), individualQuotes: Array.from({ length: 1000 }, () => ({ ...individualQuote(), note: 'n'.repeat(900) })) };
  const oversizedText = JSON.stringify(oversized);
  assert.ok(oversizedText.length > BULK_QUOTE_PAYLOAD_BYTES_MAX);
  const tooLarge = await send('POST', '/bulkQuotes', { source: 'payerfsp', destination: 'payeefsp', raw: oversizedText });
  const [status, code] = await syncError(tooLarge);
  assert.deepEqual([status, code], [413, '3104']);
  // Within the limit, but quotes escaped once more in the event make it larger than Kafka takes.
  const quoted = (length) => '"'.repeat(length);
  const escaped = {
    ...bulkBody(),
    individualQuotes: Array.from({ length: 1000 }, () => ({ ...individualQuote(), note: quoted(60), extensionList: { extension: [{ key: 'k', value: quoted(128) }] } })),
  };
  const escapedText = JSON.stringify(escaped);
  assert.ok(escapedText.length < BULK_QUOTE_PAYLOAD_BYTES_MAX);
  const unCarried = await send('POST', '/bulkQuotes', { source: 'payerfsp', destination: 'payeefsp', raw: escapedText });
  assert.deepEqual((await syncError(unCarried)).slice(0, 2), [413, '3104']);
  assert.equal(await bulkRow(escaped.bulkQuoteId), undefined);

  const full = { ...bulkBody(), individualQuotes: Array.from({ length: 1000 }, () => individualQuote()) };
  const fullText = JSON.stringify(full);
  await postBulk(full, { raw: fullText });
  const forwarded = await payee.waitFor((call) => call.method === 'POST' && call.body?.bulkQuoteId === full.bulkQuoteId, 30_000);
  assert.equal(forwarded.rawBody, fullText);
  assert.equal((await bulkRow(full.bulkQuoteId)).item_count, 1000);
  // The payee's answer to all 1,000, each with an ILP packet of the size Mojaloop's SDKs write.
  const answer = answerBody(full);
  for (const result of answer.individualQuoteResults) result.ilpPacket = 'A'.repeat(600);
  const answerText = JSON.stringify(answer);
  assert.ok(answerText.length > 800_000, `the answer is ${answerText.length} bytes`);
  await putAnswer(full.bulkQuoteId, answerText);
  assert.equal((await putTo(payer, full.bulkQuoteId, '', [], 30_000)).rawBody, answerText);
  assert.equal((await bulkRow(full.bulkQuoteId)).state, 'ANSWERED');
});
