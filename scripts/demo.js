// `make demo`: onboards the hub and four demo DFSPs through the admin API (as a scheme
// operator would, with central-ledger's requests), serves the four DFSPs' simulators,
// sends transfers between them through the switch (one of each kind of failure a DFSP meets),
// and prints what each DFSP was told and the positions. Safe to run again.
import { randomUUID } from 'node:crypto';
import { adminClient, ensureDfsp, ensureHub } from './lib/onboarding.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from '../test/support/test-dfsp.js';

const ADMIN_URL = process.env.ADMIN_API_URL ?? `http://127.0.0.1:${process.env.ADMIN_API_PORT ?? 3001}`;
const TRANSFERS_URL = process.env.TRANSFERS_API_URL ?? 'http://127.0.0.1:3000';
const CURRENCY = 'USD';
const DEMO_DFSPS = [
  { name: 'payerfsp', netDebitCap: '10000', fundsIn: '5000', simulatorPort: 4101 },
  { name: 'payeefsp', netDebitCap: '10000', fundsIn: '5000', simulatorPort: 4102 },
  { name: 'greenbank', netDebitCap: '25000', fundsIn: '20000', simulatorPort: 4103 },
  { name: 'mobilemoney', netDebitCap: '2000', fundsIn: '1500', simulatorPort: 4104 },
];

function table(rows) {
  const widths = Object.keys(rows[0]).map((key) => Math.max(key.length, ...rows.map((row) => String(row[key]).length)));
  const line = (values) => values.map((value, index) => String(value).padEnd(widths[index])).join('  ');
  return [line(Object.keys(rows[0])), line(widths.map((width) => '-'.repeat(width))), ...rows.map((row) => line(Object.values(row)))].join('\n');
}

async function onboard(request) {
  console.log(`Onboarding through the admin API at ${ADMIN_URL}\n`);
  await ensureHub(request, CURRENCY);
  console.log(`hub: HUB_RECONCILIATION and HUB_MULTILATERAL_SETTLEMENT accounts in ${CURRENCY}, a default settlement model`);
  for (const dfsp of DEMO_DFSPS) {
    await ensureDfsp(request, { ...dfsp, currency: CURRENCY, endpointBase: `http://127.0.0.1:${dfsp.simulatorPort}` });
    console.log(`${dfsp.name}: participant, net debit cap ${dfsp.netDebitCap}, funds in ${dfsp.fundsIn}, callbacks → http://127.0.0.1:${dfsp.simulatorPort}`);
  }
}

const DEMO_TRANSFERS = [
  { from: 'payerfsp', to: 'payeefsp', amount: '100', note: 'a plain transfer' },
  { from: 'greenbank', to: 'mobilemoney', amount: '250.5', note: 'another pair' },
  { from: 'mobilemoney', to: 'greenbank', amount: '5000', note: 'more than mobilemoney has deposited' },
  { from: 'payerfsp', to: 'payeefsp', amount: '42', payeeBehaviour: 'reject', note: 'the payee rejects it' },
  { from: 'greenbank', to: 'payeefsp', amount: '10', payeeBehaviour: 'reserve', note: 'the payee fulfils with RESERVED and is told the outcome' },
];

/** Sends one transfer as the payer's DFSP would and waits until the payer is told the outcome. */
async function sendTransfer(simulators, { from, to, amount, payeeBehaviour = 'fulfil' }) {
  const payer = simulators.get(from);
  const payee = simulators.get(to);
  payee.behaviour = payeeBehaviour;
  const transferId = randomUUID();
  const expiration = new Date(Date.now() + 30000).toISOString();
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount, currency: CURRENCY, payeeAddress: `g.${to}.msisdn.demo`, expiration });
  const body = { transferId, payerFsp: from, payeeFsp: to, amount: { amount, currency: CURRENCY }, ...ilp, expiration };
  const response = await fetch(`${TRANSFERS_URL}/transfers`, { method: 'POST', headers: fspiopHeaders(from, to), body: JSON.stringify(body) });
  if (response.status !== 202) throw new Error(`POST /transfers answered ${response.status}: ${await response.text()}`);
  const outcome = await payer.waitFor((call) => call.method === 'PUT' && call.path.startsWith(`/transfers/${transferId}`), 20000);
  const patch = payeeBehaviour === 'reserve' ? await payee.waitFor((call) => call.method === 'PATCH' && call.path === `/transfers/${transferId}`, 20000) : null;
  return { transferId, outcome, patch };
}

function describeOutcome({ outcome, patch }) {
  const told = outcome.body.errorInformation
    ? `ABORTED ${outcome.body.errorInformation.errorCode} "${outcome.body.errorInformation.errorDescription}"`
    : `${outcome.body.transferState} (fulfilment ${outcome.body.fulfilment?.slice(0, 10)}…)`;
  return `${told}, from ${outcome.headers['fspiop-source']}${patch ? `; payee PATCHed ${patch.body.transferState}` : ''}`;
}

async function runTransfers() {
  const simulators = new Map();
  for (const dfsp of DEMO_DFSPS) {
    simulators.set(dfsp.name, await startTestDfsp({ name: dfsp.name, switchUrl: TRANSFERS_URL, port: dfsp.simulatorPort }));
  }
  try {
    console.log(`\nTransfers through the switch at ${TRANSFERS_URL} (the DFSP simulators derive ILP fulfilments from their secrets)\n`);
    for (const transfer of DEMO_TRANSFERS) {
      const result = await sendTransfer(simulators, transfer);
      console.log(`${transfer.from} → ${transfer.to} ${transfer.amount} ${CURRENCY} (${transfer.note}):\n    ${result.transferId}: payer told ${describeOutcome(result)}`);
    }
  } finally {
    await Promise.all([...simulators.values()].map((simulator) => simulator.close()));
  }
}

async function main() {
  const request = adminClient(ADMIN_URL);
  await onboard(request);
  await runTransfers();
  const rows = [];
  for (const name of ['Hub', ...DEMO_DFSPS.map((dfsp) => dfsp.name)]) {
    const accounts = (await request('GET', `/participants/${name}/accounts`)).body;
    const limits = name === 'Hub' ? [] : (await request('GET', `/participants/${name}/limits?currency=${CURRENCY}`)).body;
    for (const account of accounts) {
      rows.push({
        participant: name, account: account.id, type: account.ledgerAccountType, currency: account.currency,
        active: account.isActive ? 'yes' : 'no', value: account.value,
        netDebitCap: account.ledgerAccountType === 'POSITION' ? limits[0]?.limit.value ?? '' : '',
      });
    }
  }
  console.log(`\nAccounts and positions (POSITION > 0: owed to the scheme; SETTLEMENT -5000: 5000 deposited, the DFSP's liquidity cover)\n`);
  console.log(table(rows));
}

main().catch((error) => {
  console.error(`demo failed: ${error.message}`);
  process.exitCode = 1;
});
