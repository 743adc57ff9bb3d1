// FSPIOP versions across the switch (issue 31, item 1): a DFSP on API v1.1 and one on v2.0 pay
// each other through the real switch (every component as a child process, real Kafka and
// MariaDB, the FSPIOP edges over mutual TLS) and DFSPs over real HTTP that verify every
// signature. The v1.1 payer takes 1.x only (`Accept: version=1`); the v2.0 payee speaks 2.0 in
// what it originates and answers each request in a version its requester takes, as the API
// definition asks. Forwards arrive as their sender sent them; what the hub originates arrives
// in the version its receiver uses. Each request is checked against its own version's document.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { startSwitch, withDfsps } from '../support/switch.js';
import { startRecordingServer } from '../support/recording-server.js';
import { signedFetch } from '../support/jws-keys.js';
import { fulfilmentFor, quoteIlp } from '../support/test-dfsp.js';
import { quoteRequestBody } from '../support/quote-dfsp.js';

const media = (resource, version) => `application/vnd.interoperability.${resource}+json;version=${version}`;
const PARTY = ['MSISDN', `2779${Date.now() % 1_000_000_00}`];

let sw;
let payer;
let payee;
let stop;
let urls;

before(async () => {
  // The scheme's default is 2.0 here, so a hub call in 1.1 shows the hub knew its receiver.
  sw = await startSwitch({ env: { ORACLE_REGISTRY_TTL_MS: '0', PARTICIPANT_CACHE_TTL_MS: '0', FSPIOP_VERSION_DEFAULT: '2.0' } });
  urls = { parties: sw.urlOf('account-lookup'), participants: sw.urlOf('account-lookup'), quotes: sw.urlOf('quoting'), transfers: sw.apiUrl };
  ({ dfsps: [payer, payee], stop } = await withDfsps(sw, async (started) => {
    await setUpHub(sw.admin.request);
    for (const [name, version] of [['payerfsp', '1.1'], ['payeefsp', '2.0']]) {
      const dfsp = Object.assign(await startRecordingServer({ name }), { name, version });
      started.push(dfsp);
      await onboardDfsp(sw.admin.request, { name, endpointBase: dfsp.url, netDebitCap: '10000', fundsIn: '50000' });
    }
  }));
});

after(() => stop?.());

/**
 * Sends as `dfsp`, signed, in `version` (its own unless given): a request (POST, GET, DELETE)
 * names in Accept the major versions the DFSP takes; a callback carries none.
 */
async function send(dfsp, method, path, { body, raw, destination, version = dfsp.version, accept } = {}) {
  const resource = path.split('/')[1];
  const headers = {
    'content-type': media(resource, version), date: new Date().toUTCString(), 'fspiop-source': dfsp.name,
    ...(destination ? { 'fspiop-destination': destination } : {}),
  };
  if (method !== 'PUT') headers.accept = accept ?? (dfsp.version === '2.0' ? `${media(resource, '2')}, ${media(resource, '1')}` : media(resource, '1'));
  const text = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  const response = await signedFetch(`${urls[resource]}${path}`, { method, headers, body: text });
  const answer = await response.text();
  return { status: response.status, body: answer ? JSON.parse(answer) : undefined, text };
}

const callTo = (dfsp, method, path) => dfsp.waitFor((call) => call.method === method && call.path === path);

/** A forward as its sender sent it: the same bytes, content type and signature, and a signature that verifies. */
function assertForwarded(call, sent, senderVersion) {
  assert.equal(call.rawBody, sent.text ?? '', `${call.method} ${call.path}: the bytes as sent`);
  assert.equal(call.headers['content-type'], media(call.path.split('/')[1], senderVersion), `${call.method} ${call.path}: the sender's content type`);
  assert.equal(call.signatureProblem, null, `${call.method} ${call.path}: the sender's signature`);
}

/** A call from the hub, in `version`, signed by the hub. */
function assertFromHub(call, version) {
  assert.equal(call.headers['fspiop-source'], 'Hub');
  assert.equal(call.headers['content-type'], media(call.path.split('/')[1], version), `${call.method} ${call.path} from the hub`);
  assert.equal(call.signatureProblem, null);
}

