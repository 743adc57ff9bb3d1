// FXPs: which currency pairs an FXP may register (ledger/domain/currency-pairs.js), which FXPs a
// DFSP asking GET /services/FXP is told of (account-lookup/domain/fxp-discovery.js), and the
// edge's v2.0-only media types and the hub's v2.0 answer for /services.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAILURE } from '../../platform/domain/failures.js';
import { decideCurrencyPairRegistration } from '../../ledger/domain/currency-pairs.js';
import { PROVIDERS_MAX, currencyPairFailure, decideFxpProviders } from '../../account-lookup/domain/fxp-discovery.js';
import { createRequestValidator } from '../../platform/fspiop/edge.js';
import { buildCallbackHeaders, callbackUrl, invalidNotificationReason } from '../../platform/delivery/callback-request.js';

const fxp = { id: 7, name: 'fxp1' };
const accountsIn = (...currencies) => currencies.flatMap((currency) => [{ currency, type: 'POSITION' }, { currency, type: 'SETTLEMENT' }]);
const register = (overrides) => decideCurrencyPairRegistration({
  participant: fxp, hubName: 'Hub', sourceCurrency: 'USD', targetCurrency: 'EUR', accounts: accountsIn('USD', 'EUR'), pairs: [], ...overrides,
});

test('a pair is registered with a participant that holds a POSITION account in both currencies', () => {
  assert.deepEqual(register({}), { ok: true });
  assert.deepEqual(register({ pairs: [{ sourceCurrency: 'EUR', targetCurrency: 'USD' }] }), { ok: true }, 'the other direction is another pair');
});

test('a pair is refused for the hub, for one currency twice, for a currency the FXP holds no position in, and twice', () => {
  assert.equal(register({ participant: { id: 1, name: 'Hub' } }).code, FAILURE.validation);
  assert.equal(register({ targetCurrency: 'USD' }).code, FAILURE.validation);
  const missing = register({ accounts: accountsIn('USD') });
  assert.equal(missing.code, FAILURE.accountNotFound);
  assert.match(missing.detail, /no POSITION account in EUR/);
  assert.equal(register({ accounts: [{ currency: 'USD', type: 'POSITION' }, { currency: 'EUR', type: 'SETTLEMENT' }] }).code, FAILURE.accountNotFound);
  const twice = register({ pairs: [{ sourceCurrency: 'USD', targetCurrency: 'EUR' }] });
  assert.equal(twice.code, FAILURE.alreadyExists);
  assert.match(twice.detail, /already been registered/);
});

const candidate = (name, overrides = {}) => ({
  name, isActive: true, pairs: [{ sourceCurrency: 'USD', targetCurrency: 'EUR' }], activePositionCurrencies: ['USD', 'EUR'], ...overrides,
});
const providers = (candidates, pair = { sourceCurrency: 'USD', targetCurrency: 'EUR' }, requester = 'payerfsp') =>
  decideFxpProviders({ candidates, ...pair, hubName: 'Hub', requester }).providers;

test('the active FXPs that convert the pair with active positions in both currencies are named, in name order', () => {
  assert.deepEqual(providers([candidate('fxpB'), candidate('fxpA')]), ['fxpA', 'fxpB']);
  assert.deepEqual(providers([candidate('fxpA', { isActive: false })]), [], 'an inactive FXP');
  assert.deepEqual(providers([candidate('fxpA', { activePositionCurrencies: ['USD'] })]), [], 'no active position in the target currency');
  assert.deepEqual(providers([candidate('fxpA', { activePositionCurrencies: ['EUR'] })]), [], 'no active position in the source currency');
  assert.deepEqual(providers([candidate('fxpA')], { sourceCurrency: 'EUR', targetCurrency: 'USD' }), [], 'the other direction is not registered');
  assert.deepEqual(providers([candidate('Hub'), candidate('payerfsp'), candidate('fxpA')]), ['fxpA'], 'neither the hub nor the requester itself');
});

test('GET /services/FXP names every FXP that can convert some pair now, once', () => {
  const twoPairs = candidate('fxpA', {
    pairs: [{ sourceCurrency: 'USD', targetCurrency: 'EUR' }, { sourceCurrency: 'EUR', targetCurrency: 'USD' }],
  });
  const unusable = candidate('fxpB', { pairs: [{ sourceCurrency: 'USD', targetCurrency: 'KES' }] });
  assert.deepEqual(providers([twoPairs, unusable], {}), ['fxpA']);
  assert.deepEqual(providers([], {}), [], 'none is the empty list the specification answers with');
});

