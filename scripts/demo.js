// `make demo`: onboards the hub and four demo DFSPs in USD through the admin API (as a scheme
// operator would, with central-ledger's requests), an FXP in USD and EUR and a DFSP in EUR,
// serves the six DFSPs' simulators, lets each payee register its customer's MSISDN, then runs
// payments through the switch as a DFSP would, each one discovery → quote → transfer (with
// the failures a DFSP meets), and one with currency conversion (FSPIOP v2.0, lib/demo-
// conversion.js), a merchant-initiated one (request to pay with an OTP, lib/demo-request-to-
// pay.js) and a bulk of ten with one wrong fulfilment (lib/demo-bulk.js), and prints every
// step, what each payer was told, and the positions; then a DFSP registered as speaking ISO
// 20022 (lib/demo-iso20022.js) is paid by an FSPIOP DFSP and pays one back, each side sending
// and receiving its own API type; then it settles USD, and EUR where EUR is settled deferred
// net. Safe to run again.
// Every DFSP signs what it sends with its own key pair (kept in DFSP_JWS_KEYS_DIR and
// registered at onboarding) and checks every callback it gets with the sender's published key.
// When the edges serve HTTPS (TLS_CERT_PATH, set by scripts/env.sh with CLIENT_IDENTITY=
// certificate, or https: URLs given) each DFSP presents its client certificate from the
// scheme's CA in SCHEME_TLS_DIR (made on first use). When the switch presents the hub's client
// certificate on its callbacks (CALLBACK_TLS_CERT_PATH, set by scripts/env.sh with the same
// setting), the DFSPs serve their callback endpoints over HTTPS and require it.
import { adminClient, ensureDfsp, ensureHub } from './lib/onboarding.js';
import { closeAndSettle, deferredNetModel, settleCurrency } from './lib/settlement.js';
import { operatorTokensFromEnv } from './lib/operator-auth.js';
import { startTestDfsp } from '../test/support/test-dfsp.js';
import { describeOutcome, discover, registerParty, requestQuote, transfer } from './lib/demo-dfsp-calls.js';
import { CONVERSION_DFSPS, TARGET_CURRENCY, checkConversion, onboardConversion, payWithConversion } from './lib/demo-conversion.js';
import { payRequestToPay } from './lib/demo-request-to-pay.js';
import { committedTotal, payBulk } from './lib/demo-bulk.js';
import { ISO_DFSP, checkIso20022Payment, onboardIso20022, payAcrossApiTypes } from './lib/demo-iso20022.js';
import { dfspKeyPairFiles } from '../tools/lib/jws-key-files.js';
import { ensureClientCertificate, ensureServerCertificate } from './lib/scheme-certs.js';
import { privateKeyFromPem, publicKeyFromPem } from '../platform/fspiop/jws.js';

