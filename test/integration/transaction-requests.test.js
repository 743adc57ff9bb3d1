// Request to pay end to end through the real switch: a merchant's DFSP (the payee's) asks a
// wallet DFSP (the payer's) to pay with POST /transactionRequests, the wallet answers RECEIVED,
// optionally has its customer approve with an OTP (GET /authorizations → PUT ENTERED), then
// quotes naming the transaction request and pays with an ordinary transfer. The quoting edge,
// the quoting handler, the transfer handlers and the notification handler run as their own
// processes on real Kafka and MariaDB; the DFSPs are real HTTP servers signing what they send.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch } from '../support/switch.js';
import { fspiopHeaders, startTestDfsp } from '../support/test-dfsp.js';
import { quoteRequestBody } from '../support/quote-dfsp.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';
import { signedFetch } from '../support/jws-keys.js';

let sw;
let quotingUrl;
let merchant;
let wallet;
let other;

before(async () => {
  sw = await startSwitch({ components: [...TRANSFER_COMPONENTS, 'quoting', 'quoting-handler'] });
  await setUpHub(sw.admin.request);
  quotingUrl = sw.urlOf('quoting');
  [merchant, wallet, other] = await Promise.all(['merchantfsp', 'walletfsp', 'otherfsp']
    .map((name) => startTestDfsp({ name, switchUrl: sw.apiUrl, urls: { quotes: quotingUrl } })));
  for (const dfsp of [merchant, wallet, other]) {
    await onboardDfsp(sw.admin.request, { name: dfsp.name, endpointBase: dfsp.url, netDebitCap: '100000', fundsIn: '100000' });
  }
});

after(async () => {
  await Promise.all([merchant, wallet, other].filter(Boolean).map((dfsp) => dfsp.close()));
  await sw?.stop();
});

/** `dfsp` sends `method` `path` to the quoting edge, signed, about `resource`, to `destination`. */
async function send(dfsp, method, path, { resource, destination, body, raw = body === undefined ? undefined : JSON.stringify(body) }) {
  const headers = dfspHeaders(resource, dfsp.name, destination, { accept: method !== 'PUT' });
  const response = await signedFetch(`${quotingUrl}${path}`, { method, headers, body: raw });
  return { status: response.status, text: await response.text() };
}

function transactionRequestBody({ id = randomUUID(), payee = 'merchantfsp', payer = 'walletfsp', amount = '10', authenticationType } = {}) {
  return {
    transactionRequestId: id,
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '27713803912', fspId: payee } },
    payer: { partyIdType: 'MSISDN', partyIdentifier: '44123456789', fspId: payer },
    amount: { amount, currency: 'USD' },
    transactionType: { scenario: 'PAYMENT', initiator: 'PAYEE', initiatorType: 'BUSINESS' },
    ...(authenticationType ? { authenticationType } : {}),
    expiration: new Date(Date.now() + 60_000).toISOString(),
  };
}

async function requestToPay(body, { from = merchant, to = body.payer.fspId, raw } = {}) {
  const sent = await send(from, 'POST', '/transactionRequests', { resource: 'transactionRequests', destination: to, body, raw });
  assert.equal(sent.status, 202, sent.text);
}

const answerTransactionRequest = (from, id, to, body = { transactionRequestState: 'RECEIVED' }) => send(from, 'PUT', `/transactionRequests/${id}`, {
  resource: 'transactionRequests', destination: to, body,
});
const askAuthorization = (from, id, to, query) => send(from, 'GET', `/authorizations/${id}?${new URLSearchParams(query)}`, { resource: 'authorizations', destination: to });
const answerAuthorization = (from, id, to, body) => send(from, 'PUT', `/authorizations/${id}`, { resource: 'authorizations', destination: to, body });

const callTo = (dfsp, method, path, timeoutMs) => dfsp.waitFor((call) => call.method === method && call.path === path, timeoutMs);
const errorTo = (dfsp, path, code) => dfsp.waitFor((call) => call.method === 'PUT' && call.path === `${path}/error` && call.body?.errorInformation?.errorCode === code);
const callsTo = (dfsp, prefix) => dfsp.received.filter((call) => call.path.startsWith(prefix));
const transactionRequestRow = async (id) => sw.admin.db('transaction_request').where({ transaction_request_id: id }).first();
const authorizationRow = async (id) => sw.admin.db('authorization').where({ transaction_request_id: id }).first();

