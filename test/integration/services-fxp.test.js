// FXP discovery end to end (FSPIOP v2.0 /services/FXP): account lookup and the notification
// handler as child processes, real Kafka and MariaDB, FXPs onboarded through the admin API in
// two currencies with their pairs, and a payer DFSP over real HTTP (mutual TLS, signed) that
// asks and hears the hub's signed PUT /services/FXP… on its FSPIOP_CALLBACK_URL_SERVICES.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startSwitch, withDfsps } from '../support/switch.js';
import { startPartyDfsp } from '../support/party-dfsp.js';
import { unsignedFetch } from '../support/jws-keys.js';

let sw;
let scene;
let payer;
let former;

const v2Headers = (source, { version = '2.0', accept = version.split('.')[0] } = {}) => ({
  accept: `application/vnd.interoperability.services+json;version=${accept}`,
  'content-type': `application/vnd.interoperability.services+json;version=${version}`,
  date: new Date().toUTCString(),
  'fspiop-source': source,
});

/** An FXP onboarded in USD and EUR (an account set per currency), with the pairs it converts. */
async function onboardFxp(name, pairs, { eurPosition = true } = {}) {
  const { request } = sw.admin;
  await onboardDfsp(request, { name, currency: 'USD', fundsIn: '1000' });
  const created = await request('POST', '/participants', { name, currency: 'EUR' });
  assert.equal(created.status, 201, created.text);
  const limits = await request('POST', `/participants/${name}/initialPositionAndLimits`, { currency: 'EUR', limit: { type: 'NET_DEBIT_CAP', value: 1000 } });
  assert.equal(limits.status, 201, limits.text);
  for (const [sourceCurrency, targetCurrency] of pairs) {
    const registered = await request('POST', `/participants/${name}/currencyPairs`, { sourceCurrency, targetCurrency });
    assert.equal(registered.status, 201, registered.text);
  }
  if (!eurPosition) {
    const accounts = (await request('GET', `/participants/${name}/accounts?currency=EUR`)).body;
    const position = accounts.find((account) => account.ledgerAccountType === 'POSITION');
    assert.equal((await request('PUT', `/participants/${name}/accounts/${position.id}`, { isActive: false })).status, 200);
  }
}

before(async () => {
  sw = await startSwitch({ components: ['account-lookup', 'notification'], env: { PARTICIPANT_CACHE_TTL_MS: '0' } });
  scene = await withDfsps(sw, async (dfsps) => {
    const { request } = sw.admin;
    await setUpHub(request, 'USD');
    await setUpHub(request, 'EUR');
    dfsps.push(await startPartyDfsp({ name: 'payerfsp', switchUrl: sw.urlOf('account-lookup') }));
    [payer] = dfsps;
    await onboardDfsp(request, { name: 'payerfsp', endpointBase: payer.url });
    await onboardFxp('fxpbeta', [['USD', 'EUR']]);
    await onboardFxp('fxpalpha', [['USD', 'EUR'], ['EUR', 'USD']]);
    await onboardFxp('fxpinactive', [['USD', 'EUR']]);
    assert.equal((await request('PUT', '/participants/fxpinactive', { isActive: false })).status, 200);
    await onboardFxp('fxpnoeur', [['USD', 'EUR']], { eurPosition: false });
    await onboardFxp('fxpreverse', [['EUR', 'USD']]);
    // A DFSP in both currencies that registered no pair is no FXP.
    await onboardFxp('dfspboth', []);
    // A DFSP that was onboarded and then deactivated may no longer ask.
    dfsps.push(await startPartyDfsp({ name: 'formerfsp', switchUrl: sw.urlOf('account-lookup') }));
    former = dfsps[1];
    await onboardDfsp(request, { name: 'formerfsp', endpointBase: former.url });
    assert.equal((await request('PUT', '/participants/formerfsp', { isActive: false })).status, 200);
  });
});

after(async () => { await scene?.stop(); });

/** Asks GET `path` as the payer and resolves to the hub's PUT on that path. */
async function ask(path, headers = v2Headers('payerfsp')) {
  const seen = payer.received.length;
  const sent = await payer.send('GET', path, { headers });
  assert.equal(sent.status, 202, JSON.stringify(sent.body));
  return payer.waitFor((call) => payer.received.indexOf(call) >= seen && call.method === 'PUT' && call.path === path);
}