// The local runtime's ports (scripts/services.conf), SERVICE_PORT_OFFSET above their defaults.
const OFFSET = Number(process.env.SERVICE_PORT_OFFSET ?? 0);
const EDGE_SCHEME = process.env.TLS_CERT_PATH ? 'https' : 'http';
const ADMIN_URL = process.env.ADMIN_API_URL ?? `http://127.0.0.1:${Number(process.env.ADMIN_API_PORT ?? 3001) + OFFSET}`;
const SETTLEMENT_URL = process.env.SETTLEMENT_API_URL ?? `http://127.0.0.1:${3007 + OFFSET}/v2`;
const TRANSFERS_URL = process.env.TRANSFERS_API_URL ?? `${EDGE_SCHEME}://127.0.0.1:${3000 + OFFSET}`;
const QUOTES_URL = process.env.QUOTES_API_URL ?? `${EDGE_SCHEME}://127.0.0.1:${3002 + OFFSET}`;
const PARTIES_URL = process.env.ACCOUNT_LOOKUP_URL ?? `${EDGE_SCHEME}://127.0.0.1:${4002 + OFFSET}`;
const PORTAL_URL = process.env.PORTAL_URL ?? `http://127.0.0.1:${3010 + OFFSET}`;
const CURRENCY = 'USD';
const KEYS_DIR = process.env.DFSP_JWS_KEYS_DIR ?? new URL('../.run/jws/dfsps', import.meta.url).pathname;
const TLS_DIR = process.env.SCHEME_TLS_DIR ?? new URL('../.run/tls', import.meta.url).pathname;
const HUB_NAME = process.env.HUB_NAME ?? 'Hub';
// The DFSPs require the hub's client certificate where the switch presents it.
const CALLBACK_SCHEME = process.env.CALLBACK_TLS_CERT_PATH ? 'https' : 'http';
// Each DFSP's simulator listens on SIMULATOR_PORT_BASE + its index (4101…4106 by default).
const SIMULATOR_PORT_BASE = Number(process.env.DEMO_SIMULATOR_PORT_BASE ?? 4101 + OFFSET);
// The four DFSPs in USD, then the FXP (USD and EUR) and the DFSP in EUR of the conversion, then
// the DFSP in USD that speaks ISO 20022.
const USD_DFSPS = [
  { name: 'payerfsp', netDebitCap: '10000', fundsIn: '5000', msisdn: '27710000001', customer: 'Thandi Payer' },
  { name: 'payeefsp', netDebitCap: '10000', fundsIn: '5000', msisdn: '27710000002', customer: 'Sipho Payee' },
  { name: 'greenbank', netDebitCap: '25000', fundsIn: '20000', msisdn: '27710000003', customer: 'Amara Green' },
  { name: 'mobilemoney', netDebitCap: '2000', fundsIn: '1500', msisdn: '27710000004', customer: 'Kofi Mobile' },
].map((dfsp) => ({ ...dfsp, currencies: [CURRENCY] }));
const DEMO_DFSPS = [...USD_DFSPS, ...CONVERSION_DFSPS, ISO_DFSP].map((dfsp, index) => ({ ...dfsp, simulatorPort: SIMULATOR_PORT_BASE + index }));
const msisdnOf = (name) => DEMO_DFSPS.find((dfsp) => dfsp.name === name).msisdn;
const CONVERSION_PAYMENT = { payerName: 'payerfsp', payeeMsisdn: msisdnOf('eurobank'), sourceAmount: '50' };
// The merchant-initiated payment: payeefsp's customer (a shop) asks payerfsp's customer to pay.
const REQUEST_TO_PAY = { merchantName: 'payeefsp', merchantMsisdn: msisdnOf('payeefsp'), payerMsisdn: msisdnOf('payerfsp'), amount: '20' };
// The bulk: greenbank pays ten customers of payeefsp 10 to 19 USD, the fourth fulfilled wrongly.
const BULK_PAYMENT = {
  payerName: 'greenbank', payerMsisdn: msisdnOf('greenbank'), payeeName: 'payeefsp', wrongItem: 3,
  items: Array.from({ length: 10 }, (_, index) => ({ msisdn: `277100001${String(index).padStart(2, '0')}`, amount: String(10 + index) })),
};
// The payments across API types: an FSPIOP DFSP pays isobank's customer, and isobank pays an
// FSPIOP DFSP's customer.
const ISO20022_PAYMENTS = [
  { payerName: 'payerfsp', payeeName: ISO_DFSP.name, amount: '15' },
  { payerName: ISO_DFSP.name, payeeName: 'payeefsp', amount: '7.5' },
].map((payment) => ({ ...payment, payerMsisdn: msisdnOf(payment.payerName), payeeMsisdn: msisdnOf(payment.payeeName) }));

function table(rows) {
  const widths = Object.keys(rows[0]).map((key) => Math.max(key.length, ...rows.map((row) => String(row[key]).length)));
  const line = (values) => values.map((value, index) => String(value).padEnd(widths[index])).join('  ');
  return [line(Object.keys(rows[0])), line(widths.map((width) => '-'.repeat(width))), ...rows.map((row) => line(Object.values(row)))].join('\n');
}