/** The merchant asks the wallet to pay; the wallet gets the merchant's bytes and answers RECEIVED, which reaches the merchant. */
async function receivedRequest(options) {
  const body = transactionRequestBody(options);
  const raw = JSON.stringify(body, null, 1);
  await requestToPay(body, { raw });
  const forwarded = await wallet.waitFor((call) => call.method === 'POST' && call.path === '/transactionRequests' && call.body.transactionRequestId === body.transactionRequestId);
  assert.equal(forwarded.rawBody, raw, 'the merchant\'s bytes reach the wallet unchanged');
  assert.deepEqual([forwarded.headers['fspiop-source'], forwarded.headers['fspiop-destination']], ['merchantfsp', 'walletfsp']);
  assert.equal(forwarded.signatureProblem, null, 'the merchant\'s signature still verifies');
  assert.equal((await answerTransactionRequest(wallet, body.transactionRequestId, 'merchantfsp')).status, 200);
  const answer = await callTo(merchant, 'PUT', `/transactionRequests/${body.transactionRequestId}`);
  assert.deepEqual([answer.body.transactionRequestState, answer.headers['fspiop-source']], ['RECEIVED', 'walletfsp']);
  return body;
}

/** The wallet quotes the merchant for the transaction request and pays it: the transfer commits. */
async function quoteAndPay(request) {
  const quote = { ...quoteRequestBody({ payer: 'walletfsp', payee: 'merchantfsp', amount: request.amount.amount }), transactionRequestId: request.transactionRequestId };
  quote.transactionType = { scenario: 'PAYMENT', initiator: 'PAYEE', initiatorType: 'BUSINESS' };
  const posted = await send(wallet, 'POST', '/quotes', { resource: 'quotes', destination: 'merchantfsp', body: quote });
  assert.equal(posted.status, 202, posted.text);
  const answer = await callTo(wallet, 'PUT', `/quotes/${quote.quoteId}`);
  const transferId = quote.transactionId;
  const prepare = {
    transferId, payerFsp: 'walletfsp', payeeFsp: 'merchantfsp', amount: answer.body.transferAmount,
    ilpPacket: answer.body.ilpPacket, condition: answer.body.condition, expiration: new Date(Date.now() + 30_000).toISOString(),
  };
  const prepared = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders('walletfsp', 'merchantfsp'), body: JSON.stringify(prepare) });
  assert.equal(prepared.status, 202, await prepared.text());
  const committed = await callTo(wallet, 'PUT', `/transfers/${transferId}`, 20_000);
  assert.equal(committed.body.transferState, 'COMMITTED');
  return { quote, transferId };
}

test('a merchant-initiated payment: transaction request, RECEIVED, quote naming it, transfer COMMITTED; the request records its quote and transaction', async () => {
  const request = await receivedRequest();
  const { quote, transferId } = await quoteAndPay(request);
  const row = await transactionRequestRow(request.transactionRequestId);
  assert.deepEqual([row.payee_fsp, row.payer_fsp, row.state, row.quote_id, row.transaction_id], ['merchantfsp', 'walletfsp', 'ANSWERED', quote.quoteId, quote.transactionId]);
  const transfer = await sw.admin.db('transfer').where({ transfer_id: transferId }).first('state');
  assert.equal(transfer.state, 'COMMITTED');
});

test('with an OTP: the wallet asks the merchant for the authorization, the answer ENTERED reaches the wallet, a retry starts a new round, and the payment commits', async () => {
  const request = await receivedRequest({ authenticationType: 'OTP' });
  const id = request.transactionRequestId;
  const query = { authenticationType: 'OTP', retriesLeft: '2', amount: '10', currency: 'USD' };
  assert.equal((await askAuthorization(wallet, id, 'merchantfsp', query)).status, 202);
  const asked = await merchant.waitFor((call) => call.method === 'GET' && call.path.startsWith(`/authorizations/${id}`));
  assert.equal(asked.path, `/authorizations/${id}?${new URLSearchParams(query)}`, 'the merchant gets the wallet\'s query');
  assert.equal(asked.headers['fspiop-source'], 'walletfsp');
  const wrong = { authenticationInfo: { authentication: 'OTP', authenticationValue: '111111' }, responseType: 'ENTERED' };
  assert.equal((await answerAuthorization(merchant, id, 'walletfsp', wrong)).status, 200);
  const first = await callTo(wallet, 'PUT', `/authorizations/${id}`);
  assert.equal(first.body.authenticationInfo.authenticationValue, '111111');
  // The OTP was wrong: the wallet asks again with one retry less, a new round.
  const retry = { ...query, retriesLeft: '1' };
  assert.equal((await askAuthorization(wallet, id, 'merchantfsp', retry)).status, 202);
  await merchant.waitFor((call) => call.method === 'GET' && call.path === `/authorizations/${id}?${new URLSearchParams(retry)}`);
  const right = { authenticationInfo: { authentication: 'OTP', authenticationValue: '123456' }, responseType: 'ENTERED' };
  assert.equal((await answerAuthorization(merchant, id, 'walletfsp', right)).status, 200);
  const second = await wallet.waitFor((call) => call.method === 'PUT' && call.path === `/authorizations/${id}` && call !== first);
  assert.equal(second.body.authenticationInfo.authenticationValue, '123456');
  const row = await authorizationRow(id);
  assert.deepEqual([row.payer_fsp, row.payee_fsp, row.state, row.retries_left, row.authentication_type], ['walletfsp', 'merchantfsp', 'ANSWERED', '1', 'OTP']);
  await quoteAndPay(request);
});

