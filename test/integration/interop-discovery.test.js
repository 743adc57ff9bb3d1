// Discovery and callbacks as Mojaloop's acceptance tests meet them (issue 13, items 1 to 3),
// through the real switch (every component as a child process, real Kafka and MariaDB) and
// test DFSPs over real HTTP: a DFSP answering 501 to one kind of callback is not cut off; a
// requester whose GET /parties, quote request or prepare cannot reach the other DFSP is told
// by the hub (3201 nowhere to send, 2003 no answer); parties with sub-ids end to end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { discoveryEndpoints, startPartyDfsp } from '../support/party-dfsp.js';
import { quoteHeaders, quoteRequestBody } from '../support/quote-dfsp.js';
import { fspiopHeaders, quoteIlp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';
import { freePort } from '../../scripts/lib/ports.js';

let sw;
let alsUrl;
let payer;
let payee;
let sdk;
let sdkParticipants;
let deadUrl;

/** A DFSP's server that answers 501 to everything, as Mojaloop's SDK answers PUT /participants. */
async function startNotImplementedServer() {
  const received = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => { received.push(`${request.method} ${request.url}`); response.writeHead(501).end(); });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, received, close: () => { server.closeAllConnections(); server.close(); } };
}

async function addEndpoints(name, endpoints) {
  for (const [type, value] of endpoints) {
    const result = await sw.admin.request('POST', `/participants/${name}/endpoints`, { type, value });
    assert.equal(result.status, 201, result.text);
  }
}

before(async () => {
  sw = await startSwitch({ env: { ORACLE_REGISTRY_TTL_MS: '0', PARTICIPANT_CACHE_TTL_MS: '0' } });
  alsUrl = sw.urlOf('account-lookup');
  await setUpHub(sw.admin.request);
  [payer, payee, sdk] = await Promise.all(['payerfsp', 'payeefsp', 'sdkfsp'].map((name) => startPartyDfsp({ name, switchUrl: alsUrl })));
  sdkParticipants = await startNotImplementedServer();
  for (const dfsp of [payer, payee, sdk]) {
    await onboardDfsp(sw.admin.request, { name: dfsp.name, endpointBase: dfsp.url });
    await addEndpoints(dfsp.name, discoveryEndpoints(dfsp.url));
  }
  await addEndpoints('sdkfsp', [
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_PUT', `${sdkParticipants.url}/participants/{{partyIdType}}/{{partyIdentifier}}`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR', `${sdkParticipants.url}/participants/{{partyIdType}}/{{partyIdentifier}}/error`],
  ]);
  // deadfsp's server is gone (its connections are refused); barefsp registered no endpoints.
  deadUrl = `http://127.0.0.1:${await freePort()}`;
  await onboardDfsp(sw.admin.request, { name: 'deadfsp', endpointBase: deadUrl });
  await onboardDfsp(sw.admin.request, { name: 'barefsp' });
});

after(async () => {
  await Promise.all([payer, payee, sdk].map((dfsp) => dfsp?.close()));
  sdkParticipants?.close();
  await sw?.stop();
});

const putTo = (dfsp, path, timeoutMs) => dfsp.waitFor((call) => call.method === 'PUT' && call.path === path, timeoutMs);
const errorCode = (call) => call.body.errorInformation.errorCode;

/** Registers a party through FSPIOP and waits for the hub's confirmation on `dfsp`. */
async function register(dfsp, path) {
  assert.equal((await dfsp.send('POST', path, { body: { fspId: dfsp.name } })).status, 202);
  return putTo(dfsp, path);
}

test('a DFSP answering 501 to PUT /participants still receives the GET /parties forwarded to it at once', async () => {
  for (let i = 0; i < 6; i += 1) {
    assert.equal((await sdk.send('POST', `/participants/MSISDN/2779000000${i}`, { body: { fspId: 'sdkfsp' } })).status, 202);
  }
  // Five confirmations answered 501 were enough to open the DFSP's circuit for 10 s before.
  // The confirmations go through the notification handler and the GET /parties from the
  // account-lookup edge, each with its own breaker, under the same rule (deliver.js).
  for (let waitedMs = 0; sdkParticipants.received.length < 5 && waitedMs < 10_000; waitedMs += 100) await sleep(100);
  assert.ok(sdkParticipants.received.length >= 5, `the confirmations reached the DFSP: ${sdkParticipants.received.join(', ')}`);
  sdk.parties.add('MSISDN/27790000000');
  assert.equal((await payer.send('GET', '/parties/MSISDN/27790000000')).status, 202);
  await sdk.waitFor((call) => call.method === 'GET' && call.path === '/parties/MSISDN/27790000000', 3_000);
  assert.equal(sdkParticipants.received.length, 6, `each 501 came once, not retried: ${sdkParticipants.received.join(', ')}`);
  const answer = await putTo(payer, '/parties/MSISDN/27790000000');
  assert.equal(answer.headers['fspiop-source'], 'sdkfsp');
});

