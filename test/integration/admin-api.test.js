// The admin API against real MariaDB over real HTTP: central-ledger's onboarding sequence
// with its request bodies and response shapes, funds movements, and concurrency.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { onboardDfsp, setUpHub, startAdminApi } from '../support/admin-api.js';
import { ensureHub, standardEndpoints } from '../../scripts/lib/onboarding.js';

let api;
before(async () => { api = await startAdminApi(); });
after(async () => { await api?.stop(); });

const accountOf = async (name, type) =>
  (await api.request('GET', `/participants/${name}/accounts`)).body.find((account) => account.ledgerAccountType === type);

test('a DFSP cannot be created before the hub accounts and a settlement model exist', async () => {
  const early = await api.request('POST', '/participants', { name: 'tooearly', currency: 'EUR' });
  assert.equal(early.status, 400);
  assert.equal(early.body.errorInformation.errorCode, '3003');
  await api.request('POST', '/participants/Hub/accounts', { type: 'HUB_MULTILATERAL_SETTLEMENT', currency: 'EUR' });
  await api.request('POST', '/participants/Hub/accounts', { type: 'HUB_RECONCILIATION', currency: 'EUR' });
  const noModel = await api.request('POST', '/participants', { name: 'tooearly', currency: 'EUR' });
  assert.equal(noModel.body.errorInformation.errorCode, '6000');
});

test('central-ledger onboarding sequence works with its bodies and answers in its shapes', async () => {
  await setUpHub(api.request);
  const hubAgain = await api.request('POST', '/participants/Hub/accounts', { type: 'HUB_RECONCILIATION', currency: 'USD' });
  assert.deepEqual(hubAgain.body.errorInformation, { errorCode: '3003', errorDescription: 'Add Party information error - Hub account has already been registered.' });

  const created = await api.request('POST', '/participants', { name: 'payerfsp', currency: 'USD' });
  assert.equal(created.status, 201);
  // central-ledger's fields, and apiType (FSPIOP or ISO20022), which is ours.
  assert.deepEqual(Object.keys(created.body).sort(), ['accounts', 'apiType', 'created', 'id', 'isActive', 'isProxy', 'links', 'name']);
  assert.equal(created.body.apiType, 'FSPIOP');
  assert.equal(created.body.links.self, created.body.id);
  assert.deepEqual(created.body.accounts.map((account) => [account.ledgerAccountType, account.currency, account.isActive]),
    [['POSITION', 'USD', 0], ['SETTLEMENT', 'USD', 0]]);
  assert.deepEqual(Object.keys(created.body.accounts[0]).sort(), ['createdBy', 'createdDate', 'currency', 'id', 'isActive', 'ledgerAccountType']);

  const duplicate = await api.request('POST', '/participants', { name: 'payerfsp', currency: 'USD' });
  assert.deepEqual([duplicate.status, duplicate.body.errorInformation], [400,
    { errorCode: '3000', errorDescription: 'Generic client error - Participant currency has already been registered' }]);

  const { settlementAccountId } = await onboardDfsp(api.request, { name: 'payeefsp', endpointBase: 'http://127.0.0.1:4100' });
  const initial = await api.request('POST', '/participants/payerfsp/initialPositionAndLimits',
    { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 1000 }, initialPosition: 0 });
  assert.equal(initial.status, 201);
  const again = await api.request('POST', '/participants/payerfsp/initialPositionAndLimits',
    { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 1000 }, initialPosition: 0 });
  assert.equal(again.status, 400);

  const accounts = (await api.request('GET', '/participants/payeefsp/accounts')).body;
  assert.deepEqual(accounts.map((account) => [account.id === settlementAccountId, account.ledgerAccountType, account.isActive, account.value, account.reservedValue]),
    [[false, 'POSITION', 1, 0, 0], [true, 'SETTLEMENT', 1, -5000, 0]], 'a funds-in of 5000 leaves the settlement account at -5000');
  const raw = (await api.request('GET', '/participants/payeefsp/accounts')).text;
  assert.match(raw, /"value":-5000,/, 'amounts are JSON numbers, as central-ledger answers');

  assert.deepEqual((await api.request('GET', '/participants/payeefsp/endpoints')).body.map((endpoint) => endpoint.type),
    standardEndpoints('http://127.0.0.1:4100').map(([type]) => type).sort());
  assert.deepEqual((await api.request('GET', '/participants/payeefsp/endpoints?type=FSPIOP_CALLBACK_URL_TRANSFER_PUT')).body,
    { type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: 'http://127.0.0.1:4100/transfers/{{transferId}}' });
  const position = (await api.request('GET', '/participants/payeefsp/positions?currency=USD')).body;
  assert.deepEqual([position.currency, position.value, typeof position.changedDate], ['USD', 0, 'string']);
  assert.equal((await api.request('GET', '/participants/payeefsp/positions')).body.length, 1);
});