test('a transaction request answered by a DFSP it was not sent to is refused with 3100, and the merchant hears nothing of it', async () => {
  const body = transactionRequestBody();
  const id = body.transactionRequestId;
  await requestToPay(body);
  await callTo(wallet, 'POST', '/transactionRequests');
  assert.equal((await answerTransactionRequest(other, id, 'merchantfsp')).status, 200);
  const refusal = await errorTo(other, `/transactionRequests/${id}`, '3100');
  assert.match(refusal.body.errorInformation.errorDescription, /was sent to walletfsp; otherfsp cannot/);
  assert.equal((await transactionRequestRow(id)).state, 'FORWARDED');
  assert.equal((await answerTransactionRequest(wallet, id, 'merchantfsp', { transactionRequestState: 'REJECTED' })).status, 200);
  const genuine = await callTo(merchant, 'PUT', `/transactionRequests/${id}`);
  assert.equal(genuine.body.transactionRequestState, 'REJECTED');
  assert.equal(callsTo(merchant, `/transactionRequests/${id}`).length, 1, 'the impostor\'s answer never reached the merchant');
});

test('an authorization asked by a DFSP other than the payer the request went to, or of another payee, is refused with 3100; of an unknown request 3206', async () => {
  const request = await receivedRequest();
  const id = request.transactionRequestId;
  const query = { authenticationType: 'OTP', retriesLeft: '3', amount: '10', currency: 'USD' };
  assert.equal((await askAuthorization(other, id, 'merchantfsp', query)).status, 202);
  await errorTo(other, `/authorizations/${id}`, '3100');
  assert.equal((await askAuthorization(wallet, id, 'otherfsp', query)).status, 202);
  await errorTo(wallet, `/authorizations/${id}`, '3100');
  const unknown = randomUUID();
  assert.equal((await askAuthorization(wallet, unknown, 'merchantfsp', query)).status, 202);
  await errorTo(wallet, `/authorizations/${unknown}`, '3206');
  assert.deepEqual(callsTo(merchant, '/authorizations/').filter((call) => call.path.includes(id) || call.path.includes(unknown)), []);
  assert.deepEqual(callsTo(other, `/authorizations/${id}`).filter((call) => call.method === 'GET'), []);
  assert.equal(await authorizationRow(id), undefined);
});

test('an authorization answered by someone other than the merchant is refused with 3100; the merchant\'s own answer reaches the wallet', async () => {
  const request = await receivedRequest({ authenticationType: 'OTP' });
  const id = request.transactionRequestId;
  assert.equal((await askAuthorization(wallet, id, 'merchantfsp', { authenticationType: 'OTP', retriesLeft: '3', amount: '10', currency: 'USD' })).status, 202);
  await merchant.waitFor((call) => call.method === 'GET' && call.path.startsWith(`/authorizations/${id}`));
  const forged = { authenticationInfo: { authentication: 'OTP', authenticationValue: '999999' }, responseType: 'ENTERED' };
  assert.equal((await answerAuthorization(other, id, 'walletfsp', forged)).status, 200);
  await errorTo(other, `/authorizations/${id}`, '3100');
  assert.equal((await authorizationRow(id)).state, 'FORWARDED');
  const rejected = { responseType: 'REJECTED' };
  assert.equal((await answerAuthorization(merchant, id, 'walletfsp', rejected)).status, 200);
  const answer = await callTo(wallet, 'PUT', `/authorizations/${id}`);
  assert.equal(answer.body.responseType, 'REJECTED');
  assert.equal(callsTo(wallet, `/authorizations/${id}`).length, 1, 'the forged answer never reached the wallet');
});