async function onboard(request) {
  console.log(`Onboarding through the admin API at ${ADMIN_URL}\n`);
  await ensureHub(request, CURRENCY);
  console.log(`hub: HUB_RECONCILIATION and HUB_MULTILATERAL_SETTLEMENT accounts in ${CURRENCY}, a default settlement model`);
  const endpointBaseOf = (name) => `${CALLBACK_SCHEME}://127.0.0.1:${DEMO_DFSPS.find((dfsp) => dfsp.name === name).simulatorPort}`;
  const jwsPublicKeyOf = (name) => dfspKeyPairFiles(KEYS_DIR, name).publicKey;
  for (const dfsp of USD_DFSPS) {
    await ensureDfsp(request, { ...dfsp, currency: CURRENCY, endpointBase: endpointBaseOf(dfsp.name), jwsPublicKey: jwsPublicKeyOf(dfsp.name) });
    console.log(`${dfsp.name}: participant, net debit cap ${dfsp.netDebitCap}, funds in ${dfsp.fundsIn}, callbacks → ${endpointBaseOf(dfsp.name)}, JWS key ${KEYS_DIR}/${dfsp.name}.pem`);
  }
  await onboardConversion(request, { endpointBaseOf, jwsPublicKeyOf });
  await onboardIso20022(request, { endpointBaseOf, jwsPublicKeyOf });
}

const DEMO_TRANSFERS = [
  { from: 'payerfsp', to: 'payeefsp', amount: '100', note: 'a plain payment' },
  { from: 'greenbank', to: 'mobilemoney', amount: '250.5', note: 'another pair' },
  { from: 'mobilemoney', to: 'greenbank', amount: '5000', note: 'more than mobilemoney has deposited' },
  { from: 'payerfsp', to: 'payeefsp', amount: '42', payeeBehaviour: 'reject', note: 'the payee rejects the transfer' },
  { from: 'greenbank', to: 'payeefsp', amount: '10', payeeBehaviour: 'reserve', note: 'the payee fulfils with RESERVED and is told the outcome' },
  { from: 'payerfsp', to: 'payeefsp', msisdn: '27719999999', amount: '5', note: 'an MSISDN no DFSP has registered' },
];

/** The keys a sender's signatures verify with, as the admin API publishes them (the hub's included). */
function publishedKeys(request) {
  const cache = new Map();
  return (fsp) => {
    if (!cache.has(fsp)) {
      cache.set(fsp, request('GET', `/participants/${encodeURIComponent(fsp)}/jwsKeys`).then((result) => (result.status === 200 ? result.body.map((key) => publicKeyFromPem(key.publicKey)) : [])));
    }
    return cache.get(fsp);
  };
}

/** Each payee registers its customer's MSISDN with the switch, as a DFSP would, in its currency. */
async function registerParties(simulators) {
  for (const dfsp of DEMO_DFSPS.filter((candidate) => candidate.msisdn)) {
    const [currency] = dfsp.currencies;
    await registerParty(simulators.get(dfsp.name), { msisdn: dfsp.msisdn, customer: dfsp.customer, currency, supportedCurrencies: dfsp.currencies });
    console.log(`${dfsp.name} registered MSISDN ${dfsp.msisdn} (${dfsp.customer}, receives in ${currency}) with the switch's oracle`);
  }
}

