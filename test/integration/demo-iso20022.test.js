// The demo's ISO 20022 payments (scripts/lib/demo-iso20022.js) against a whole switch: the
// FSPIOP edges with mutual TLS and JWS required, every handler as its own process, real Kafka
// and MariaDB, and the demo's DFSPs as test DFSP simulators serving HTTPS, signing everything
// they send and verifying everything they receive; isobank is registered as speaking ISO 20022
// and sends and checks ISO 20022 messages. Its onboarding is run twice, as a second `make demo`
// would, and both payments (an FSPIOP payer to isobank, isobank to an FSPIOP payee) twice: each
// step must print the message each side sent and received and who signed it, and the positions
// must move exactly as the printed table says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { COMPONENTS, startSwitch, withDfsps } from '../support/switch.js';
import { startTestDfsp } from '../support/test-dfsp.js';
import { jwsKeyPair } from '../support/jws-keys.js';
import { testServerTls } from '../support/scheme-tls.js';
import { ensureDfsp, ensureHub } from '../../scripts/lib/onboarding.js';
import { registerParty } from '../../scripts/lib/demo-dfsp-calls.js';
import { ISO_DFSP, checkIso20022Payment, onboardIso20022, payAcrossApiTypes } from '../../scripts/lib/demo-iso20022.js';

const FSPIOP_DFSPS = [
  { name: 'payerfsp', msisdn: '27710000001', customer: 'Thandi Payer' },
  { name: 'payeefsp', msisdn: '27710000002', customer: 'Sipho Payee' },
];
const PAYMENTS = [
  { payerName: 'payerfsp', payerMsisdn: '27710000001', payeeName: ISO_DFSP.name, payeeMsisdn: ISO_DFSP.msisdn, amount: '15' },
  { payerName: ISO_DFSP.name, payerMsisdn: ISO_DFSP.msisdn, payeeName: 'payeefsp', payeeMsisdn: '27710000002', amount: '7.5' },
];
const ULID_START = '[0-9A-HJKMNP-TV-Z]{10}…';
const CONVERTED = 'signed by Hub, which converted it';

let sw;
let scene;
const simulators = new Map();
const onboardingPrinted = [];

before(async () => {
  sw = await startSwitch({
    components: Object.keys(COMPONENTS).filter((name) => name !== 'settlement-api'),
    env: { ORACLE_REGISTRY_TTL_MS: '0', PARTICIPANT_CACHE_TTL_MS: '0', JWS_VERIFICATION: 'required' },
  });
  scene = await withDfsps(sw, async (started) => {
    const urls = { transfers: sw.apiUrl, quotes: sw.urlOf('quoting'), parties: sw.urlOf('account-lookup') };
    for (const dfsp of [...FSPIOP_DFSPS, ISO_DFSP]) {
      const simulator = await startTestDfsp({ name: dfsp.name, urls, serverTls: testServerTls(), apiType: dfsp.apiType });
      started.push(simulator);
      simulators.set(dfsp.name, simulator);
    }
    const { request } = sw.admin;
    await ensureHub(request, 'USD');
    for (const dfsp of FSPIOP_DFSPS) {
      await ensureDfsp(request, { name: dfsp.name, currency: 'USD', endpointBase: simulators.get(dfsp.name).url, jwsPublicKey: jwsKeyPair(dfsp.name).publicKey });
    }
    const onboarding = { endpointBaseOf: (name) => simulators.get(name).url, jwsPublicKeyOf: (name) => jwsKeyPair(name).publicKey, log: (line) => onboardingPrinted.push(line) };
    await onboardIso20022(request, onboarding);
    await onboardIso20022(request, onboarding);
    for (const dfsp of [...FSPIOP_DFSPS, ISO_DFSP]) {
      await registerParty(simulators.get(dfsp.name), { msisdn: dfsp.msisdn, customer: dfsp.customer, currency: 'USD', supportedCurrencies: ['USD'] });
    }
  });
});

after(async () => { await scene?.stop(); });

/** Both payments as the demo makes them; resolves to each one's result and printed lines. */
async function payBoth() {
  const runs = [];
  for (const payment of PAYMENTS) {
    const printed = [];
    const result = await payAcrossApiTypes({ request: sw.admin.request, simulators, currency: 'USD', ...payment, log: (line) => printed.push(line) });
    runs.push({ result, printed });
  }
  return runs;
}

