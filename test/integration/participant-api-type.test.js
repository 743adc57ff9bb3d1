// A participant's API type (FSPIOP or ISO20022, issue 34) through the real admin API over a
// real MariaDB: registered on POST /participants, changed by PUT /participants/{name} alone or
// beside isActive, shown by GET, recorded in the audit trail, refused when it is not one of
// the two; and read by the endpoint cache the notification handler and account lookup use,
// with the DFSP directory token they hold.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { adminHeaders, onboardDfsp, setUpHub, startAdminApi } from '../support/admin-api.js';
import { operatorTokens } from '../support/environment.js';
import { createEndpointCache } from '../../platform/delivery/endpoints.js';

let api;
before(async () => {
  api = await startAdminApi();
  await setUpHub(api.request);
  await setUpHub(api.request, 'EUR');
});
after(async () => { await api?.stop(); });

async function expectRefused(method, path, body, code) {
  const result = await api.request(method, path, body);
  assert.equal(result.status, 400, `${method} ${path} ${JSON.stringify(body)} → ${result.text}`);
  assert.equal(result.body.errorInformation.errorCode, code, result.text);
  return result.body.errorInformation.errorDescription;
}

const apiTypeOf = async (name) => (await api.request('GET', `/participants/${name}`)).body.apiType;

test('a participant is created FSPIOP unless ISO20022 is asked for, and GET shows the type', async () => {
  const plain = await api.request('POST', '/participants', { name: 'plainfsp', currency: 'USD' });
  assert.deepEqual([plain.status, plain.body.apiType], [201, 'FSPIOP']);
  const iso = await api.request('POST', '/participants', { name: 'isofsp', currency: 'USD', apiType: 'ISO20022' });
  assert.deepEqual([iso.status, iso.body.apiType], [201, 'ISO20022']);
  const explicit = await api.request('POST', '/participants', { name: 'explicitfsp', currency: 'USD', apiType: 'FSPIOP' });
  assert.deepEqual([explicit.status, explicit.body.apiType], [201, 'FSPIOP']);

  assert.equal(await apiTypeOf('isofsp'), 'ISO20022');
  const all = (await api.request('GET', '/participants')).body;
  assert.deepEqual(all.map((participant) => [participant.name, participant.apiType]),
    [['Hub', 'FSPIOP'], ['plainfsp', 'FSPIOP'], ['isofsp', 'ISO20022'], ['explicitfsp', 'FSPIOP']]);
});

test('an API type that is not FSPIOP or ISO20022 is refused like any other bad field, and nothing is created', async () => {
  for (const apiType of ['iso20022', 'ISO', '', 1, null, ['ISO20022']]) {
    const words = await expectRefused('POST', '/participants', { name: 'oddfsp', currency: 'USD', apiType }, '3100');
    assert.match(words, /apiType/, `the refusal of ${JSON.stringify(apiType)} names the field`);
  }
  await expectRefused('GET', '/participants/oddfsp', undefined, '3200');
  await expectRefused('PUT', '/participants/plainfsp', { apiType: 'SOAP' }, '3100');
  await expectRefused('PUT', '/participants/plainfsp', { isActive: false, apiType: 'ISO 20022' }, '3100');
  const body = (await api.request('GET', '/participants/plainfsp')).body;
  assert.deepEqual([body.apiType, body.isActive], ['FSPIOP', 1], 'a refused change changes neither field');
  const missing = await expectRefused('PUT', '/participants/plainfsp', {}, '3102');
  assert.match(missing, /isActive/, 'central-ledger\'s isActive is what an empty body lacks');
  await expectRefused('PUT', '/participants/plainfsp', { apiType: 'ISO20022', colour: 'red' }, '3100');
});

test('PUT changes the API type alone or beside isActive; isActive alone leaves it as it is', async () => {
  const changed = await api.request('PUT', '/participants/plainfsp', { apiType: 'ISO20022' });
  assert.deepEqual([changed.status, changed.body.apiType, changed.body.isActive], [200, 'ISO20022', 1]);
  assert.equal(await apiTypeOf('plainfsp'), 'ISO20022');

  const deactivated = await api.request('PUT', '/participants/plainfsp', { isActive: false });
  assert.deepEqual([deactivated.status, deactivated.body.apiType, deactivated.body.isActive], [200, 'ISO20022', 0]);

  const both = await api.request('PUT', '/participants/plainfsp', { isActive: true, apiType: 'FSPIOP' });
  assert.deepEqual([both.status, both.body.apiType, both.body.isActive], [200, 'FSPIOP', 1]);
  const stored = (await api.request('GET', '/participants/plainfsp')).body;
  assert.deepEqual([stored.apiType, stored.isActive], ['FSPIOP', 1]);
});

test('each change of the API type is in the audit trail with the type before and after', async () => {
  await api.request('PUT', '/participants/explicitfsp', { apiType: 'ISO20022' });
  const [entry] = (await api.request('GET', '/audit?method=PUT&target=/participants/explicitfsp&limit=1')).body;
  assert.deepEqual([entry.route, entry.status, entry.before.participant.apiType, entry.after.participant.apiType],
    ['/participants/{name}', 200, 'FSPIOP', 'ISO20022']);
  assert.deepEqual([entry.before.participant.isActive, entry.after.participant.isActive], [true, true], 'isActive untouched');

  const created = (await api.request('GET', '/audit?method=POST&route=/participants&target=/participants&limit=10')).body
    .find((item) => item.after?.participant?.name === 'isofsp');
  assert.deepEqual([created.before.participant, created.after.participant.apiType], [null, 'ISO20022'], 'the creation records the type too');
});

