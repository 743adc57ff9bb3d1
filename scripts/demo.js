// `make demo`: onboards the hub and four demo DFSPs through the admin API (as a scheme
// operator would, with central-ledger's requests) and prints their accounts and positions.
// Safe to run again: onboarding is idempotent.
import { adminClient, ensureDfsp, ensureHub } from './lib/onboarding.js';

const ADMIN_URL = process.env.ADMIN_API_URL ?? `http://127.0.0.1:${process.env.ADMIN_API_PORT ?? 3001}`;
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

async function main() {
  const request = adminClient(ADMIN_URL);
  console.log(`Onboarding through the admin API at ${ADMIN_URL}\n`);
  await ensureHub(request, CURRENCY);
  console.log(`hub: HUB_RECONCILIATION and HUB_MULTILATERAL_SETTLEMENT accounts in ${CURRENCY}, a default settlement model`);
  for (const dfsp of DEMO_DFSPS) {
    await ensureDfsp(request, { ...dfsp, currency: CURRENCY, endpointBase: `http://127.0.0.1:${dfsp.simulatorPort}` });
    console.log(`${dfsp.name}: participant, net debit cap ${dfsp.netDebitCap}, funds in ${dfsp.fundsIn}, callbacks → http://127.0.0.1:${dfsp.simulatorPort}`);
  }
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
  console.log(`\nAccounts and positions (a SETTLEMENT value of -5000 is 5000 deposited: the DFSP's liquidity cover)\n`);
  console.log(table(rows));
}

main().catch((error) => {
  console.error(`demo failed: ${error.message}`);
  process.exitCode = 1;
});
