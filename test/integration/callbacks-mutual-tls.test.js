// The hub's own calls to DFSPs over mutual TLS: a payee serves its endpoints over HTTPS with a
// certificate from the scheme's CA and refuses every caller without a client certificate from
// it (requestCert, rejectUnauthorized), while the payer serves plain HTTP. Through a real
// discovery switch (account-lookup, its admin process with the built-in oracle, the
// notification handler as child processes; real Kafka and MariaDB), the notification handler's
// PUT /participants callback and account-lookup's GET /parties reach the payee with the hub's
// certificate, and the payer's answer still arrives over HTTP. A switch without the hub's
// certificate is refused at the handshake: nothing reaches the payee, and the payer hears 2003
// (the payee "got no answer").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startPartyScene } from '../support/discovery-switch.js';
import { answerAfter } from '../support/party-dfsp.js';
import { testServerTls } from '../support/scheme-tls.js';

const PARTY = 'MSISDN/27710000002';

/** A discovery switch with `env`, a payee over HTTPS that requires a client certificate, and a payer over HTTP. */
async function startScene(env) {
  const { dfsps: [payee, payer], stop } = await startPartyScene({ env, dfsps: [{ name: 'payeefsp', serverTls: testServerTls() }, { name: 'payerfsp' }] });
  assert.match(payee.url, /^https:/);
  assert.match(payer.url, /^http:/);
  return { payee, payer, stop };
}

test('the hub presents its client certificate to a DFSP that requires one: the notification handler\'s callback and account-lookup\'s GET /parties arrive over mutual TLS, an http: endpoint still gets its answer', async () => {
  const { payee, payer, stop } = await startScene({});
  payee.parties.add(PARTY);
  try {
    const registered = await answerAfter(payee, `/participants/${PARTY}`, () => payee.send('POST', `/participants/${PARTY}`, { body: { fspId: 'payeefsp' } }));
    assert.equal(registered.sent.status, 202);
    assert.deepEqual(registered.answer.body, { fspId: 'payeefsp' });
    assert.equal(registered.answer.clientCommonName, 'Hub', 'the notification handler\'s callback came over the hub\'s certificate');

    const found = await answerAfter(payer, `/parties/${PARTY}`, () => payer.send('GET', `/parties/${PARTY}`));
    assert.equal(found.sent.status, 202);
    const lookup = await payee.waitFor((call) => call.method === 'GET' && call.path === `/parties/${PARTY}`);
    assert.equal(lookup.clientCommonName, 'Hub', 'account-lookup\'s GET /parties came over the hub\'s certificate');
    assert.equal(found.answer.path, `/parties/${PARTY}`, `the payer is answered over HTTP: ${found.answer.rawBody}`);
    assert.equal(found.answer.body.party.partyIdInfo.fspId, 'payeefsp');
    assert.equal(found.answer.clientCommonName, undefined, 'plain HTTP carries no certificate');
    assert.deepEqual(payee.tlsClientErrors.map((error) => error.message), [], 'no handshake was refused');
  } finally {
    await stop();
  }
});

test('without the hub\'s client certificate the DFSP refuses the handshake: no callback reaches it, and the payer hears 2003', async () => {
  // The scheme's CA is still trusted, so the payee's server certificate is not what fails.
  const { payee, payer, stop } = await startScene({ CALLBACK_TLS_CERT_PATH: '', CALLBACK_TLS_KEY_PATH: '' });
  try {
    assert.equal((await payee.send('POST', `/participants/${PARTY}`, { body: { fspId: 'payeefsp' } })).status, 202);
    const found = await answerAfter(payer, `/parties/${PARTY}/error`, () => payer.send('GET', `/parties/${PARTY}`));
    assert.equal(found.sent.status, 202);
    assert.equal(found.answer.body.errorInformation.errorCode, '2003', found.answer.rawBody);
    assert.match(found.answer.body.errorInformation.errorDescription, /to payeefsp got no answer/);
    assert.deepEqual(payee.received.map((call) => `${call.method} ${call.path}`), [], 'nothing was delivered to the payee');
    assert.ok(payee.tlsClientErrors.length > 0, 'the payee refused the hub\'s handshakes');
    for (const error of payee.tlsClientErrors) assert.match(error.message, /peer did not return a certificate/);
  } finally {
    await stop();
  }
});
