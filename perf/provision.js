// Provisioning for a performance run, idempotent (run it again and nothing doubles): the hub,
// N DFSPs onboarded through the admin API (scripts/lib/onboarding.js, endpoints at the
// simulators' /fsp/<name>), each DFSP's MSISDN range bulk-loaded into the built-in oracle
// (scripts/oracle-load.js), and funds and net debit caps sized for the run. Each DFSP gets a
// JWS key pair in `keysDirectory` (made once, then reused), whose public key is registered
// at onboarding and whose private key the simulators sign with. Returns the DFSP names and
// the weighted payer/payee pairs k6 uses.
//   node perf/provision.js --dfsps 4 --msisdns 100000 --transfers 100000 [--sim-base URL] [--load-parties=false]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { adminClient, ensureDfsp, ensureHub } from '../scripts/lib/onboarding.js';
import { operatorTokensFromEnv } from '../scripts/lib/operator-auth.js';
import { dfspKeyPairFiles } from '../scripts/lib/jws-key-files.js';

const ROOT = new URL('..', import.meta.url).pathname;
export const MSISDN_BASE = 2_000_000_000;
export const MSISDN_STRIDE = 10_000_000;

/** Where the simulated DFSPs' key pairs live: DFSP_JWS_KEYS_DIR (scripts/env.sh) or .run/jws/dfsps. */
export const DFSP_KEYS_DIR = process.env.DFSP_JWS_KEYS_DIR ?? `${ROOT}.run/jws/dfsps`;

export const dfspNames = (count) => Array.from({ length: count }, (_, index) => `perffsp${index + 1}`);

/** Every ordered pair of distinct DFSPs, equal weights, with the payee's MSISDN range. */
export function allPairs(names, msisdnCount) {
  const pairs = [];
  names.forEach((payer) => names.forEach((payee, index) => {
    if (payer !== payee) pairs.push({ payer, payee, weight: 1, msisdnFrom: MSISDN_BASE + index * MSISDN_STRIDE, msisdnCount });
  }));
  return pairs;
}

/** Funds and cap: enough for every transfer of the run to come from one payer, twice over. */
export function fundsFor({ transfers, amount }) {
  return String(Math.max(1_000_000, Math.ceil(transfers * Number(amount) * 2)));
}

async function loadOracle({ name, from, count, env }) {
  const child = spawn(process.execPath, ['scripts/oracle-load.js', '--type', 'MSISDN', '--from', String(from), '--count', String(count), '--fsp', name], {
    cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`oracle load for ${name} failed (${code}): ${output}`);
  return output.trim();
}

export async function provision({
  adminUrl, adminToken = operatorTokensFromEnv().readWrite, simBase, dfsps = 4, msisdns = 1000, transfers = 1000, amount = '1', currency = 'USD',
  dbEnv = {}, loadParties = true, keysDirectory = DFSP_KEYS_DIR, log = () => {},
}) {
  const request = adminClient(adminUrl, { token: adminToken });
  const names = dfspNames(dfsps);
  const funds = fundsFor({ transfers, amount });
  await ensureHub(request, currency);
  for (const name of names) {
    const jwsPublicKey = dfspKeyPairFiles(keysDirectory, name).publicKey;
    await ensureDfsp(request, { name, currency, netDebitCap: funds, fundsIn: funds, endpointBase: `${simBase}/fsp/${name}`, jwsPublicKey });
  }
  if (loadParties) {
    for (const [index, name] of names.entries()) {
      log(await loadOracle({ name, from: MSISDN_BASE + index * MSISDN_STRIDE, count: msisdns, env: dbEnv }));
    }
  }
  return { names, pairs: allPairs(names, msisdns) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: {
    dfsps: { type: 'string', default: '4' }, msisdns: { type: 'string', default: '100000' }, transfers: { type: 'string', default: '100000' },
    'sim-base': { type: 'string', default: 'http://127.0.0.1:7000' }, 'admin-url': { type: 'string', default: process.env.ADMIN_API_URL ?? 'http://127.0.0.1:3001' },
    // Discovery needs the MSISDNs in the oracle only when it goes through the switch (mode full).
    'load-parties': { type: 'string', default: 'true' },
  } });
  const result = await provision({
    adminUrl: values['admin-url'], simBase: values['sim-base'], dfsps: Number(values.dfsps), msisdns: Number(values.msisdns),
    transfers: Number(values.transfers), loadParties: values['load-parties'] !== 'false', log: (line) => console.log(line),
  });
  console.log(JSON.stringify(result.names));
}