test('a GET /parties that cannot reach the payee: the payer gets the hub\'s signed error, 3201 or 2003', async () => {
  await payer.send('GET', '/parties/MSISDN/27791000001', { destination: 'barefsp' });
  const nowhere = await putTo(payer, '/parties/MSISDN/27791000001/error', 10_000);
  assert.equal(errorCode(nowhere), '3201');
  assert.match(nowhere.body.errorInformation.errorDescription, /barefsp has no FSPIOP_CALLBACK_URL_PARTIES_GET endpoint/);

  await payer.send('GET', '/parties/MSISDN/27791000002/SAVINGS', { destination: 'deadfsp' });
  const unreached = await putTo(payer, '/parties/MSISDN/27791000002/SAVINGS/error', 10_000);
  assert.equal(errorCode(unreached), '2003');
  assert.match(unreached.body.errorInformation.errorDescription, /deadfsp got no answer \(ECONNREFUSED\)/);
  for (const error of [nowhere, unreached]) {
    assert.deepEqual([error.headers['fspiop-source'], error.headers['fspiop-destination']], ['Hub', 'payerfsp']);
    assert.equal(error.signatureProblem, null, 'signed by the hub');
  }
});

test('a quote request that cannot reach the payee: the payer gets PUT /quotes/{ID}/error', async () => {
  const quotingUrl = sw.urlOf('quoting');
  for (const [payeeFsp, code] of [['barefsp', '3201'], ['deadfsp', '2003']]) {
    const body = quoteRequestBody({ payee: payeeFsp });
    const sent = await signedFetch(`${quotingUrl}/quotes`, { method: 'POST', headers: quoteHeaders('payerfsp', payeeFsp), body: JSON.stringify(body) });
    assert.equal(sent.status, 202, await sent.text());
    const error = await putTo(payer, `/quotes/${body.quoteId}/error`, 10_000);
    assert.deepEqual([errorCode(error), error.headers['fspiop-source'], error.signatureProblem], [code, 'Hub', null], payeeFsp);
  }
});

test('a prepare that cannot reach the payee: the payer gets 2003 at once, and the reservation is released at expiry', async () => {
  const transferId = randomUUID();
  const expiration = new Date(Date.now() + 6_000).toISOString();
  const ilp = quoteIlp({ secret: 'deadfsp-secret', transferId, amount: '10', currency: 'USD', payeeAddress: 'g.deadfsp.msisdn.1', expiration });
  const body = { transferId, payerFsp: 'payerfsp', payeeFsp: 'deadfsp', amount: { amount: '10', currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
  const sent = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders('payerfsp', 'deadfsp'), body: JSON.stringify(body) });
  assert.equal(sent.status, 202, await sent.text());
  const error = await putTo(payer, `/transfers/${transferId}/error`, 5_000);
  assert.deepEqual([errorCode(error), error.headers['fspiop-source'], error.signatureProblem], ['2003', 'Hub', null]);
  const expired = await payer.waitFor((call) => call.path === `/transfers/${transferId}/error` && errorCode(call) === '3303', 15_000);
  assert.equal(expired.headers['fspiop-source'], 'Hub');
  const [[row]] = await sw.admin.db.raw('SELECT state FROM transfer WHERE transfer_id = ?', [transferId]);
  assert.notEqual(row.state, 'COMMITTED');
  const [position] = (await sw.admin.request('GET', '/participants/payerfsp/accounts')).body.filter((account) => account.ledgerAccountType === 'POSITION');
  assert.equal(position.value, 0, 'the payer\'s reservation was released');
});

test('sub-ids: registered, confirmed on the SUB_ID endpoint, found end to end; an unknown sub-id at the payee is the payee\'s error', async () => {
  const path = '/participants/MSISDN/27792000001/BANKACC';
  assert.deepEqual((await register(payee, path)).body, { fspId: 'payeefsp' });
  await payer.send('GET', path);
  assert.deepEqual((await putTo(payer, path)).body, { fspId: 'payeefsp' });
  await payer.send('GET', '/participants/MSISDN/27792000001');
  assert.equal(errorCode(await putTo(payer, '/participants/MSISDN/27792000001/error')), '3204', 'without the sub-id it is another party');

  payee.parties.add('MSISDN/27792000001/BANKACC');
  await payer.send('GET', '/parties/MSISDN/27792000001/BANKACC');
  const answer = await putTo(payer, '/parties/MSISDN/27792000001/BANKACC');
  assert.deepEqual([answer.headers['fspiop-source'], answer.body.party.partyIdInfo.partySubIdOrType], ['payeefsp', 'BANKACC']);

  // The oracle knows the sub-id, the payee does not: its 3204 reaches the payer as it sent it.
  await register(payee, '/participants/MSISDN/27792000001/SAVINGS');
  await payer.send('GET', '/parties/MSISDN/27792000001/SAVINGS');
  const unknown = await putTo(payer, '/parties/MSISDN/27792000001/SAVINGS/error');
  assert.deepEqual([errorCode(unknown), unknown.headers['fspiop-source']], ['3204', 'payeefsp']);

  payee.received.length = 0;
  await payee.send('DELETE', path);
  assert.deepEqual((await putTo(payee, path)).body, {});
  payer.received.length = 0;
  await payer.send('GET', path);
  assert.equal(errorCode(await putTo(payer, `${path}/error`)), '3204');
});
