// The takeover of identity-without-gaps.test.js in four steps, with mutual TLS on: the
// discovery switch (account-lookup, its admin process with the built-in oracle, the
// notification handler as child processes; real Kafka and MariaDB) serves HTTPS and asks every
// DFSP for a client certificate from the scheme's CA. mallory holds a valid certificate of its
// own; in the owner's name it is refused whatever it signs, and the owner keeps its party. The
// owner's certificate proves its own requests, a DELETE without a body or a signature too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startDiscoverySwitch } from '../support/discovery-switch.js';
import { answerAfter, fspiopHeaders, ownerOf } from '../support/party-dfsp.js';
import { jwsKeyPair, unsignedFetch } from '../support/jws-keys.js';
import { probeFetch, testClientTls, testClientTlsFor } from '../support/scheme-tls.js';
import { fetchSigned } from '../../scripts/lib/fspiop-headers.js';

let scene;
let alsUrl;
let victim;
let mallory;
let payer;

before(async () => {
  scene = await startDiscoverySwitch({ clientIdentity: 'certificate' });
  ({ alsUrl, victim, mallory, payer } = scene);
  assert.match(alsUrl, /^https:/, 'the edge serves HTTPS');
});

after(async () => {
  await scene?.stop();
});

/** mallory's request in `source`'s name over its own client certificate, signed with its own key or not at all. */
async function asMallory(method, path, source, { signed }) {
  const response = await fetchSigned(`${alsUrl}${path}`, {
    method, headers: fspiopHeaders('participants', source), privateKey: signed ? jwsKeyPair('mallory').privateKey : undefined, tls: testClientTls('mallory'),
  });
  return { status: response.status, body: await response.json() };
}

test('the takeover in four steps with mutual TLS: mallory\'s own valid certificate does not let it DELETE in the owner\'s name, and the owner keeps its party', async () => {
  const party = '/participants/MSISDN/27710000002';
  // 1. The owner registers its customer.
  const registered = await answerAfter(victim, party, () => victim.send('POST', party, { body: { fspId: 'payeefsp' } }));
  assert.equal(registered.sent.status, 202);
  assert.deepEqual(registered.answer.body, { fspId: 'payeefsp' });

  // 2. mallory, with its own certificate, deletes the party in the owner's name: refused before
  // any route runs, unsigned or signed with its own key.
  for (const signed of [false, true]) {
    const deleted = await asMallory('DELETE', party, 'payeefsp', { signed });
    assert.deepEqual([deleted.status, deleted.body.errorInformation.errorCode], [400, '3100'], JSON.stringify(deleted.body));
    assert.match(deleted.body.errorInformation.errorDescription, /FSPIOP-Source payeefsp is not mallory, the DFSP of the client certificate/);
  }

  // 3. mallory claims the party in its own name: heard, and told no.
  const claimed = await answerAfter(mallory, party, () => mallory.send('POST', party, { body: { fspId: 'mallory' } }));
  assert.equal(claimed.sent.status, 202, 'mallory\'s request in its own name is heard');
  assert.equal(claimed.answer.path, `${party}/error`, `mallory is told no: ${claimed.answer.rawBody}`);

  // 4. Every payment to the party still goes to its own DFSP.
  assert.equal(await ownerOf(payer, party), 'payeefsp');

  // The owner's DELETE, without a body or a signature, is proven by its certificate alone.
  const removed = await answerAfter(victim, party, () => unsignedFetch(`${alsUrl}${party}`, { method: 'DELETE', headers: fspiopHeaders('participants', 'payeefsp') }));
  assert.equal(removed.sent.status, 202, 'the owner\'s DELETE over its own certificate');
  assert.deepEqual(removed.answer.body, {});
  assert.equal(await ownerOf(payer, party), undefined, 'gone at its owner\'s word');
});

test('without a client certificate a signed FSPIOP request is refused; /health needs none', async () => {
  const response = await fetchSigned(`${alsUrl}/parties/MSISDN/27710000002`, {
    headers: fspiopHeaders('parties', 'payerfsp'), privateKey: jwsKeyPair('payerfsp').privateKey, tls: testClientTlsFor(alsUrl),
  });
  assert.equal(response.status, 400);
  assert.match((await response.json()).errorInformation.errorDescription, /no verified client certificate names the calling DFSP/);
  assert.equal((await probeFetch(`${alsUrl}/health`)).status, 200);
});
