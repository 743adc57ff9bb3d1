// The demo's merchant-initiated payment (scripts/lib/demo-request-to-pay.js) and its bulk
// (scripts/lib/demo-bulk.js) against a whole switch: the FSPIOP edges with mutual TLS, every
// handler as its own process, real Kafka and MariaDB, and the demo's DFSPs as test DFSP
// simulators serving HTTPS (the hub presents its client certificate on every callback) and
// signing everything they send. Each is run twice, as a second `make demo` would: each time
// every step must be printed and the positions must move exactly as the printed table says.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { COMPONENTS, startSwitch, withDfsps } from '../support/switch.js';
import { startTestDfsp } from '../support/test-dfsp.js';
import { jwsKeyPair } from '../support/jws-keys.js';
import { testServerTls } from '../support/scheme-tls.js';
import { ensureDfsp, ensureHub } from '../../scripts/lib/onboarding.js';
import { registerParty } from '../../scripts/lib/demo-dfsp-calls.js';
import { payRequestToPay } from '../../scripts/lib/demo-request-to-pay.js';
import { committedTotal, payBulk } from '../../scripts/lib/demo-bulk.js';

const DFSPS = [
  { name: 'payerfsp', msisdn: '27710000001', customer: 'Thandi Payer' },
  { name: 'payeefsp', msisdn: '27710000002', customer: 'Sipho Payee' },
  { name: 'greenbank', msisdn: '27710000003', customer: 'Amara Green' },
];
const msisdnOf = (name) => DFSPS.find((dfsp) => dfsp.name === name).msisdn;
const BULK_ITEMS = Array.from({ length: 10 }, (_, index) => ({ msisdn: `277100001${String(index).padStart(2, '0')}`, amount: String(10 + index) }));
const WRONG_ITEM = 3;

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
    const { request } = sw.admin;
    await ensureHub(request, 'USD');
    for (const dfsp of DFSPS) {
      const simulator = await startTestDfsp({ name: dfsp.name, urls, serverTls: testServerTls() });
      started.push(simulator);
      simulators.set(dfsp.name, simulator);
      await ensureDfsp(request, { name: dfsp.name, currency: 'USD', netDebitCap: '10000', fundsIn: '5000', endpointBase: simulator.url, jwsPublicKey: jwsKeyPair(dfsp.name).publicKey });
      await registerParty(simulator, { msisdn: dfsp.msisdn, customer: dfsp.customer, currency: 'USD' });
    }
  });
});

after(async () => { await scene?.stop(); });

const payMerchant = () => payRequestToPay({
  request: sw.admin.request, simulators, merchantName: 'payeefsp', merchantMsisdn: msisdnOf('payeefsp'), payerMsisdn: msisdnOf('payerfsp'),
  amount: '20', currency: 'USD', log: (line) => printed.push(line),
});

const payTenInBulk = () => payBulk({
  request: sw.admin.request, simulators, payerName: 'greenbank', payerMsisdn: msisdnOf('greenbank'), payeeName: 'payeefsp',
  items: BULK_ITEMS, currency: 'USD', wrongItem: WRONG_ITEM, log: (line) => printed.push(line),
});

const changes = (result) => result.positions.map(({ participant, change }) => [participant, change]);

/** The table's after is what the admin API reports now. */
async function assertPositionsNow(result) {
  for (const row of result.positions) {
    const now = (await sw.admin.request('GET', `/participants/${row.participant}/positions`)).body.find((position) => position.currency === row.currency);
    assert.equal(String(now.value), row.after, `${row.participant} ${row.currency}`);
  }
}

/** A counter of `component`'s /metrics as { 'label=value,…': n }, its samples' labels sorted by name, the service label left out. */
async function counterOf(component, name) {
  const text = await (await fetch(`${sw.urlOf(component)}/metrics`)).text();
  const samples = {};
  for (const [, labels, value] of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\d+)`, 'gm'))) {
    const key = [...labels.matchAll(/(\w+)="([^"]*)"/g)].filter(([, label]) => label !== 'service').map(([, label, labelValue]) => `${label}=${labelValue}`).sort().join(',');
    samples[key] = Number(value);
  }
  return samples;
}

function assertEveryCallProven() {
  for (const simulator of simulators.values()) {
    assert.deepEqual(simulator.signatureFailures, [], `${simulator.name}: every call verified`);
    assert.ok(simulator.received.every((seen) => seen.clientCommonName === 'Hub'), `${simulator.name}: every call came over the hub's client certificate`);
  }
}