test('limits can be read per DFSP and for all, and adjusted', async () => {
  assert.deepEqual((await api.request('GET', '/participants/payerfsp/limits?currency=USD')).body,
    [{ currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 1000, alarmPercentage: 10 } }]);
  const adjusted = await api.request('PUT', '/participants/payerfsp/limits',
    { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: '2500.5', alarmPercentage: 20 } });
  assert.deepEqual([adjusted.status, adjusted.body], [200, { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 2500.5, alarmPercentage: 20 } }]);
  const all = (await api.request('GET', '/participants/limits')).body;
  assert.deepEqual(all.map((row) => [row.name, row.limit.value]), [['payeefsp', 10000], ['payerfsp', 2500.5]]);
});

test('participants and position accounts can be deactivated; settlement accounts cannot be changed there', async () => {
  const off = await api.request('PUT', '/participants/payerfsp', { isActive: false });
  assert.equal(off.body.isActive, 0);
  assert.equal((await api.request('GET', '/participants/payerfsp')).body.isActive, 0);
  await api.request('PUT', '/participants/payerfsp', { isActive: true });
  const position = await accountOf('payerfsp', 'POSITION');
  assert.equal((await api.request('PUT', `/participants/payerfsp/accounts/${position.id}`, { isActive: false })).status, 200);
  assert.equal((await accountOf('payerfsp', 'POSITION')).isActive, 0);
  await api.request('PUT', `/participants/payerfsp/accounts/${position.id}`, { isActive: true });
  const settlement = await accountOf('payerfsp', 'SETTLEMENT');
  assert.equal((await api.request('PUT', `/participants/payerfsp/accounts/${settlement.id}`, { isActive: false })).status, 400);
  const list = (await api.request('GET', '/participants')).body.map((participant) => participant.name);
  assert.deepEqual(list.sort(), ['Hub', 'payeefsp', 'payerfsp']);
});

function fundsBody(action, amount, transferId = crypto.randomUUID()) {
  return { transferId, externalReference: 'ext-1', action, reason: 'test', amount: { amount, currency: 'USD' } };
}

test('funds in is applied once per transfer id; a changed resend is a modified request', async () => {
  const settlement = await accountOf('payerfsp', 'SETTLEMENT');
  const body = fundsBody('recordFundsIn', '1234.5678');
  assert.equal((await api.request('POST', `/participants/payerfsp/accounts/${settlement.id}`, body)).status, 202);
  assert.equal((await api.request('POST', `/participants/payerfsp/accounts/${settlement.id}`, body)).status, 202);
  assert.equal((await accountOf('payerfsp', 'SETTLEMENT')).value, -1234.5678);
  const modified = await api.request('POST', `/participants/payerfsp/accounts/${settlement.id}`, { ...body, reason: 'other' });
  assert.equal(modified.body.errorInformation.errorCode, '3106');
  const position = await accountOf('payerfsp', 'POSITION');
  const onPosition = await api.request('POST', `/participants/payerfsp/accounts/${position.id}`, fundsBody('recordFundsIn', '1'));
  assert.equal(onPosition.body.errorInformation.errorCode, '3100', 'funds go to the SETTLEMENT account only');
});