const changesOf = (result) => result.positions.map(({ participant, currency, change }) => [participant, currency, change]);

test('onboarding isobank twice registers it once, as ISO20022, in USD', async () => {
  const { request } = sw.admin;
  const shown = await request('GET', `/participants/${ISO_DFSP.name}`);
  assert.equal(shown.status, 200, shown.text);
  assert.equal(shown.body.apiType, 'ISO20022');
  const listed = (await request('GET', '/participants')).body.filter((participant) => participant.name === ISO_DFSP.name);
  assert.equal(listed.length, 1);
  assert.equal(listed[0].apiType, 'ISO20022');
  const positions = (await request('GET', `/participants/${ISO_DFSP.name}/positions`)).body;
  assert.deepEqual(positions.map((row) => row.currency), ['USD']);
  assert.equal(onboardingPrinted.length, 2);
  for (const line of onboardingPrinted) assert.match(line, /^isobank: participant, net debit cap 10000, funds in 5000, callbacks → https:\/\/.*, API type ISO20022 \(PUT \/participants\/isobank\)$/);
});

test('the demo\'s ISO 20022 payments: every step printed with the message each side sent and received and its signer, COMMITTED, positions moved', async () => {
  const [toIso, fromIso] = await payBoth();

  assert.deepEqual(toIso.result.mismatches, []);
  assert.equal(toIso.result.transferState, 'COMMITTED');
  assert.deepEqual(changesOf(toIso.result), [['payerfsp', 'USD', '15'], ['isobank', 'USD', '-15']]);
  assert.match(toIso.printed[0], /^\npayerfsp \(FSPIOP\) pays 15 USD to MSISDN 27710000006 at isobank \(ISO20022\)$/);
  assert.match(toIso.printed[1], /^ {2}1\. discovery: payerfsp sent FSPIOP 2\.0 GET \/parties\/\{Type\}\/\{ID\}; isobank received ISO 20022 GET \/parties\/\{Type\}\/\{ID\}, (unsigned|signed by payerfsp)$/);
  assert.match(toIso.printed[2], new RegExp(`^ {5}payerfsp received FSPIOP \\d\\.\\d PUT /parties/\\{Type\\}/\\{ID\\}, ${CONVERTED}: 27710000006 is Zanele Iso at isobank$`));
  assert.match(toIso.printed[3], new RegExp(`^ {2}2\\. quote ${ULID_START}: payerfsp sent FSPIOP 2\\.0 POST /quotes; isobank received pacs\\.081 POST /quotes, ${CONVERTED}$`));
  assert.match(toIso.printed[4], new RegExp(`^ {5}payerfsp received FSPIOP \\d\\.\\d PUT /quotes/\\{ID\\}, ${CONVERTED}: 15 USD, condition .{10}… from isobank's secret$`));
  assert.match(toIso.printed[5], new RegExp(`^ {2}3\\. transfer ${ULID_START}: payerfsp sent FSPIOP 2\\.0 POST /transfers; isobank received pacs\\.008 POST /transfers, ${CONVERTED}$`));
  assert.match(toIso.printed[6], new RegExp(`^ {5}payerfsp received FSPIOP \\d\\.\\d PUT /transfers/\\{ID\\}, ${CONVERTED}: COMMITTED \\(fulfilment .{10}…\\)$`));

  assert.deepEqual(fromIso.result.mismatches, []);
  assert.equal(fromIso.result.transferState, 'COMMITTED');
  assert.deepEqual(changesOf(fromIso.result), [['isobank', 'USD', '7.5'], ['payeefsp', 'USD', '-7.5']]);
  assert.match(fromIso.printed[0], /^\nisobank \(ISO20022\) pays 7\.5 USD to MSISDN 27710000002 at payeefsp \(FSPIOP\)$/);
  assert.match(fromIso.printed[1], /^ {2}1\. discovery: isobank sent ISO 20022 GET \/parties\/\{Type\}\/\{ID\}; payeefsp received FSPIOP \d\.\d GET \/parties\/\{Type\}\/\{ID\}, (unsigned|signed by isobank)$/);
  assert.match(fromIso.printed[2], new RegExp(`^ {5}isobank received acmt\\.024 PUT /parties/\\{Type\\}/\\{ID\\}, ${CONVERTED}: 27710000002 is Sipho Payee at payeefsp$`));
  assert.match(fromIso.printed[3], new RegExp(`^ {2}2\\. quote ${ULID_START}: isobank sent pacs\\.081 POST /quotes; payeefsp received FSPIOP \\d\\.\\d POST /quotes, ${CONVERTED}$`));
  assert.match(fromIso.printed[4], new RegExp(`^ {5}isobank received pacs\\.082 PUT /quotes/\\{ID\\}, ${CONVERTED}: 7\\.5 USD, condition .{10}… from payeefsp's secret$`));
  assert.match(fromIso.printed[5], new RegExp(`^ {2}3\\. transfer ${ULID_START}: isobank sent pacs\\.008 POST /transfers; payeefsp received FSPIOP \\d\\.\\d POST /transfers, ${CONVERTED}$`));
  assert.match(fromIso.printed[6], new RegExp(`^ {5}isobank received pacs\\.002 PUT /transfers/\\{ID\\}, ${CONVERTED}: COMMITTED \\(fulfilment .{10}…\\)$`));

  // The last table's after is what the admin API reports now; isobank's second payment starts where its first ended.
  for (const row of fromIso.result.positions) {
    const now = (await sw.admin.request('GET', `/participants/${row.participant}/positions`)).body.find((position) => position.currency === row.currency);
    assert.equal(String(now.value), row.after, `${row.participant} ${row.currency}`);
  }
  const isobankOf = (result) => result.positions.find((row) => row.participant === ISO_DFSP.name);
  assert.equal(isobankOf(fromIso.result).before, isobankOf(toIso.result).after);
  const payerfspNow = (await sw.admin.request('GET', '/participants/payerfsp/positions')).body.find((position) => position.currency === 'USD');
  assert.equal(String(payerfspNow.value), toIso.result.positions.find((row) => row.participant === 'payerfsp').after);
  assert.equal(checkIso20022Payment(toIso.result), '15 USD from payerfsp to isobank COMMITTED, every message in its receiver\'s API type and verified; positions moved payerfsp +15, isobank -15');
  assert.equal(checkIso20022Payment(fromIso.result), '7.5 USD from isobank to payeefsp COMMITTED, every message in its receiver\'s API type and verified; positions moved isobank +7.5, payeefsp -7.5');
  for (const simulator of simulators.values()) assert.deepEqual(simulator.signatureFailures, [], `${simulator.name}: every call verified`);
  for (const simulator of simulators.values()) {
    assert.ok(simulator.received.every((seen) => seen.clientCommonName === 'Hub'), `${simulator.name}: every call came over the hub's client certificate`);
  }
  const isoBodies = simulators.get(ISO_DFSP.name).received.filter((seen) => seen.isoBody !== undefined);
  assert.ok(isoBodies.length >= 5, 'isobank received ISO 20022 bodies');
  for (const seen of isoBodies) assert.equal(seen.isoProblem, null, `${seen.method} ${seen.path} fits the ISO 20022 document`);
});

test('a second run (a second make demo) moves the positions again by the same amounts, from where the first left them', async () => {
  const first = await payBoth();
  const second = await payBoth();
  for (const [index, changes] of [[0, [['payerfsp', '15'], ['isobank', '-15']]], [1, [['isobank', '7.5'], ['payeefsp', '-7.5']]]]) {
    for (const [participant, change] of changes) {
      const rowOf = (run) => run[index].result.positions.find((row) => row.participant === participant && row.currency === 'USD');
      assert.equal(rowOf(second).change, change, `${participant} in payment ${index + 1}`);
      assert.equal(rowOf(first).change, change, `${participant} in payment ${index + 1}`);
    }
    assert.equal(second[index].result.transferState, 'COMMITTED');
  }
  // isobank's position is touched by both payments: the second run starts where the first ended.
  const isobankAfterFirst = first[1].result.positions.find((row) => row.participant === 'isobank').after;
  assert.equal(second[0].result.positions.find((row) => row.participant === 'isobank').before, isobankAfterFirst);
  const payerfspAfterFirst = first[0].result.positions.find((row) => row.participant === 'payerfsp').after;
  assert.equal(second[0].result.positions.find((row) => row.participant === 'payerfsp').before, payerfspAfterFirst);
});