test('GET /services/FXP/USD/EUR is answered with exactly the active FXPs that convert USD to EUR with positions in both, signed by the hub as v2.0', async () => {
  const answer = await ask('/services/FXP/USD/EUR');
  assert.deepEqual(answer.body, { providers: ['fxpalpha', 'fxpbeta'] });
  assert.equal(answer.headers['fspiop-source'], 'Hub');
  assert.equal(answer.headers['fspiop-destination'], 'payerfsp');
  assert.equal(answer.headers['content-type'], 'application/vnd.interoperability.services+json;version=2.0');
  assert.equal(answer.headers['fspiop-uri'], '/services/FXP/USD/EUR');
  assert.ok(answer.headers['fspiop-signature'], 'signed as the hub');
  assert.deepEqual(payer.signatureFailures, [], 'the hub\'s signature verifies');
});

test('a pair is directional, and GET /services/FXP names every FXP that can convert some pair now', async () => {
  assert.deepEqual((await ask('/services/FXP/EUR/USD')).body, { providers: ['fxpalpha', 'fxpreverse'] });
  assert.deepEqual((await ask('/services/FXP')).body, { providers: ['fxpalpha', 'fxpbeta', 'fxpreverse'] });
});

test('a change through the admin API shows in the next answer: a pair removed, an FXP deactivated', async () => {
  const { request } = sw.admin;
  assert.equal((await request('DELETE', '/participants/fxpalpha/currencyPairs/EUR/USD')).status, 204);
  assert.equal((await request('PUT', '/participants/fxpreverse', { isActive: false })).status, 200);
  assert.equal((await request('PUT', '/participants/fxpinactive', { isActive: true })).status, 200);
  assert.deepEqual((await ask('/services/FXP/EUR/USD')).body, { providers: [] });
  assert.deepEqual((await ask('/services/FXP/USD/EUR')).body, { providers: ['fxpalpha', 'fxpbeta', 'fxpinactive'] });
});

test('no FXP for the pair is the specification\'s empty answer', async () => {
  assert.deepEqual((await ask('/services/FXP/USD/KES')).body, { providers: [] });
});

test('refused at once: an unknown requester, v1 media types, an unknown currency, a currency into itself; DFSPs do not PUT answers here', async () => {
  // A GET needs no signature (Mojaloop's SDKs sign none), so a name the switch does not know
  // reaches the directory, which refuses it as Mojaloop's ALS does.
  const unknown = await unsignedFetch(`${sw.urlOf('account-lookup')}/services/FXP/USD/EUR`, { headers: v2Headers('strangerfsp') });
  assert.deepEqual([unknown.status, (await unknown.json()).errorInformation.errorCode], [400, '3101']);
  const inactive = await former.send('GET', '/services/FXP/USD/EUR', { headers: v2Headers('formerfsp') });
  assert.deepEqual([inactive.status, inactive.body.errorInformation.errorCode], [400, '3101']);
  const v1 = await payer.send('GET', '/services/FXP/USD/EUR', { headers: v2Headers('payerfsp', { version: '1.1', accept: '1' }) });
  assert.equal(v1.status, 406);
  assert.equal(v1.body.errorInformation.errorCode, '3001');
  assert.deepEqual(v1.body.errorInformation.extensionList.extension, [{ key: '2', value: '0' }]);
  const badCurrency = await payer.send('GET', '/services/FXP/USD/XYZ', { headers: v2Headers('payerfsp') });
  assert.deepEqual([badCurrency.status, badCurrency.body.errorInformation.errorCode], [400, '3100']);
  const same = await payer.send('GET', '/services/FXP/USD/USD', { headers: v2Headers('payerfsp') });
  assert.deepEqual([same.status, same.body.errorInformation.errorCode], [400, '3100']);
  const put = await payer.send('PUT', '/services/FXP/USD/EUR', { headers: v2Headers('payerfsp'), body: { providers: [] } });
  assert.equal(put.status, 501);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(former.received.length, 0, 'the deactivated requester was told nothing else');
});