/** One payment as a payer DFSP makes it: discovery, quote, transfer, each step printed. */
async function pay(simulators, { from, to, amount, msisdn = msisdnOf(to), payeeBehaviour = 'fulfil', note }) {
  const payer = simulators.get(from);
  payer.mark = Date.now();
  console.log(`\n${from} pays ${amount} ${CURRENCY} to MSISDN ${msisdn} (${note})`);
  const found = await discover(payer, msisdn);
  if (found.error) {
    console.log(`  1. discovery: ${found.error.errorCode} "${found.error.errorDescription}": the payment stops here`);
    return;
  }
  console.log(`  1. discovery: ${msisdn} is ${found.party.name} at ${found.party.partyIdInfo.fspId}`);
  const quoted = await requestQuote(payer, { payeeFsp: found.party.partyIdInfo.fspId, payeeMsisdn: msisdn, payerMsisdn: msisdnOf(from), amount, currency: CURRENCY });
  console.log(`  2. quote ${quoted.quoteId.slice(0, 8)}…: ${quoted.transferAmount.amount} ${CURRENCY}, condition ${quoted.condition.slice(0, 10)}… from the payee's secret`);
  const result = await transfer(payer, simulators.get(found.party.partyIdInfo.fspId), quoted, { payeeBehaviour });
  console.log(`  3. transfer ${result.transferId.slice(0, 8)}…: payer told ${describeOutcome(result)}`);
}

/** The merchant-initiated payment, its steps and then its positions before and after. */
async function payMerchant(request, simulators) {
  const result = await payRequestToPay({ request, simulators, currency: CURRENCY, ...REQUEST_TO_PAY });
  console.log(`\n  Positions of ${result.payerFsp} and ${result.merchantFsp} (POSITION > 0: owed to the scheme):\n`);
  console.log(table(result.positions).replace(/^/gm, '  '));
}

/** The bulk, its steps and each item's result, then its positions before and after. */
async function payInBulk(request, simulators) {
  const result = await payBulk({ request, simulators, currency: CURRENCY, ...BULK_PAYMENT });
  const committed = result.results.filter((item) => item.state === 'COMMITTED').length;
  console.log(`\n  Positions of ${BULK_PAYMENT.payerName} and ${BULK_PAYMENT.payeeName}: ${committed} of ${result.results.length} items committed, ${committedTotal(result.results)} ${CURRENCY} moved:\n`);
  console.log(table(result.positions).replace(/^/gm, '  '));
}

/** How the DFSPs' checks of the signatures on what they received went. */
function reportSignatures(simulators) {
  const received = [...simulators.values()].flatMap((simulator) => simulator.received.filter((seen) => seen.rawBody));
  const failures = [...simulators.values()].flatMap((simulator) => simulator.signatureFailures.map((failure) => ({ to: simulator.name, ...failure })));
  // The hub signs what it originates (FSPIOP-Source) and what it converted between API types (FSPIOP-Switch-Signer).
  const fromHub = received.filter((seen) => (seen.headers['fspiop-switch-signer'] ?? seen.headers['fspiop-source']) === HUB_NAME).length;
  console.log(`\nSignatures: ${received.length - failures.length} of ${received.length} callbacks with a body verified with their signer's published key (${fromHub} signed by the hub)`);
  for (const failure of failures) console.log(`  ${failure.to} could not verify ${failure.method} ${failure.path} from ${failure.source}: ${failure.problem}`);
  if (failures.length > 0) throw new Error(`${failures.length} callback(s) did not verify`);
}

/**
 * With mutual TLS on the callbacks every call a DFSP admitted came over a client certificate from
 * the scheme's CA (recording-server.js refuses the handshake otherwise); each must be the hub's.
 */
function reportMutualTls(simulators) {
  if (CALLBACK_SCHEME !== 'https') return;
  const received = [...simulators.values()].flatMap((simulator) => simulator.received);
  const fromHub = received.filter((seen) => seen.clientCommonName === HUB_NAME).length;
  console.log(`Mutual TLS: ${fromHub} of ${received.length} calls to the DFSPs came over the hub's client certificate (CN=${HUB_NAME})`);
  if (fromHub !== received.length) throw new Error(`${received.length - fromHub} call(s) to the DFSPs came over another certificate than the hub's`);
}