test('a currency added to an existing participant keeps its API type; another type there is refused, not ignored', async () => {
  const refused = await expectRefused('POST', '/participants', { name: 'isofsp', currency: 'EUR', apiType: 'FSPIOP' }, '3100');
  assert.match(refused, /ISO20022.*PUT \/participants\/isofsp/);
  assert.equal((await api.request('GET', '/participants/isofsp/accounts?currency=EUR')).body.length, 0, 'no EUR accounts were made');
  const same = await api.request('POST', '/participants', { name: 'isofsp', currency: 'EUR', apiType: 'ISO20022' });
  assert.deepEqual([same.status, same.body.apiType], [201, 'ISO20022']);
  const unsaid = await api.request('POST', '/participants', { name: 'plainfsp', currency: 'EUR' });
  assert.deepEqual([unsaid.status, unsaid.body.apiType], [201, 'FSPIOP']);
});

test('the hub stays FSPIOP: everything it originates is FSPIOP', async () => {
  const words = await expectRefused('PUT', '/participants/Hub', { apiType: 'ISO20022' }, '3100');
  assert.match(words, /hub/i);
  assert.equal(await apiTypeOf('Hub'), 'FSPIOP');
  assert.equal((await api.request('PUT', '/participants/Hub', { apiType: 'FSPIOP' })).status, 200);
});

test('the DFSP directory token reads a participant\'s name, state and API type, not its accounts; the read-only token all of it', async () => {
  const asDirectory = await fetch(`${api.baseUrl}/participants/isofsp`, { headers: adminHeaders('dfspDirectoryRead') });
  assert.equal(asDirectory.status, 200);
  assert.deepEqual(await asDirectory.json(), { name: 'isofsp', isActive: 1, apiType: 'ISO20022' });
  const asOperator = await (await fetch(`${api.baseUrl}/participants/isofsp`, { headers: adminHeaders('readOnly') })).json();
  assert.equal(asOperator.apiType, 'ISO20022');
  assert.equal(asOperator.accounts.length, 4, 'its USD and EUR accounts');
  for (const path of ['/participants', '/participants/isofsp/accounts']) {
    assert.equal((await fetch(`${api.baseUrl}${path}`, { headers: adminHeaders('dfspDirectoryRead') })).status, 403, path);
  }
  const change = await fetch(`${api.baseUrl}/participants/isofsp`, {
    method: 'PUT', headers: { ...adminHeaders('dfspDirectoryRead'), 'content-type': 'application/json' }, body: '{"apiType":"FSPIOP"}',
  });
  assert.equal(change.status, 403, 'changing the type needs the write scope');
  assert.equal(await apiTypeOf('isofsp'), 'ISO20022');
});

test('the endpoint cache reads the API type beside the endpoints from the admin API, with the directory token', async () => {
  await onboardDfsp(api.request, { name: 'cachedfsp', endpointBase: 'http://127.0.0.1:9', fundsIn: '', apiType: 'ISO20022' });
  const cache = createEndpointCache({ adminApiUrl: api.baseUrl, adminApiToken: operatorTokens().dfspDirectoryRead, ttlMs: 60_000, failureTtlMs: 0 });
  const found = await cache.lookup('cachedfsp');
  assert.deepEqual([found.known, found.apiType, found.endpoints.get('FSPIOP_CALLBACK_URL_TRANSFER_PUT')],
    [true, 'ISO20022', 'http://127.0.0.1:9/transfers/{{transferId}}']);
  assert.deepEqual(await cache.lookup('nobodyfsp'), { known: false, endpoints: new Map(), apiType: 'FSPIOP' });
  const plain = await cache.lookup('plainfsp');
  assert.deepEqual([plain.known, plain.apiType, plain.endpoints.size], [true, 'FSPIOP', 0]);

  await api.request('PUT', '/participants/cachedfsp', { apiType: 'FSPIOP' });
  assert.equal((await cache.lookup('cachedfsp')).apiType, 'ISO20022', 'cached until the TTL or an invalidation');
  cache.invalidate('cachedfsp');
  assert.equal((await cache.lookup('cachedfsp')).apiType, 'FSPIOP');
});

test('onboarding passes the API type through, and a re-run with another type changes it', async () => {
  await onboardDfsp(api.request, { name: 'onboardfsp', fundsIn: '', apiType: 'ISO20022' });
  assert.equal(await apiTypeOf('onboardfsp'), 'ISO20022');
  await onboardDfsp(api.request, { name: 'onboardfsp', fundsIn: '', apiType: 'FSPIOP' });
  assert.equal(await apiTypeOf('onboardfsp'), 'FSPIOP');
  await onboardDfsp(api.request, { name: 'onboardfsp', fundsIn: '' });
  assert.equal(await apiTypeOf('onboardfsp'), 'FSPIOP', 'a re-run that says nothing leaves it');
});
