// Found by the fuzzer (test/fuzz/): a POST /participants batch within the API's limits (10,000
// parties, under the batch route's 5 MiB) whose answer event is larger than the largest
// message Kafka takes was answered 503/2003 "retry later", so a DFSP following the API would
// resend it forever. Kafka refuses such a record at once and always will: the answer must say
// the request is too large (413/3104), not that it may be retried.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { startTestDfsp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

let sw;
let dfsp;
let accountLookupUrl;

before(async () => {
  sw = await startSwitch({ components: ['account-lookup', 'account-lookup-admin', 'notification'] });
  await setUpHub(sw.admin.request);
  dfsp = await startTestDfsp({ name: 'payerfsp', switchUrl: sw.apiUrl });
  await onboardDfsp(sw.admin.request, { name: 'payerfsp', endpointBase: dfsp.url });
  accountLookupUrl = `http://127.0.0.1:${sw.ports.get('account-lookup-0')}`;
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
