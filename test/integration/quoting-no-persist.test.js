// Quotes end to end with QUOTES_PERSIST=false: the switch keeps only what duplicate detection
// needs, so a resend of an answered quote is put to the payee again rather than answered
// from storage, and GET /quotes/{ID} of an answered quote cannot be repeated (3205). A bulk
// quote keeps its quoteIds all the same, so the payee's answer is still checked against them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { quoteHeaders, quoteRequestBody, startQuoteDfsp } from '../support/quote-dfsp.js';
import { unsignedFetch } from '../support/jws-keys.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

let sw;
let quotingUrl;
let payer;
let payee;

before(async () => {
  // The quote DFSPs send placeholder signatures (forwarded byte for byte), so verification is off here.
  sw = await startSwitch({ components: ['quoting', 'quoting-handler', 'notification'], env: { QUOTES_PERSIST: 'false', JWS_VERIFICATION: 'off' } });
  quotingUrl = sw.urlOf('quoting');
  await setUpHub(sw.admin.request);
  payer = await startQuoteDfsp({ name: 'payerfsp', quotingUrl, placeholderSignatures: true });
  payee = await startQuoteDfsp({ name: 'payeefsp', quotingUrl, placeholderSignatures: true });
  for (const dfsp of [payer, payee]) await onboardDfsp(sw.admin.request, { name: dfsp.name, endpointBase: dfsp.url, fundsIn: '' });
});

after(async () => {
  await Promise.all([payer, payee].map((dfsp) => dfsp?.close()));
  await sw?.stop();
});

async function request(method, path, body, source = 'payerfsp') {
  const response = await unsignedFetch(`${quotingUrl}${path}`, { method, headers: quoteHeaders(source, 'payeefsp'), body: body === undefined ? undefined : JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
}

const quoteRow = async (quoteId) => (await sw.admin.db('quote').where({ quote_id: quoteId }))[0];
const postsTo = (dfsp, quoteId) => dfsp.received.filter((call) => call.method === 'POST' && call.body?.quoteId === quoteId);

test('the quote is relayed both ways; only its parties, state and hashes are stored', async () => {
  const body = quoteRequestBody();
  await request('POST', '/quotes', body);
  const answer = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${body.quoteId}`);
  assert.equal(answer.rawBody, payee.answers.get(body.quoteId).rawBody);
  const row = await quoteRow(body.quoteId);
  assert.deepEqual([row.state, row.payer_fsp, row.payee_fsp], ['ANSWERED', 'payerfsp', 'payeefsp']);
  assert.ok(row.request_hash && row.answer_hash);
  for (const column of ['request_body', 'request_headers', 'answer_body', 'answer_headers', 'amount', 'transaction_id', 'ilp_condition']) {
    assert.equal(row[column], null, `${column} is not kept`);
  }
});

test('a resend of an answered quote is put to the payee again, whose same answer reaches the payer again', async () => {
  const body = quoteRequestBody();
  await request('POST', '/quotes', body);
  const first = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${body.quoteId}`);
  await request('POST', '/quotes', body);
  await payer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${body.quoteId}` && call !== first);
  assert.equal(postsTo(payee, body.quoteId).length, 2);
  const answers = payer.callsTo('PUT', `/quotes/${body.quoteId}`);
  assert.deepEqual(answers.map((call) => call.rawBody), [first.rawBody, first.rawBody]);
  assert.equal((await quoteRow(body.quoteId)).state, 'ANSWERED');

  await request('POST', '/quotes', { ...body, note: 'changed' });
  const modified = await payer.waitFor((call) => call.path === `/quotes/${body.quoteId}/error`);
  assert.equal(modified.body.errorInformation.errorCode, '3106');
});

test('GET /quotes/{ID} of an answered quote gets 3205: the answer is not kept', async () => {
  const body = quoteRequestBody();
  await request('POST', '/quotes', body);
  await payer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${body.quoteId}`);
  await request('GET', `/quotes/${body.quoteId}`);
  const refused = await payer.waitFor((call) => call.path === `/quotes/${body.quoteId}/error`);
  assert.equal(refused.body.errorInformation.errorCode, '3205');
  assert.match(refused.body.errorInformation.errorDescription, /not kept/);
});

test('a quote accepted while the handler is down is relayed once it is back', async () => {
  await sw.kill('quoting-handler');
  const body = quoteRequestBody();
  await request('POST', '/quotes', body);
  await sw.start('quoting-handler');
  await payer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${body.quoteId}`, 30_000);
  assert.equal(postsTo(payee, body.quoteId).length, 1);
});

test('a bulk quote keeps only its quoteIds beside duplicate detection, and the payee\'s answer is still held to them', async () => {
  const bulk = { bulkQuoteId: quoteRequestBody().quoteId, payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '1', fspId: 'payerfsp' } } };
  bulk.individualQuotes = [quoteRequestBody(), quoteRequestBody()].map(({ quoteId, transactionId, payee: party, amountType, amount, transactionType }) => ({
    quoteId, transactionId, payee: party, amountType, amount, transactionType,
  }));
  const id = bulk.bulkQuoteId;
  const send = (method, path, source, destination, body) => unsignedFetch(`${quotingUrl}${path}`, {
    method, headers: dfspHeaders('bulkQuotes', source, destination, { accept: method !== 'PUT' }), body: JSON.stringify(body),
  });
  assert.equal((await send('POST', '/bulkQuotes', 'payerfsp', 'payeefsp', bulk)).status, 202);
  await payee.waitFor((call) => call.method === 'POST' && call.body?.bulkQuoteId === id);
  const results = (quoteIds) => ({ expiration: new Date(Date.now() + 60_000).toISOString(), individualQuoteResults: quoteIds.map((quoteId) => ({ quoteId })) });
  const stranger = quoteRequestBody().quoteId;
  assert.equal((await send('PUT', `/bulkQuotes/${id}`, 'payeefsp', 'payerfsp', results([stranger]))).status, 200);
  const refused = await payee.waitFor((call) => call.path === `/bulkQuotes/${id}/error`);
  assert.deepEqual([refused.body.errorInformation.errorCode, refused.body.errorInformation.errorDescription.endsWith(`${stranger} was not asked for`)], ['3100', true]);
  const genuine = results(bulk.individualQuotes.map((entry) => entry.quoteId));
  assert.equal((await send('PUT', `/bulkQuotes/${id}`, 'payeefsp', 'payerfsp', genuine)).status, 200);
  const answer = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/bulkQuotes/${id}`);
  assert.equal(answer.rawBody, JSON.stringify(genuine));
  const row = (await sw.admin.db('bulk_quote').where({ bulk_quote_id: id }))[0];
  assert.deepEqual([row.state, JSON.parse(row.quote_ids), row.item_count, row.currencies, row.request_body, row.answer_body],
    ['ANSWERED', bulk.individualQuotes.map((entry) => entry.quoteId), null, null, null, null]);
});