test('funds out reserves, then commits or aborts, and never overdraws', async () => {
  const settlement = await accountOf('payerfsp', 'SETTLEMENT');
  const path = `/participants/payerfsp/accounts/${settlement.id}`;
  const tooMuch = await api.request('POST', path, fundsBody('recordFundsOutPrepareReserve', '1234.5679'));
  assert.deepEqual([tooMuch.status, tooMuch.body.errorInformation.errorCode], [400, '4001']);
  assert.equal((await accountOf('payerfsp', 'SETTLEMENT')).value, -1234.5678, 'a refused funds out changes nothing');

  const commitId = crypto.randomUUID();
  assert.equal((await api.request('POST', path, fundsBody('recordFundsOutPrepareReserve', '200', commitId))).status, 202);
  assert.equal((await accountOf('payerfsp', 'SETTLEMENT')).value, -1034.5678, 'the reservation takes effect at once');
  assert.equal((await api.request('PUT', `${path}/transfers/${commitId}`, { action: 'recordFundsOutCommit', reason: 'paid' })).status, 202);
  assert.equal((await api.request('PUT', `${path}/transfers/${commitId}`, { action: 'recordFundsOutCommit', reason: 'paid' })).status, 202);
  const late = await api.request('PUT', `${path}/transfers/${commitId}`, { action: 'recordFundsOutAbort', reason: 'late' });
  assert.equal(late.body.errorInformation.errorCode, '3100');

  const abortId = crypto.randomUUID();
  await api.request('POST', path, fundsBody('recordFundsOutPrepareReserve', '34.5678', abortId));
  assert.equal((await api.request('PUT', `${path}/transfers/${abortId}`, { action: 'recordFundsOutAbort', reason: 'no' })).status, 202);
  assert.equal((await accountOf('payerfsp', 'SETTLEMENT')).value, -1034.5678);
  const unknown = await api.request('PUT', `${path}/transfers/${crypto.randomUUID()}`, { action: 'recordFundsOutCommit', reason: 'x' });
  assert.equal(unknown.body.errorInformation.errorCode, '3208');
});

test('concurrent funds out never overdraw, and every position equals its journal', async () => {
  const settlement = await accountOf('payerfsp', 'SETTLEMENT');
  const results = await Promise.all(Array.from({ length: 24 }, () =>
    api.request('POST', `/participants/payerfsp/accounts/${settlement.id}`, fundsBody('recordFundsOutPrepareReserve', '100'))));
  const accepted = results.filter((result) => result.status === 202).length;
  assert.equal(accepted, 10, 'exactly the 10 withdrawals of 100 that fit in 1034.5678 are accepted');
  assert.ok(results.every((result) => result.status === 202 || result.body.errorInformation.errorCode === '4001'));
  assert.equal((await accountOf('payerfsp', 'SETTLEMENT')).value, -34.5678);

  const mismatches = await api.db.raw(`
    SELECT p.account_id, p.value, COALESCE(SUM(c.change), 0) AS journal
    FROM position p LEFT JOIN position_change c ON c.account_id = p.account_id
    GROUP BY p.account_id, p.value HAVING p.value <> journal`);
  assert.deepEqual(mismatches[0], []);
  const [[{ total }]] = await api.db.raw('SELECT SUM(value) AS total FROM position');
  const [[{ reserved }]] = await api.db.raw("SELECT COALESCE(SUM(amount), 0) AS reserved FROM transfer WHERE kind = 'FUNDS_OUT' AND state = 'RESERVED'");
  assert.equal(total, reserved, 'positions sum to the funds-out reservations still open: nothing created or lost');
});

test('onboarding run a second time gets central-ledger\'s own refusals, which provisioning scripts check', async () => {
  const model = {
    name: 'DEFERREDNETUSD', settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED',
    currency: 'USD', requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  };
  const modelAgain = await api.request('POST', '/settlementModels', model);
  assert.deepEqual([modelAgain.status, modelAgain.body.errorInformation],
    [400, { errorCode: '3000', errorDescription: 'Generic client error - Settlement Model already exists' }]);
  // central-ledger takes only letters and digits in a model's name (2 to 30 of them); it
  // answers 3101, the admin API its validation error for any value outside its schema.
  for (const name of ['DEFERRED_NET_KES', 'D', 'DEFERREDNETKES'.padEnd(31, 'X')]) {
    const refused = await api.request('POST', '/settlementModels', { ...model, name, currency: 'KES' });
    assert.deepEqual([refused.status, refused.body.errorInformation?.errorCode], [400, '3100'], `${name}: ${refused.text}`);
  }
  // central-ledger answers this one with a 500 and 2001; the same words with a 400 say the request was refused.
  const limitsAgain = await api.request('POST', '/participants/payeefsp/initialPositionAndLimits',
    { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 10000 }, initialPosition: 0 });
  assert.deepEqual([limitsAgain.status, limitsAgain.body.errorInformation],
    [400, { errorCode: '3000', errorDescription: 'Generic client error - Participant Limit or Initial Position already set' }]);
});

