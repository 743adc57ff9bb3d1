// No request in another DFSP's name changes anything (issue 27), without mutual TLS: the
// switch as in the other discovery tests (account-lookup, its admin process with the built-in
// oracle, the notification handler as child processes; real Kafka and MariaDB), three test DFSPs
// over real HTTP, and mallory trying what a review found possible, each try failing and
// changing nothing while the rightful DFSP is still served.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDiscoverySwitch } from '../support/discovery-switch.js';
import { answerAfter, fspiopHeaders, ownerOf, partyAnswer, } from '../support/party-dfsp.js';

let scene;
let alsUrl;
let victim;
let mallory;
let payer;

before(async () => {
  scene = await startDiscoverySwitch({ clientIdentity: 'off' });
  ({ alsUrl, victim, mallory, payer } = scene);
});

after(async () => {
  await scene?.stop();
});

/** A request as anyone can send it: FSPIOP headers naming `source`, no signature. */
async function unsigned(method, path, source, { destination, body } = {}) {
  const response = await fetch(`${alsUrl}${path}`, {
    method, headers: fspiopHeaders(path.split('/')[1], source, destination, { accept: method !== 'PUT' }), body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const putTo = (dfsp, path) => dfsp.waitFor((call) => call.method === 'PUT' && call.path === path);

test('the takeover in four steps: an unsigned DELETE in the owner\'s name is refused, and the owner keeps its customer', async () => {
  const party = '/participants/MSISDN/27710000002';
  assert.equal((await victim.send('POST', party, { body: { fspId: 'payeefsp' } })).status, 202);
  await putTo(victim, party);

  const deleted = await unsigned('DELETE', party, 'payeefsp');
  assert.deepEqual([deleted.status, deleted.body.errorInformation.errorCode], [400, '3105'], JSON.stringify(deleted.body));
  assert.match(deleted.body.errorInformation.errorDescription, /needs proof of FSPIOP-Source/);
  const claimed = await answerAfter(mallory, party, () => mallory.send('POST', party, { body: { fspId: 'mallory' } }));
  assert.equal(claimed.sent.status, 202, 'a signed registration is heard');
  assert.equal(claimed.answer.path, `${party}/error`, `mallory is told no: ${claimed.answer.rawBody}`);
  assert.equal(await ownerOf(payer, party), 'payeefsp', 'every payment to the party still goes to its own DFSP');

  // A DELETE signed with mallory's key in the owner's name is no better; the owner's own, signed over no body, is heard.
  const forged = await fetch(`${alsUrl}${party}`, { method: 'DELETE', headers: await mallorySigned('DELETE', party, 'payeefsp') });
  assert.equal(forged.status, 400);
  assert.equal((await forged.json()).errorInformation.errorCode, '3105');
  const removed = await answerAfter(victim, party, () => victim.send('DELETE', party));
  assert.equal(removed.sent.status, 202, 'the owner\'s signed DELETE');
  assert.deepEqual(removed.answer.body, {});
  assert.equal(await ownerOf(payer, party), undefined, 'gone at its owner\'s word');
});

test('an unsigned batch registration in another DFSP\'s name changes nothing', async () => {
  const refused = await unsigned('POST', '/participants', 'payeefsp', {
    body: { requestId: '0195b3c2-aaaa-7bbb-8ccc-000000000001', partyList: [{ partyIdType: 'MSISDN', partyIdentifier: '27710000009', fspId: 'payeefsp' }] },
  });
  // The body makes the signature required: refused before the route, as every unsigned body is.
  assert.deepEqual([refused.status, refused.body.errorInformation.errorCode], [400, '3105']);
});

test('a forged GET /parties naming mallory as destination creates no relay right; the rightful lookups still work', async () => {
  const party = '/parties/MSISDN/27710000003';
  assert.equal((await victim.send('POST', '/participants/MSISDN/27710000003', { body: { fspId: 'payeefsp' } })).status, 202);
  await putTo(victim, '/participants/MSISDN/27710000003');
  victim.parties.add('MSISDN/27710000003');
  mallory.setBehaviour('MSISDN/27710000003', 'silent');

  const forged = await unsigned('GET', party, 'payerfsp', { destination: 'mallory' });
  assert.deepEqual([forged.status, forged.body.errorInformation.errorCode], [400, '3105'], JSON.stringify(forged.body));
  const relayed = await mallory.send('PUT', party, { destination: 'payerfsp', raw: partyAnswer('mallory', ['MSISDN', '27710000003']) });
  assert.equal(relayed.status, 200);
  await mallory.waitFor((call) => call.method === 'PUT' && call.path === `${party}/error`);
  await sleep(300);
  assert.equal(payer.received.some((call) => call.path === party), false, 'mallory\'s answer never reached the payer');
  assert.equal(mallory.received.some((call) => call.method === 'GET' && call.path === party), false, 'nor did the forged GET reach mallory');

  // The rightful forms: an unsigned GET routed by the oracle (as Mojaloop's SDKs send it), and
  // a signed GET naming its destination.
  assert.equal((await unsigned('GET', party, 'payerfsp')).status, 202);
  assert.equal(JSON.parse((await putTo(payer, party)).rawBody).party.partyIdInfo.fspId, 'payeefsp');
  const named = await answerAfter(payer, party, () => payer.send('GET', party, { destination: 'payeefsp' }));
  assert.deepEqual([named.sent.status, named.answer.path], [202, party]);
});

test('the edges refuse FSPIOP-Source of the hub outright', async () => {
  const refused = await unsigned('GET', '/parties/MSISDN/27710000003', 'Hub');
  assert.deepEqual([refused.status, refused.body.errorInformation.errorCode], [400, '3100']);
  assert.match(refused.body.errorInformation.errorDescription, /is the hub/);
});

test('a forged GET /authorizations in the payer DFSP\'s name is refused at the quoting edge; the payer\'s own, signed over no body, is taken', async () => {
  await scene.sw.start('quoting', 0);
  const path = '/authorizations/0195b3c2-aaaa-4bbb-8ccc-000000000042?authenticationType=OTP&retriesLeft=2&amount=10&currency=USD';
  const url = `${scene.sw.urlOf('quoting')}${path}`;
  const forged = await fetch(url, { headers: fspiopHeaders('authorizations', 'payerfsp', 'payeefsp') });
  const refusal = await forged.json();
  assert.deepEqual([forged.status, refusal.errorInformation.errorCode], [400, '3105'], JSON.stringify(refusal));
  assert.match(refusal.errorInformation.errorDescription, /needs proof of FSPIOP-Source/);
  const { signedHeaders } = await import('../../scripts/lib/fspiop-headers.js');
  const { jwsKeyPair } = await import('../support/jws-keys.js');
  const headers = await signedHeaders(fspiopHeaders('authorizations', 'payerfsp', 'payeefsp'), { privateKey: jwsKeyPair('payerfsp').privateKey, method: 'GET', uri: path });
  const own = await fetch(url, { headers });
  assert.equal(own.status, 202, await own.text());
});

/** Headers in `source`'s name signed with mallory's key. */
async function mallorySigned(method, path, source) {
  const { signedHeaders } = await import('../../scripts/lib/fspiop-headers.js');
  const { jwsKeyPair } = await import('../support/jws-keys.js');
  return signedHeaders(fspiopHeaders('participants', source), { privateKey: jwsKeyPair('mallory').privateKey, method, uri: path });
}