test('duplicates: a resend in flight is ignored, a modified request is 3106, a resend once answered gets the stored answer', async () => {
  const body = transactionRequestBody();
  const id = body.transactionRequestId;
  await requestToPay(body);
  await callTo(wallet, 'POST', '/transactionRequests');
  await requestToPay(body);
  await requestToPay({ ...body, amount: { amount: '11', currency: 'USD' } });
  await errorTo(merchant, `/transactionRequests/${id}`, '3106');
  assert.equal(wallet.received.filter((call) => call.body?.transactionRequestId === id).length, 1, 'the wallet is asked once');
  assert.equal((await answerTransactionRequest(wallet, id, 'merchantfsp')).status, 200);
  const first = await callTo(merchant, 'PUT', `/transactionRequests/${id}`);
  await requestToPay(body);
  const again = await merchant.waitFor((call) => call.method === 'PUT' && call.path === `/transactionRequests/${id}` && call !== first);
  assert.deepEqual([again.rawBody, again.headers['fspiop-source'], again.headers['fspiop-signature']], [first.rawBody, 'walletfsp', first.headers['fspiop-signature']]);
  // GET /transactionRequests/{ID}: the merchant gets the stored answer; the wallet, which did not ask, 3205.
  assert.equal((await send(merchant, 'GET', `/transactionRequests/${id}`, { resource: 'transactionRequests', destination: 'walletfsp' })).status, 202);
  await merchant.waitFor((call) => call.method === 'PUT' && call.path === `/transactionRequests/${id}` && call !== first && call !== again);
  assert.equal(merchant.received.filter((call) => call.method === 'PUT' && call.path === `/transactionRequests/${id}`).at(-1).rawBody, first.rawBody);
  assert.equal((await send(wallet, 'GET', `/transactionRequests/${id}`, { resource: 'transactionRequests', destination: 'merchantfsp' })).status, 202);
  await errorTo(wallet, `/transactionRequests/${id}`, '3205');

  // An authorization asked again with other content while the merchant has not answered: 3106.
  const query = { authenticationType: 'OTP', retriesLeft: '3', amount: '10', currency: 'USD' };
  assert.equal((await askAuthorization(wallet, id, 'merchantfsp', query)).status, 202);
  await merchant.waitFor((call) => call.method === 'GET' && call.path.startsWith(`/authorizations/${id}`));
  assert.equal((await askAuthorization(wallet, id, 'merchantfsp', query)).status, 202);
  assert.equal((await askAuthorization(wallet, id, 'merchantfsp', { ...query, retriesLeft: '2' })).status, 202);
  await errorTo(wallet, `/authorizations/${id}`, '3106');
  assert.equal(merchant.received.filter((call) => call.method === 'GET' && call.path.startsWith(`/authorizations/${id}`)).length, 1, 'the merchant is asked once');
});

test('a quote naming another pair\'s transaction request is refused with 3100, an unknown one with 3206; neither reaches the payee', async () => {
  const request = await receivedRequest();
  const foreign = { ...quoteRequestBody({ payer: 'otherfsp', payee: 'merchantfsp' }), transactionRequestId: request.transactionRequestId };
  const posted = await send(other, 'POST', '/quotes', { resource: 'quotes', destination: 'merchantfsp', body: foreign });
  assert.equal(posted.status, 202, posted.text);
  const refusal = await errorTo(other, `/quotes/${foreign.quoteId}`, '3100');
  assert.match(JSON.stringify(refusal.body), /was sent by merchantfsp to walletfsp/);
  const unknown = { ...quoteRequestBody({ payer: 'walletfsp', payee: 'merchantfsp' }), transactionRequestId: randomUUID() };
  assert.equal((await send(wallet, 'POST', '/quotes', { resource: 'quotes', destination: 'merchantfsp', body: unknown })).status, 202);
  await errorTo(wallet, `/quotes/${unknown.quoteId}`, '3206');
  assert.deepEqual(merchant.received.filter((call) => [foreign.quoteId, unknown.quoteId].includes(call.body?.quoteId)), []);
  assert.equal((await transactionRequestRow(request.transactionRequestId)).quote_id, null);
});

test('the edge: POST /transactionRequests without FSPIOP-Destination is 3102; GET /authorizations without retriesLeft is 3102; versions 1.0 and 2.0 are served', async () => {
  const body = JSON.stringify(transactionRequestBody());
  const headers = dfspHeaders('transactionRequests', 'merchantfsp', undefined);
  const missing = await signedFetch(`${quotingUrl}/transactionRequests`, { method: 'POST', headers, body });
  assert.equal(missing.status, 400);
  assert.equal((await missing.json()).errorInformation.errorCode, '3102');
  const noRetries = await askAuthorization(wallet, randomUUID(), 'merchantfsp', { authenticationType: 'OTP', amount: '10', currency: 'USD' });
  assert.equal(noRetries.status, 400);
  assert.match(noRetries.text, /retriesLeft/);
  for (const version of ['1.0', '2.0']) {
    const versioned = transactionRequestBody();
    const sent = await signedFetch(`${quotingUrl}/transactionRequests`, {
      method: 'POST', headers: dfspHeaders('transactionRequests', 'merchantfsp', 'walletfsp', { version }), body: JSON.stringify(versioned),
    });
    assert.equal(sent.status, 202, await sent.text());
    const forwarded = await wallet.waitFor((call) => call.method === 'POST' && call.body?.transactionRequestId === versioned.transactionRequestId);
    assert.equal(forwarded.headers['content-type'], `application/vnd.interoperability.transactionRequests+json;version=${version}`);
  }
});