test('the demo\'s merchant-initiated payment: discovery, transaction request RECEIVED, OTP ENTERED, quote naming it, transfer COMMITTED, positions moved', async () => {
  printed.length = 0;
  const result = await payMerchant();
  assert.deepEqual([result.payerFsp, result.merchantFsp, result.transactionRequestState, result.authorization, result.transferState],
    ['payerfsp', 'payeefsp', 'RECEIVED', 'ENTERED', 'COMMITTED']);
  assert.deepEqual(changes(result), [['payerfsp', '20'], ['payeefsp', '-20']]);
  await assertPositionsNow(result);
  const steps = printed.slice(1).map((line) => line.trim().split(' ')[0]);
  assert.deepEqual(steps, ['1.', '2.', '3.', '4.', '5.', '6.', '7.']);
  assert.match(printed[0], /payeefsp asks MSISDN 27710000001 to pay 20 USD/);
  assert.match(printed[1], /27710000001 is Thandi Payer at payerfsp/);
  assert.match(printed[2], /POST \/transactionRequests 20 USD, OTP: payerfsp received it from payeefsp/);
  assert.match(printed[3], /payeefsp told RECEIVED, from payerfsp/);
  assert.match(printed[4], /GET \/authorizations\/.*\?authenticationType=OTP&retriesLeft=2&amount=20&currency=USD: payeefsp asked, from payerfsp/);
  assert.match(printed[5], /payerfsp told ENTERED 123456, from payeefsp, the OTP it sent/);
  assert.match(printed[6], /naming the transaction request: 20 USD/);
  assert.match(printed[7], /payer told COMMITTED \(fulfilment .*\), from payeefsp/);
  // The switch links the merchant's request to its quote and its transfer.
  const row = await sw.admin.db('transaction_request').where({ transaction_request_id: result.transactionRequestId }).first();
  assert.deepEqual([row.payee_fsp, row.payer_fsp, row.quote_id, row.transaction_id], ['payeefsp', 'payerfsp', result.quoteId, result.transferId]);
  const authorization = await sw.admin.db('authorization').where({ transaction_request_id: result.transactionRequestId }).first();
  assert.equal(authorization.state, 'ANSWERED');
  assertEveryCallProven();
});

test('the demo\'s bulk of ten: one bulk quote, one bulk transfer, the wrongly fulfilled item aborts alone, the rest commit, positions moved by what committed', async () => {
  printed.length = 0;
  const result = await payTenInBulk();
  assert.equal(result.bulkTransferState, 'COMPLETED');
  assert.deepEqual(result.results.map((item) => item.state), BULK_ITEMS.map((_, index) => (index === WRONG_ITEM ? 'ABORTED' : 'COMMITTED')));
  assert.equal(result.results[WRONG_ITEM].errorCode, '3100', 'a fulfilment that does not match its condition');
  assert.equal(committedTotal(result.results), '132', '10 + 11 + … + 19 = 145, less item 4\'s 13');
  assert.deepEqual(changes(result), [['greenbank', '132'], ['payeefsp', '-132']]);
  await assertPositionsNow(result);
  assert.match(printed[0], /greenbank pays 10 customers of payeefsp at once/);
  assert.match(printed[1], /1\. bulk quote .*: POST \/bulkQuotes of 10 to payeefsp: 10 quotes, 145 USD in all, from payeefsp/);
  assert.match(printed[2], /2\. bulk transfer .*: POST \/bulkTransfers of 10: each reserved as a single transfer; payeefsp received 10, from greenbank/);
  assert.match(printed[3], /3\. payeefsp answers PUT \/bulkTransfers\/.*: 10 fulfilments, item 4's wrong/);
  assert.match(printed[4], /4\. greenbank told COMPLETED, from Hub, each item's result:/);
  const itemLines = printed.slice(5);
  assert.equal(itemLines.length, 10);
  for (const [index, line] of itemLines.entries()) {
    assert.match(line, index === WRONG_ITEM ? /item {2}4 .* 13 USD to 27710000103: ABORTED 3100/ : new RegExp(`item ${String(index + 1).padStart(2)} .* ${10 + index} USD to ${BULK_ITEMS[index].msisdn}: COMMITTED$`));
  }
  const [bulk] = await sw.admin.db('bulk_transfer').where({ bulk_transfer_id: result.bulkTransferId }).select('state');
  assert.equal(bulk.state, 'COMPLETED');
  assert.equal((await sw.admin.db('bulk_quote').where({ bulk_quote_id: result.bulkQuoteId })).length, 1);
  assertEveryCallProven();
});

test('the quoting handler counts the request-to-pay messages and bulk quotes it relayed by kind, and the bulk handler the bulks and items by state', async () => {
  const quoting = await counterOf('quoting-handler', 'quoting_messages_total');
  // Each run: the merchant's request and the payer's RECEIVED, the payer's ask and the merchant's answer, the bulk quote and its answer.
  for (const kind of ['transactionRequest', 'authorization', 'bulkQuote']) {
    for (const outcome of ['FORWARD_REQUEST', 'FORWARD_ANSWER']) assert.equal(quoting[`kind=${kind},outcome=${outcome}`], 1, `${kind} ${outcome}: ${JSON.stringify(quoting)}`);
  }
  assert.equal(quoting['kind=quote,outcome=FORWARD_REQUEST'], 1, 'the quote naming the transaction request');
  assert.equal(Object.keys(quoting).filter((key) => key.endsWith('outcome=ERROR')).length, 0, 'nothing refused');
  const bulks = await counterOf('bulk', 'bulk_transfers_settled_total');
  // PROCESSING is counted only when the final results come in more than one batch: a bulk that
  // moves ACCEPTED → PROCESSING → COMPLETED in one is counted by the state it ends in.
  const { 'state=PROCESSING': processing = 0, ...ended } = bulks;
  assert.deepEqual(ended, { 'state=ACCEPTED': 1, 'state=COMPLETED': 1 });
  assert.ok(processing <= 1);
  const items = await counterOf('bulk', 'bulk_item_results_total');
  assert.deepEqual(items, { 'result=RESERVED': 10, 'result=COMMITTED': 9, 'result=ABORTED': 1 });
});

test('a second run of each moves the positions again by the same amounts, from where the first left them', async () => {
  for (const pay of [payMerchant, payTenInBulk]) {
    const first = await pay();
    const second = await pay();
    assert.deepEqual(changes(second), changes(first));
    assert.deepEqual(second.positions.map((row) => row.before), first.positions.map((row) => row.after));
  }
});