/** What the DFSPs serve their callback endpoints with over HTTPS (the local scheme's certificate for 127.0.0.1 and its CA), otherwise none. */
function serverTls() {
  return CALLBACK_SCHEME === 'https' ? ensureServerCertificate(TLS_DIR).tls : undefined;
}

/** A DFSP's client certificate for the edges when they serve HTTPS (`{ ca, cert, key }`), otherwise none. */
function clientTls(name) {
  if (![TRANSFERS_URL, QUOTES_URL, PARTIES_URL].some((url) => url.startsWith('https:'))) return undefined;
  return ensureClientCertificate(TLS_DIR, name).tls;
}

/** The payment with currency conversion, its steps and then its positions before and after. */
async function payConverted(request, simulators) {
  const result = await payWithConversion({ request, simulators, payerMsisdn: msisdnOf(CONVERSION_PAYMENT.payerName), ...CONVERSION_PAYMENT });
  console.log(`\n  Positions of ${CONVERSION_PAYMENT.payerName}, ${result.fxp} and ${result.payeeFsp} in both currencies (POSITION > 0: owed to the scheme):\n`);
  console.log(table(result.positions).replace(/^/gm, '  '));
  console.log(`\nConversion: ${checkConversion(result)}`);
}

/** The payments between the ISO 20022 DFSP and FSPIOP DFSPs, each with its steps, then its positions before and after. */
async function payIso20022(request, simulators) {
  for (const payment of ISO20022_PAYMENTS) {
    const result = await payAcrossApiTypes({ request, simulators, currency: CURRENCY, ...payment });
    console.log(`\n  Positions of ${payment.payerName} and ${payment.payeeName} (POSITION > 0: owed to the scheme):\n`);
    console.log(table(result.positions).replace(/^/gm, '  '));
    console.log(`\nISO 20022: ${checkIso20022Payment(result)}`);
  }
}

async function runPayments(request) {
  const simulators = new Map();
  const urls = { transfers: TRANSFERS_URL, quotes: QUOTES_URL, parties: PARTIES_URL };
  const publicKeysOf = publishedKeys(request);
  const callbackTls = serverTls();
  try {
    // Inside the try: a simulator that cannot start must not leave the others listening.
    for (const dfsp of DEMO_DFSPS) {
      const privateKey = privateKeyFromPem(dfspKeyPairFiles(KEYS_DIR, dfsp.name).privateKey);
      simulators.set(dfsp.name, await startTestDfsp({
        name: dfsp.name, urls, port: dfsp.simulatorPort, privateKey, publicKeysOf, tls: clientTls(dfsp.name), serverTls: callbackTls, fxRates: dfsp.fxRates, apiType: dfsp.apiType,
      }));
    }
    console.log('');
    await registerParties(simulators);
    for (const payment of DEMO_TRANSFERS) await pay(simulators, payment);
    await payConverted(request, simulators);
    await payIso20022(request, simulators);
    await payMerchant(request, simulators);
    await payInBulk(request, simulators);
    reportSignatures(simulators);
    reportMutualTls(simulators);
  } finally {
    await Promise.all([...simulators.values()].map((simulator) => simulator.close()));
  }
}

/** Every account of the hub and the demo DFSPs, with the POSITION accounts' net debit caps. */
async function accountRows(request) {
  const rows = [];
  // Every participant, not only the demo's: a switch that has run other payments (make perf on
  // the same database) settles theirs in the same windows, and each line of a settlement names
  // its DFSP.
  const demoNames = DEMO_DFSPS.map((dfsp) => dfsp.name);
  const others = (await request('GET', '/participants')).body.map((participant) => participant.name)
    .filter((name) => name !== 'Hub' && !demoNames.includes(name));
  for (const name of ['Hub', ...demoNames, ...others]) {
    const accounts = (await request('GET', `/participants/${name}/accounts`)).body;
    const limits = name === 'Hub' ? [] : (await request('GET', `/participants/${name}/limits`)).body;
    for (const account of accounts) {
      rows.push({
        participant: name, account: account.id, type: account.ledgerAccountType, currency: account.currency,
        active: account.isActive ? 'yes' : 'no', value: account.value,
        netDebitCap: account.ledgerAccountType === 'POSITION' ? limits.find((limit) => limit.currency === account.currency)?.limit.value ?? '' : '',
      });
    }
  }
  return rows;
}