test('an answer names at most the specification\'s 16 providers', () => {
  const many = Array.from({ length: PROVIDERS_MAX + 4 }, (_, index) => candidate(`fxp${String(index).padStart(2, '0')}`));
  const named = providers(many);
  assert.equal(named.length, PROVIDERS_MAX);
  assert.deepEqual(named, many.map((item) => item.name).slice(0, PROVIDERS_MAX));
});

test('a pair asked about is two different ISO 4217 codes', () => {
  assert.equal(currencyPairFailure({ sourceCurrency: 'USD', targetCurrency: 'EUR' }), null);
  assert.equal(currencyPairFailure({ sourceCurrency: 'USD', targetCurrency: 'USD' }).code, FAILURE.validation);
  assert.equal(currencyPairFailure({ sourceCurrency: 'usd', targetCurrency: 'EUR' }).code, FAILURE.validation);
});

const servicesHeaders = (version, overrides = {}) => ({
  accept: `application/vnd.interoperability.services+json;version=${version.split('.')[0]}`,
  'content-type': `application/vnd.interoperability.services+json;version=${version}`,
  date: new Date().toUTCString(),
  'fspiop-source': 'payerfsp',
  ...overrides,
});

test('edge: /services/FXP speaks FSPIOP 2.0 only, against the v2.0 document, with currencies typed', () => {
  const validate = createRequestValidator({
    resource: 'services', method: 'GET', path: '/services/FXP/{SourceCurrency}/{TargetCurrency}',
    pathSchemas: { SourceCurrency: 'Currency', TargetCurrency: 'Currency' },
  });
  const params = { SourceCurrency: 'USD', TargetCurrency: 'EUR' };
  assert.deepEqual(validate({ headers: servicesHeaders('2.0'), params }).params, params);
  const old = validate({ headers: servicesHeaders('1.1'), params });
  assert.equal(old.failure.httpStatus, 406);
  assert.deepEqual(old.failure.body.errorInformation.extensionList.extension, [{ key: '2', value: '0' }]);
  const oldContent = validate({ headers: servicesHeaders('1.1', { accept: 'application/vnd.interoperability.services+json;version=2' }), params });
  assert.equal(oldContent.failure.code, 3001);
  const unknown = validate({ headers: servicesHeaders('2.0'), params: { SourceCurrency: 'XYZ', TargetCurrency: 'EUR' } });
  assert.match(unknown.failure.body.errorInformation.errorDescription, /\/path\/SourceCurrency/);
  // A resource served in every version takes the same 2.0 headers; only /services is 2.0 alone.
  const transfers = createRequestValidator({ resource: 'transfers', method: 'GET', path: '/transfers/{ID}' });
  const headers = { ...servicesHeaders('2.0'), accept: 'application/vnd.interoperability.transfers+json;version=2', 'content-type': 'application/vnd.interoperability.transfers+json;version=2.0' };
  assert.equal(transfers({ headers, params: { ID: 'b51ec534-ee48-4575-b6a9-ead2955b8069' } }).failure, undefined);
});

test('the hub\'s /services answer goes to the base URL plus the path asked, as version 2.0', () => {
  const event = {
    id: 'payerfsp /services/FXP/USD/EUR', type: 'notification', action: 'answer', from: 'Hub', to: 'payerfsp', headers: {}, body: { providers: ['fxp1'] },
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_SERVICES', templateParams: {}, method: 'PUT', resource: 'services', path: '/services/FXP/USD/EUR', version: '2.0' },
  };
  assert.equal(invalidNotificationReason(event), null);
  const url = callbackUrl('http://payer:4000/', event.callback);
  assert.equal(url.href, 'http://payer:4000/services/FXP/USD/EUR');
  const headers = buildCallbackHeaders({ event, url, hubName: 'Hub', now: new Date('2026-03-04T05:06:07.000Z') });
  assert.equal(headers['content-type'], 'application/vnd.interoperability.services+json;version=2.0');
  assert.equal(headers['fspiop-uri'], '/services/FXP/USD/EUR');
  assert.equal(invalidNotificationReason({ ...event, callback: { ...event.callback, version: 'two' } }), 'callback.version is not a major.minor version');
});
