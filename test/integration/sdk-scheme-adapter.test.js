// A real Mojaloop DFSP client against the whole switch: two @mojaloop/sdk-scheme-adapter@18.0.2
// instances (payer and payee, each with its own Redis and a tiny backend) talk to the
// account-lookup, quoting and transfers edges over real HTTP, with every switch component
// as its own child process on real Kafka and MariaDB. The adapters validate everything the
// switch sends them against the FSPIOP spec; what they refuse is reported message by message.
// JWS is on both ways, as Mojaloop runs it: each adapter signs with its own key (registered
// at onboarding) and validates every callback with the hub's and the other DFSP's public
// keys, and the switch requires signatures, so the flow completing proves the hub's
// signatures are Mojaloop's and Mojaloop's signatures pass the switch. The edges ask for client
// certificates (mutual TLS, the switch's default): each adapter presents its own through its
// outbound TLS settings.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { discoveryEndpoints } from '../support/party-dfsp.js';
import { startSdkAdapter, sdkAdapterMissing, outbound, describeRefusals } from '../support/sdk-adapter.js';
import { startSwitch } from '../support/switch.js';

const missing = sdkAdapterMissing();
const PAYEE_MSISDN = '27713803912';
const UNKNOWN_MSISDN = '27799999991';
let sw;
let payer;
let payee;

