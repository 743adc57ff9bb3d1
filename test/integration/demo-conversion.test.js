// The demo's payment with currency conversion (scripts/lib/demo-conversion.js) against a whole
// switch: the FSPIOP edges with mutual TLS, every handler as its own process, real Kafka and
// MariaDB, and the demo's DFSPs as test DFSP simulators serving HTTPS (the hub presents its
// client certificate on every callback) and signing everything they send. The conversion's
// onboarding is run twice, as a second `make demo` would, and the payment twice: each time
// the positions must move exactly as the printed table says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { COMPONENTS, startSwitch, withDfsps } from '../support/switch.js';
import { startTestDfsp } from '../support/test-dfsp.js';
import { jwsKeyPair } from '../support/jws-keys.js';
import { testServerTls } from '../support/scheme-tls.js';
import { ensureDfsp, ensureHub } from '../../scripts/lib/onboarding.js';
import { registerParty } from '../../scripts/lib/demo-dfsp-calls.js';
import { CONVERSION_DFSPS, checkConversion, onboardConversion, payWithConversion } from '../../scripts/lib/demo-conversion.js';

const PAYER = { name: 'payerfsp', msisdn: '27710000001' };
const PAYEE = CONVERSION_DFSPS.find((dfsp) => dfsp.name === 'eurobank');
const FXP = CONVERSION_DFSPS.find((dfsp) => dfsp.name === 'fxpbank');

let sw;
let scene;
const simulators = new Map();
const printed = [];

before(async () => {
  sw = await startSwitch({
    components: Object.keys(COMPONENTS).filter((name) => name !== 'settlement-api'),
    env: { ORACLE_REGISTRY_TTL_MS: '0', PARTICIPANT_CACHE_TTL_MS: '0' },
  });
  scene = await withDfsps(sw, async (started) => {
    const urls = { transfers: sw.apiUrl, quotes: sw.urlOf('quoting'), parties: sw.urlOf('account-lookup') };
    for (const dfsp of [PAYER, ...CONVERSION_DFSPS]) {
      const simulator = await startTestDfsp({ name: dfsp.name, urls, serverTls: testServerTls(), fxRates: dfsp.fxRates });
      started.push(simulator);
      simulators.set(dfsp.name, simulator);
    }
    const { request } = sw.admin;
    await ensureHub(request, 'USD');
    await ensureDfsp(request, { name: PAYER.name, currency: 'USD', endpointBase: simulators.get(PAYER.name).url, jwsPublicKey: jwsKeyPair(PAYER.name).publicKey });
    const onboarding = { endpointBaseOf: (name) => simulators.get(name).url, jwsPublicKeyOf: (name) => jwsKeyPair(name).publicKey, log: () => {} };
    await onboardConversion(request, onboarding);
    await onboardConversion(request, onboarding);
    await registerParty(simulators.get(PAYEE.name), { msisdn: PAYEE.msisdn, customer: PAYEE.customer, currency: 'EUR', supportedCurrencies: PAYEE.currencies });
  });
});

after(async () => { await scene?.stop(); });

const pay = () => payWithConversion({
  request: sw.admin.request, simulators, payerName: PAYER.name, payerMsisdn: PAYER.msisdn, payeeMsisdn: PAYEE.msisdn, sourceAmount: '50',
  log: (line) => printed.push(line),
});

const positionOf = (result, participant, currency) => result.positions.find((row) => row.participant === participant && row.currency === currency);

test('onboarding the conversion twice leaves the FXP with accounts in both currencies, its pair once, and the payee in EUR', async () => {
  const { request } = sw.admin;
  const pairs = (await request('GET', `/participants/${FXP.name}/currencyPairs`)).body;
  assert.deepEqual(pairs.map(({ sourceCurrency, targetCurrency }) => `${sourceCurrency}/${targetCurrency}`), ['USD/EUR']);
  const accounts = (await request('GET', `/participants/${FXP.name}/accounts`)).body;
  assert.deepEqual([...new Set(accounts.map((account) => account.currency))].sort(), ['EUR', 'USD']);
  const positions = (await request('GET', `/participants/${PAYEE.name}/positions`)).body;
  assert.deepEqual(positions.map((row) => row.currency), ['EUR']);
});

test('the demo\'s conversion payment: every step printed, both states COMMITTED, positions moved in both currencies', async () => {
  printed.length = 0;
  const result = await pay();
  assert.equal(result.transferState, 'COMMITTED');
  assert.equal(result.conversionState, 'COMMITTED');
  assert.equal(result.fxp, FXP.name, 'the FXP the hub named');
  assert.equal(result.payeeFsp, PAYEE.name);
  assert.equal(result.targetAmount, '45', '50 USD at the FXP\'s rate of 0.9');
  assert.deepEqual(result.positions.map(({ participant, currency, change }) => [participant, currency, change]), [
    ['payerfsp', 'USD', '50'], ['fxpbank', 'USD', '-50'], ['fxpbank', 'EUR', '45'], ['eurobank', 'EUR', '-45'],
  ]);
  // The table's before and after are what the admin API reports now.
  for (const row of result.positions) {
    const now = (await sw.admin.request('GET', `/participants/${row.participant}/positions`)).body.find((position) => position.currency === row.currency);
    assert.equal(String(now.value), row.after, `${row.participant} ${row.currency}`);
  }
  assert.match(checkConversion(result), /^50 USD from payerfsp became 45 EUR for eurobank through fxpbank, both COMMITTED; positions moved payerfsp USD \+50, fxpbank USD -50, fxpbank EUR \+45, eurobank EUR -45$/);
  const steps = printed.map((line) => line.trim().split(':')[0]);
  assert.deepEqual(steps.slice(1).map((step) => step.split(' ')[0]), ['1.', '2.', '3.', '4.', '5.', '6.', '7.']);
  assert.match(printed[1], /receiving in EUR/);
  assert.match(printed[2], /GET \/services\/FXP\/USD\/EUR: the hub names fxpbank/);
  assert.match(printed[3], /POST \/fxQuotes to fxpbank: 50 USD → 45 EUR/);
  assert.match(printed[4], /45 EUR to eurobank/);
  assert.match(printed[5], /fxpbank answered RESERVED, from fxpbank/);
  assert.match(printed[6], /payer told COMMITTED, from eurobank/);
  assert.match(printed[7], /PATCH \/fxTransfers\/.* COMMITTED/);
  for (const simulator of simulators.values()) assert.deepEqual(simulator.signatureFailures, [], `${simulator.name}: every call verified`);
  for (const simulator of simulators.values()) {
    assert.ok(simulator.received.every((seen) => seen.clientCommonName === 'Hub'), `${simulator.name}: every call came over the hub's client certificate`);
  }
});

test('a second run moves the positions again by the same amounts, from where the first left them', async () => {
  const first = await pay();
  const second = await pay();
  for (const [participant, currency, change] of [['payerfsp', 'USD', '50'], ['fxpbank', 'USD', '-50'], ['fxpbank', 'EUR', '45'], ['eurobank', 'EUR', '-45']]) {
    assert.equal(positionOf(second, participant, currency).before, positionOf(first, participant, currency).after);
    assert.equal(positionOf(second, participant, currency).change, change);
  }
});