test('settlement models with interchange fee accounts: a DFSP added for the currency gets every model\'s accounts', async () => {
  await setUpHub(api.request, 'TZS');
  const feeModel = await api.request('POST', '/settlementModels', {
    name: 'INTERCHANGEFEETZS', settlementGranularity: 'NET', settlementInterchange: 'BILATERAL', settlementDelay: 'DEFERRED',
    currency: 'TZS', requireLiquidityCheck: false, ledgerAccountType: 'INTERCHANGE_FEE', settlementAccountType: 'INTERCHANGE_FEE_SETTLEMENT',
    autoPositionReset: false,
  });
  assert.equal(feeModel.status, 201, feeModel.text);
  const listed = (await api.request('GET', '/settlementModels')).body.find((model) => model.name === 'INTERCHANGEFEETZS');
  assert.deepEqual([listed.ledgerAccountType, listed.settlementAccountType], ['INTERCHANGE_FEE', 'INTERCHANGE_FEE_SETTLEMENT']);

  const created = await api.request('POST', '/participants', { name: 'feefsp', currency: 'TZS' });
  assert.equal(created.status, 201, created.text);
  assert.deepEqual(created.body.accounts.map((account) => [account.ledgerAccountType, account.currency, account.isActive]).sort(), [
    ['INTERCHANGE_FEE', 'TZS', 0], ['INTERCHANGE_FEE_SETTLEMENT', 'TZS', 0], ['POSITION', 'TZS', 0], ['SETTLEMENT', 'TZS', 0],
  ]);
  const initial = await api.request('POST', '/participants/feefsp/initialPositionAndLimits',
    { currency: 'TZS', limit: { type: 'NET_DEBIT_CAP', value: 100 } });
  assert.equal(initial.status, 201, initial.text);
  const accounts = (await api.request('GET', '/participants/feefsp/accounts')).body;
  assert.deepEqual(accounts.map((account) => [account.ledgerAccountType, account.isActive, account.value]).sort(), [
    ['INTERCHANGE_FEE', 0, 0], ['INTERCHANGE_FEE_SETTLEMENT', 0, 0], ['POSITION', 1, 0], ['SETTLEMENT', 1, 0],
  ], 'every account has a position; the limit activates the POSITION and SETTLEMENT pair');
});

