// Two defects the fuzzer (test/fuzz/) found at the account-lookup edge, on one running switch.
//
// A POST /participants batch within the API's limits (10,000 parties, under the batch route's
// 5 MiB) whose answer event is larger than the largest message Kafka takes was answered
// 503/2003 "retry later", so a DFSP following the API would resend it forever. Kafka refuses
// such a record at once and always will: the answer must say the request is too large
// (413/3104), not that it may be retried.
//
// A DFSP signs FSPIOP-URI as the path it sends, percent-encoding and all (Mojaloop's SDKs and
// this repository's signedHeaders sign the request's own path), but the edges compared it with
// the path after decoding, so every signed message about a party whose identifier the DFSP
// encoded was refused 3105 however well it was signed (an EMAIL party a+b@example.com, say).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { startTestDfsp } from '../support/test-dfsp.js';
import { jwsKeyPair, signedFetch, unsignedFetch } from '../support/jws-keys.js';
import { dfspHeaders, signedHeaders } from '../../scripts/lib/fspiop-headers.js';

let sw;
let dfsp;
let accountLookupUrl;

before(async () => {
  sw = await startSwitch({ components: ['account-lookup', 'account-lookup-admin', 'notification'] });
  await setUpHub(sw.admin.request);
  dfsp = await startTestDfsp({ name: 'payerfsp', switchUrl: sw.apiUrl });
  await onboardDfsp(sw.admin.request, { name: 'payerfsp', endpointBase: dfsp.url });
  accountLookupUrl = sw.urlOf('account-lookup');
});

after(async () => {
  await dfsp?.close();
  await sw?.stop();
});

const batch = (parties) => JSON.stringify({
  requestId: randomUUID(),
  partyList: Array.from({ length: parties }, (_, index) => ({ partyIdType: 'IBAN', partyIdentifier: String(index), partySubIdOrType: 'abcdefghij' })),
});

const postBatch = (body) => signedFetch(`${accountLookupUrl}/participants`, { method: 'POST', headers: dfspHeaders('participants', 'payerfsp'), body });

test('a batch whose answer Kafka cannot carry is 413/3104, not 503 "retry later"; a small batch is still 202', async () => {
  const response = await postBatch(batch(10_000));
  const answer = await response.json();
  assert.equal(response.status, 413, JSON.stringify(answer));
  assert.equal(answer.errorInformation.errorCode, '3104');
  const small = await postBatch(batch(10));
  assert.equal(small.status, 202, await small.text());
});

test('a message signed over its percent-encoded path verifies; one signed over the decoded path does not', async () => {
  // encodeURIComponent, as a DFSP builds the path, escapes '+' and '@' that a path may hold as they are.
  const path = `/participants/EMAIL/${encodeURIComponent('a+b@example.com')}`;
  const body = JSON.stringify({ fspId: 'payerfsp', currency: 'USD' });
  const response = await signedFetch(`${accountLookupUrl}${path}`, { method: 'POST', headers: dfspHeaders('participants', 'payerfsp'), body });
  assert.equal(response.status, 202, await response.text());
  // The signature binds the bytes of the request target; a decoded copy is another URI.
  const headers = await signedHeaders(dfspHeaders('participants', 'payerfsp'), { privateKey: jwsKeyPair('payerfsp').privateKey, method: 'POST', uri: decodeURIComponent(path), body });
  const decoded = await unsignedFetch(`${accountLookupUrl}${path}`, { method: 'POST', headers, body });
  assert.equal(decoded.status, 400);
  assert.equal((await decoded.json()).errorInformation.errorCode, '3105');
});