before(async () => {
  if (missing) return;
  sw = await startSwitch();
  await setUpHub(sw.admin.request);
  const switchUrls = { accountLookup: sw.urlOf('account-lookup'), quoting: sw.urlOf('quoting'), transfers: sw.apiUrl };
  assert.match(sw.apiUrl, /^https:/, 'the edges serve HTTPS with mutual TLS');
  [payer, payee] = await Promise.all([
    startSdkAdapter({ dfspId: 'payerfsp', switchUrls, peers: ['payeefsp'] }),
    startSdkAdapter({
      dfspId: 'payeefsp', switchUrls, peers: ['payerfsp'],
      parties: { [PAYEE_MSISDN]: { displayName: 'Ada Lovelace', firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1985-12-10' } },
    }),
  ]);
  for (const adapter of [payer, payee]) {
    await onboardDfsp(sw.admin.request, { name: adapter.dfspId, endpointBase: adapter.inboundUrl, netDebitCap: '1000', fundsIn: '5000' });
    for (const [type, value] of discoveryEndpoints(adapter.inboundUrl)) {
      const result = await sw.admin.request('POST', `/participants/${adapter.dfspId}/endpoints`, { type, value });
      assert.equal(result.status, 201, result.text);
    }
  }
});

after(async () => {
  await Promise.all([payer, payee].map((adapter) => adapter?.stop()));
  await sw?.stop();
});

/** Fails with every message an adapter refused, the switch's request and the adapter's answer. */
function assertNothingRefused() {
  const refusals = [payer, payee].map(describeRefusals).filter(Boolean).join('\n');
  assert.equal(refusals, '', `the sdk-scheme-adapter refused what the switch sent:\n${refusals}`);
}

async function position(name) {
  const accounts = await sw.admin.request('GET', `/participants/${name}/accounts`);
  assert.equal(accounts.status, 200, accounts.text);
  return Number(accounts.body.find((account) => account.ledgerAccountType === 'POSITION').value);
}

function transferRequest(msisdn, amount) {
  return {
    homeTransactionId: randomUUID(),
    from: { idType: 'MSISDN', idValue: '27700000001', displayName: 'Payer Person' },
    to: { idType: 'MSISDN', idValue: msisdn },
    amountType: 'SEND', currency: 'USD', amount, transactionType: 'TRANSFER', note: 'sdk-scheme-adapter test',
  };
}

test('the payee registers its MSISDN through its adapter (POST /accounts → switch POST /participants)', { skip: missing }, async () => {
  const registered = await outbound(payee, 'POST', '/accounts', [{ idType: 'MSISDN', idValue: PAYEE_MSISDN, currency: 'USD' }]);
  assertNothingRefused();
  assert.equal(registered.status, 200, registered.text);
  assert.equal(registered.body.currentState, 'COMPLETED', registered.text);
  assert.deepEqual(registered.body.response, [{ idType: 'MSISDN', idValue: PAYEE_MSISDN }]);
});

test('payer adapter POST /transfers: lookup, quote and transfer through the switch end COMPLETED; positions move', { skip: missing }, async () => {
  const [payerBefore, payeeBefore] = [await position('payerfsp'), await position('payeefsp')];
  const startedAt = Date.now();
  const sent = await outbound(payer, 'POST', '/transfers', transferRequest(PAYEE_MSISDN, '42.5'));
  assertNothingRefused();
  assert.equal(sent.status, 200, sent.text);
  assert.equal(sent.body.currentState, 'COMPLETED', sent.text);
  assert.equal(sent.body.getPartiesResponse.body.party.partyIdInfo.fspId, 'payeefsp');
  assert.equal(sent.body.quoteResponse.body.transferAmount.amount, '42.5');
  assert.equal(sent.body.fulfil.body.transferState, 'COMMITTED');
  assert.equal(await position('payerfsp'), payerBefore + 42.5);
  assert.equal(await position('payeefsp'), payeeBefore - 42.5);
  // Every FSPIOP message of the flow reached the adapters through the switch, and was accepted.
  const { transferId } = sent.body;
  const seen = (adapter) => adapter.exchanges.filter((exchange) => exchange.at >= startedAt).map((exchange) => `${exchange.method} ${exchange.path} ${exchange.status}`);
  assert.deepEqual(seen(payer), [`PUT /parties/MSISDN/${PAYEE_MSISDN} 200`, `PUT /quotes/${sent.body.quoteId} 200`, `PUT /transfers/${transferId} 200`]);
  assert.deepEqual(seen(payee), [`GET /parties/MSISDN/${PAYEE_MSISDN} 202`, 'POST /quotes 202', 'POST /transfers 202']);
  // The payee's adapter told its backend about each step.
  const backendCalls = payee.backend.calls.map((call) => `${call.method} ${call.path.split('/').slice(0, 2).join('/')}`);
  assert.deepEqual(backendCalls.filter((call) => call !== 'PUT /transfers'), ['GET /parties', 'POST /quoterequests', 'POST /transfers']);
});

test('an unknown MSISDN ends with 3204 (the SDK answers 500 with statusCode 3204)', { skip: missing }, async () => {
  const sent = await outbound(payer, 'POST', '/transfers', transferRequest(UNKNOWN_MSISDN, '1'));
  assertNothingRefused();
  assert.equal(sent.status, 500, sent.text);
  assert.equal(sent.body.statusCode, '3204', sent.text);
  assert.equal(sent.body.transferState.lastError.mojaloopError.errorInformation.errorCode, '3204');
  const error = payer.exchanges.find((exchange) => exchange.path === `/parties/MSISDN/${UNKNOWN_MSISDN}/error`);
  assert.deepEqual([error.method, error.status, error.headers['fspiop-source'], error.headers['fspiop-destination']], ['PUT', 200, 'Hub', 'payerfsp']);
});

test('the adapters check what they verify: every message with a body came signed, and a hub callback altered after signing is refused', { skip: missing }, async () => {
  for (const adapter of [payer, payee]) {
    const unsigned = adapter.exchanges.filter((exchange) => exchange.body !== undefined && !exchange.headers['fspiop-signature']);
    assert.deepEqual(unsigned.map((exchange) => `${exchange.method} ${exchange.path}`), [], `${adapter.dfspId} received unsigned messages`);
  }
  const error = payer.exchanges.find((exchange) => exchange.path === `/parties/MSISDN/${UNKNOWN_MSISDN}/error`);
  const { host: _host, connection: _connection, 'content-length': _length, ...headers } = error.headers;
  const altered = JSON.stringify({ errorInformation: { errorCode: '3204', errorDescription: 'Party not found, altered' } });
  // node:http rather than fetch, which would add an Accept the adapter's header check refuses.
  const response = await new Promise((resolve, reject) => {
    const request = http.request(`${payer.inboundUrl}${error.path}`, { method: 'PUT', headers }, (answer) => {
      let text = '';
      answer.on('data', (chunk) => { text += chunk; });
      answer.on('end', () => resolve({ status: answer.statusCode, text }));
    });
    request.on('error', reject);
    request.end(altered);
  });
  const answer = response.text;
  assert.equal(response.status, 400, answer);
  assert.match(answer, /3105|signature/i, answer);
});
