// The hub signs the callbacks it makes in its own name over the exact bytes and path it
// sends; a forward keeps the DFSP's headers and signature untouched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { buildCallbackHeaders, callbackBody } from '../../platform/delivery/callback-request.js';
import { createHubSigner } from '../../platform/delivery/hub-signature.js';
import { privateKeyFromPem, verifyFspiopMessage } from '../../platform/fspiop/jws.js';
import { generateJwsKeyPair } from '../../tools/lib/jws-key-files.js';

const pair = generateJwsKeyPair('ec');
const sign = createHubSigner(privateKeyFromPem(pair.privateKey));
const url = new URL('http://payer.example/callbacks/transfers/t-1/error?x=1');
const callback = { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', method: 'PUT', resource: 'transfers', templateParams: { transferId: 't-1' } };

async function sent(event) {
  const headers = buildCallbackHeaders({ event, url, hubName: 'Hub', now: new Date('2026-11-22T10:00:00Z') });
  const body = callbackBody(event);
  return { headers: await sign({ event, method: 'PUT', url, headers, body }), body };
}

test('a hub callback is signed over its bytes, the path called, method, source, destination and date', async () => {
  const event = { id: 't-1', type: 'notification', from: 'Hub', to: 'payerfsp', headers: {}, body: { errorInformation: { errorCode: '3303', errorDescription: 'Transfer expired' } }, callback };
  const { headers, body } = await sent(event);
  const keys = [createPublicKey(pair.publicKey)];
  assert.equal(await verifyFspiopMessage({ method: 'PUT', uri: '/callbacks/transfers/t-1/error?x=1', headers, body, keys }), null);
  const signed = JSON.parse(Buffer.from(JSON.parse(headers['fspiop-signature']).protectedHeader, 'base64url'));
  assert.deepEqual(signed, {
    alg: 'ES256', 'FSPIOP-URI': '/callbacks/transfers/t-1/error?x=1', 'FSPIOP-HTTP-Method': 'PUT', 'FSPIOP-Source': 'Hub',
    'FSPIOP-Destination': 'payerfsp', Date: 'Sun, 22 Nov 2026 10:00:00 GMT',
  });
  assert.match(await verifyFspiopMessage({ method: 'PUT', uri: '/callbacks/transfers/t-1/error?x=1', headers, body: Buffer.concat([body, Buffer.from(' ')]), keys }), /does not verify/);
});

test('a forward keeps the DFSP\'s signature and headers; a hub without a key signs nothing', async () => {
  const dfspHeaders = { 'fspiop-source': 'payeefsp', 'fspiop-destination': 'payerfsp', date: 'Sun, 22 Nov 2026 09:59:59 GMT', 'fspiop-signature': '{"signature":"s","protectedHeader":"p"}', 'fspiop-uri': '/transfers/t-1/error', 'fspiop-http-method': 'PUT' };
  const forward = { id: 't-1', type: 'notification', from: 'payeefsp', to: 'payerfsp', headers: dfspHeaders, rawBody: '{"errorInformation":{}}', callback };
  const { headers } = await sent(forward);
  for (const [name, value] of Object.entries(dfspHeaders)) assert.equal(headers[name], value, name);
  const unsigned = createHubSigner(undefined);
  const hubHeaders = { 'fspiop-source': 'Hub' };
  assert.equal(await unsigned({ event: { headers: {} }, method: 'PUT', url, headers: hubHeaders, body: Buffer.from('{}') }), hubHeaders);
});