test('an FXP holds positions, limits and liquidity in two currencies, an account set per currency, as central-ledger onboards it', async () => {
  await ensureHub(api.request, 'EUR');
  for (const currency of ['USD', 'EUR']) {
    const created = await api.request('POST', '/participants', { name: 'fxp1', currency });
    assert.equal(created.status, 201, created.text);
  }
  const setUp = (currency, cap) => api.request('POST', '/participants/fxp1/initialPositionAndLimits',
    { currency, limit: { type: 'NET_DEBIT_CAP', value: cap }, initialPosition: 0 });
  assert.equal((await setUp('USD', 3000)).status, 201);
  assert.equal((await setUp('EUR', 2000)).status, 201);
  assert.equal((await setUp('EUR', 2000)).status, 400, 'once per currency');

  const accounts = (await api.request('GET', '/participants/fxp1/accounts')).body;
  assert.deepEqual(accounts.map((account) => [account.ledgerAccountType, account.currency, account.isActive]), [
    ['POSITION', 'USD', 1], ['SETTLEMENT', 'USD', 1], ['POSITION', 'EUR', 1], ['SETTLEMENT', 'EUR', 1],
  ]);
  const settlementIn = (currency) => accounts.find((account) => account.ledgerAccountType === 'SETTLEMENT' && account.currency === currency).id;
  const fundsIn = (accountId, amount, currency) => api.request('POST', `/participants/fxp1/accounts/${accountId}`, {
    transferId: crypto.randomUUID(), externalReference: 'fxp-deposit', action: 'recordFundsIn', reason: 'liquidity', amount: { amount, currency },
  });
  assert.equal((await fundsIn(settlementIn('USD'), '700', 'USD')).status, 202);
  assert.equal((await fundsIn(settlementIn('EUR'), '400.25', 'EUR')).status, 202);
  const crossed = await fundsIn(settlementIn('USD'), '1', 'EUR');
  assert.deepEqual([crossed.status, crossed.body.errorInformation.errorCode], [400, '3100'], 'funds go in the settlement account\'s own currency');

  const balances = (await api.request('GET', '/participants/fxp1/accounts')).body;
  assert.deepEqual(balances.map((account) => [account.ledgerAccountType, account.currency, account.value]), [
    ['POSITION', 'USD', 0], ['SETTLEMENT', 'USD', -700], ['POSITION', 'EUR', 0], ['SETTLEMENT', 'EUR', -400.25],
  ], 'each currency\'s liquidity on its own');
  assert.deepEqual((await api.request('GET', '/participants/fxp1/positions')).body.map((position) => [position.currency, position.value]),
    [['USD', 0], ['EUR', 0]]);
  assert.equal((await api.request('GET', '/participants/fxp1/positions?currency=EUR')).body.currency, 'EUR');

  const adjusted = await api.request('PUT', '/participants/fxp1/limits', { currency: 'EUR', limit: { type: 'NET_DEBIT_CAP', value: 2500 } });
  assert.equal(adjusted.status, 200, adjusted.text);
  assert.deepEqual((await api.request('GET', '/participants/fxp1/limits')).body.map((row) => [row.currency, row.limit.value]).sort(),
    [['EUR', 2500], ['USD', 3000]], 'a limit per currency, adjusted on its own');
});

test('an FXP registers the currency pairs it converts; a pair needs a position account in both currencies', async () => {
  const pairs = '/participants/fxp1/currencyPairs';
  assert.deepEqual((await api.request('GET', pairs)).body, [], 'no pair yet: not an FXP yet');
  assert.equal((await api.request('POST', pairs, { sourceCurrency: 'USD', targetCurrency: 'EUR' })).status, 201);
  assert.equal((await api.request('POST', pairs, { sourceCurrency: 'EUR', targetCurrency: 'USD' })).status, 201);
  const listed = (await api.request('GET', pairs)).body;
  assert.deepEqual(listed.map((pair) => `${pair.sourceCurrency}/${pair.targetCurrency}`), ['EUR/USD', 'USD/EUR']);
  assert.equal(typeof listed[0].createdDate, 'string');

  const refusal = async (path, body, method = 'POST') => {
    const answer = await api.request(method, path, body);
    return [answer.status, answer.body?.errorInformation?.errorCode];
  };
  assert.deepEqual(await refusal(pairs, { sourceCurrency: 'USD', targetCurrency: 'EUR' }), [400, '3000'], 'registered already');
  assert.deepEqual(await refusal(pairs, { sourceCurrency: 'USD', targetCurrency: 'TZS' }), [400, '3200'], 'no TZS account');
  assert.deepEqual(await refusal(pairs, { sourceCurrency: 'USD', targetCurrency: 'USD' }), [400, '3100']);
  assert.deepEqual(await refusal(pairs, { sourceCurrency: 'usd', targetCurrency: 'EUR' }), [400, '3100']);
  assert.deepEqual(await refusal(pairs, { sourceCurrency: 'USD' }), [400, '3102']);
  assert.deepEqual(await refusal('/participants/Hub/currencyPairs', { sourceCurrency: 'USD', targetCurrency: 'EUR' }), [400, '3100'], 'not the hub');
  assert.deepEqual(await refusal('/participants/nobody/currencyPairs', { sourceCurrency: 'USD', targetCurrency: 'EUR' }), [400, '3200']);

  assert.equal((await api.request('DELETE', `${pairs}/EUR/USD`)).status, 204);
  assert.deepEqual(await refusal(`${pairs}/EUR/USD`, undefined, 'DELETE'), [400, '3200'], 'gone');
  assert.deepEqual(await refusal(`${pairs}/EU/USD`, undefined, 'DELETE'), [400, '3101']);
  assert.deepEqual((await api.request('GET', pairs)).body.map((pair) => `${pair.sourceCurrency}/${pair.targetCurrency}`), ['USD/EUR']);
});