/**
 * The scheme settles: the open window is closed and every closed window settled under the
 * deferred net model of USD, then the conversion's EUR under EUR's (where EUR is settled
 * deferred net: a scheme that settles it gross has none, and its sweep settled it already);
 * each DFSP's net amount and its position and settlement account before and after are printed.
 */
async function settle(request, before) {
  const settlementRequest = adminClient(SETTLEMENT_URL, { token: operatorTokensFromEnv().readWrite });
  const modelName = await deferredNetModel(request, CURRENCY);
  const settled = await closeAndSettle(settlementRequest, { modelName, reason: 'demo settlement' });
  if (!settled) console.log('\nSettlement: no committed transfer waits to be settled');
  else await printSettlement(request, before, settled, modelName);
  const targetModelName = await deferredNetModel(request, TARGET_CURRENCY, { ownOnly: true });
  if (!targetModelName) return;
  const settledTarget = await settleCurrency(settlementRequest, { modelName: targetModelName, currency: TARGET_CURRENCY, reason: 'demo settlement' });
  if (settledTarget) await printSettlement(request, before, settledTarget, targetModelName);
}

/** A settlement's accounts: each DFSP's net amount, its position and settlement account before and after. */
async function printSettlement(request, before, settled, modelName) {
  const after = await accountRows(request);
  const valueOf = (rows, id) => rows.find((row) => row.account === id)?.value ?? '';
  const nameOf = (id) => before.find((row) => row.account === id)?.participant ?? String(id);
  const rows = settled.settlement.participants.flatMap((participant) => participant.accounts.flatMap((account) => {
    const settlementAccount = before.find((row) => row.participant === nameOf(account.id) && row.type === 'SETTLEMENT' && row.currency === account.netSettlementAmount.currency);
    return [{
      participant: nameOf(account.id), net: `${account.netSettlementAmount.amount} ${account.netSettlementAmount.currency}`,
      positionBefore: valueOf(before, account.id), positionAfter: valueOf(after, account.id),
      settlementBefore: valueOf(before, settlementAccount?.account), settlementAfter: valueOf(after, settlementAccount?.account),
    }];
  }));
  console.log(`\nSettlement ${settled.settlement.id} (${modelName}) over window(s) ${settled.windowIds.join(', ')}: ${settled.state}`);
  console.log('(net > 0: the DFSP paid out more than it received and owes it; its position falls by the net, its settlement account gives it up)\n');
  console.log(table(rows));
}

async function main() {
  const request = adminClient(ADMIN_URL, { token: operatorTokensFromEnv().readWrite });
  await onboard(request);
  await runPayments(request);
  const rows = await accountRows(request);
  console.log(`\nAccounts and positions (POSITION > 0: owed to the scheme; SETTLEMENT -5000: 5000 deposited, the DFSP's liquidity cover)\n`);
  console.log(table(rows));
  await settle(request, rows);
  printPortal();
}

/** Where the operators' portal is, and the token to sign in with (the local runtime's own). */
function printPortal() {
  const tokens = operatorTokensFromEnv();
  console.log(`\nPortal: ${PORTAL_URL}/ (open it in a browser on this machine)`);
  console.log(`  sign in with the read-write token: ${tokens.readWrite ?? '(any: operator authentication is off)'}`);
  if (tokens.readOnly) console.log(`  or the read-only token, which sees and cannot act: ${tokens.readOnly}`);
}

main().catch((error) => {
  console.error(`demo failed: ${error.message}`);
  process.exitCode = 1;
});