test('a v1.1 payer and a v2.0 payee complete discovery, quote and transfer, each getting messages in a version it takes', async () => {
  const partyPath = `/${PARTY.join('/')}`;
  // The payee registers its customer in 2.0; the hub confirms in 2.0.
  assert.equal((await send(payee, 'POST', `/participants${partyPath}`, { body: { fspId: 'payeefsp', currency: 'USD' } })).status, 202);
  const registered = await callTo(payee, 'PUT', `/participants${partyPath}`);
  assertFromHub(registered, '2.0');
  assert.deepEqual(registered.body, { fspId: 'payeefsp' });

  // Discovery: the payer's 1.1 GET reaches the payee as sent; the payee answers in 1.1, the
  // version the payer's Accept takes, and the payer gets those bytes.
  const lookup = await send(payer, 'GET', `/parties${partyPath}`);
  assert.equal(lookup.status, 202);
  assertForwarded(await callTo(payee, 'GET', `/parties${partyPath}`), lookup, '1.1');
  const party = await send(payee, 'PUT', `/parties${partyPath}`, {
    destination: 'payerfsp', version: '1.1',
    raw: JSON.stringify({ party: { partyIdInfo: { partyIdType: PARTY[0], partyIdentifier: PARTY[1], fspId: 'payeefsp' }, name: 'Ada' } }, null, 1),
  });
  assert.equal(party.status, 200, party.text);
  assertForwarded(await callTo(payer, 'PUT', `/parties${partyPath}`), party, '1.1');

  // The quote, the same way.
  const quoteRequest = quoteRequestBody({ amount: '25' });
  const quote = await send(payer, 'POST', '/quotes', { body: quoteRequest, destination: 'payeefsp' });
  assert.equal(quote.status, 202, quote.text);
  assertForwarded(await callTo(payee, 'POST', '/quotes'), quote, '1.1');
  const expiration = new Date(Date.now() + 60_000).toISOString();
  const transferId = randomUUID();
  const ilp = quoteIlp({ secret: 'payee-secret', transferId, amount: '25', currency: 'USD', payeeAddress: 'g.payeefsp', expiration });
  const quoted = await send(payee, 'PUT', `/quotes/${quoteRequest.quoteId}`, {
    destination: 'payerfsp', version: '1.1',
    body: { transferAmount: { amount: '25', currency: 'USD' }, expiration, ilpPacket: ilp.ilpPacket, condition: ilp.condition },
  });
  assert.equal(quoted.status, 200, quoted.text);
  assertForwarded(await callTo(payer, 'PUT', `/quotes/${quoteRequest.quoteId}`), quoted, '1.1');

  // The transfer: the payee reserves, and the hub tells the payer the commit in the 1.1 the
  // notification handler saw the payer send its prepare in, and the payee in the version of its
  // fulfil; the payee's own 2.0 GET is answered in 2.0.
  const prepareBody = {
    transferId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '25', currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration,
  };
  const prepare = await send(payer, 'POST', '/transfers', { body: prepareBody, destination: 'payeefsp' });
  assert.equal(prepare.status, 202, prepare.text);
  assertForwarded(await callTo(payee, 'POST', '/transfers'), prepare, '1.1');
  const completion = { transferState: 'RESERVED', completedTimestamp: new Date().toISOString(), fulfilment: fulfilmentFor('payee-secret', ilp.ilpPacket) };
  const fulfil = await send(payee, 'PUT', `/transfers/${transferId}`, { body: completion, destination: 'payerfsp', version: '1.1' });
  assert.equal(fulfil.status, 200, fulfil.text);
  const committed = await callTo(payer, 'PUT', `/transfers/${transferId}`);
  assertFromHub(committed, '1.1');
  assert.equal(committed.body.transferState, 'COMMITTED');
  const patch = await callTo(payee, 'PATCH', `/transfers/${transferId}`);
  assertFromHub(patch, '1.1');
  assert.equal(patch.body.transferState, 'COMMITTED');
  assert.equal((await send(payee, 'GET', `/transfers/${transferId}`, { destination: 'payerfsp' })).status, 202);
  const state = await payee.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${transferId}` && call.headers['fspiop-source'] === 'Hub');
  assertFromHub(state, '2.0');
  assert.equal(state.body.transferState, 'COMMITTED');

  // An error the hub finds goes out in the version of the message it answers.
  assert.equal((await send(payee, 'PUT', `/transfers/${randomUUID()}`, { body: completion, destination: 'payerfsp' })).status, 200);
  const unknown = await payee.waitFor((call) => call.method === 'PUT' && call.path.endsWith('/error') && call.headers['fspiop-source'] === 'Hub');
  assertFromHub(unknown, '2.0');
  assert.deepEqual([...payer.signatureFailures, ...payee.signatureFailures], []);
});

test('a property 2.0 forbids is refused in 2.0 and accepted in 1.1; a 2.0 id may be a ULID', async () => {
  const extra = { ...quoteRequestBody(), unexpected: 'a property v2.0 does not allow' };
  const strict = await send(payee, 'POST', '/quotes', { body: extra, destination: 'payerfsp' });
  assert.equal(strict.status, 400, strict.text);
  assert.equal(strict.body.errorInformation.errorCode, '3103');
  assert.match(strict.body.errorInformation.errorDescription, /\/requestBody must NOT have additional properties/);
  const lenient = await send(payer, 'POST', '/quotes', { body: extra, destination: 'payeefsp' });
  assert.equal(lenient.status, 202, lenient.text);
  assertForwarded(await payee.waitFor((call) => call.method === 'POST' && call.body?.quoteId === extra.quoteId), lenient, '1.1');

  const ulid = '01JDZ3W4B6Q8R9S0T1V2W3X4Y5';
  assert.equal((await send(payee, 'GET', `/transfers/${ulid}`, { destination: 'payerfsp' })).status, 202);
  const notFound = await callTo(payee, 'PUT', `/transfers/${ulid}/error`);
  assertFromHub(notFound, '2.0');
  assert.equal(notFound.body.errorInformation.errorCode, '3208');
  const refused = await send(payer, 'GET', `/transfers/${ulid}`, { destination: 'payeefsp' });
  assert.equal(refused.status, 400, 'not a transfer id in 1.1');
});

test('an Accept naming only version 3 is 406 with 3001 and the supported versions, at every edge', async () => {
  const partyPath = `/${PARTY.join('/')}`;
  for (const path of [`/parties${partyPath}`, `/participants${partyPath}`, `/quotes/${randomUUID()}`, `/transfers/${randomUUID()}`]) {
    const answer = await send(payer, 'GET', path, { accept: media(path.split('/')[1], '3') });
    assert.equal(answer.status, 406, `${path}: ${answer.text}`);
    assert.equal(answer.body.errorInformation.errorCode, '3001');
    assert.deepEqual(answer.body.errorInformation.extensionList.extension, [{ key: '1', value: '0' }, { key: '1', value: '1' }, { key: '2', value: '0' }]);
  }
  const content = await send(payer, 'POST', '/transfers', { body: {}, version: '3.0', destination: 'payeefsp' });
  assert.deepEqual([content.status, content.body.errorInformation.errorCode], [406, '3001']);
});
