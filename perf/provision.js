// Provisioning for a performance run, idempotent (run it again and nothing doubles): the hub,
// N DFSPs onboarded through the admin API (scripts/lib/onboarding.js), each DFSP's MSISDN
// range bulk-loaded into the built-in oracle (tools/oracle-load.js), and net debit caps and
// funds large enough for the run on top of the positions the DFSPs already hold (a switch
// that stays up accumulates positions run after run: nothing settles them).
//
// DFSP i's callback endpoints point at the simulator process that owns it as payer: port
// `simBase`'s + (i mod simWorkers), path /fsp/<name> (perf/simulators/main.js); the returned
// `payerWorkers` tells k6 which bridge to call for each payer.
//
// Each DFSP gets a JWS key pair in `keysDirectoryFor(jwsAlg)` (made once, then reused): RSA
// 2048 for RS256, P-256 for ES256. Its public key is registered as the DFSP's whole key set,
// so a DFSP that signed with the other algorithm before is switched over. The switch's edges
// cache a DFSP's keys (JWS_KEY_CACHE_TTL_MS) and the notification handler its endpoints
// (ENDPOINT_CACHE_TTL_MS): when either changed, provisioning waits that long before it
// returns, so the run's first requests do not meet the old ones. With `tlsDir` (the scheme's
// certificates, for edges with mutual TLS) each DFSP's client certificate is made there too,
// before the simulators start.
//
// With `conversion` (--conversion) it also provisions currency conversion (handlers/README.md,
// "Currency conversion"): an FXP, perffxp1, holding USD and EUR positions with the pair
// USD → EUR registered, and `conversionPayees` EUR payees, perffspeur1.., whose MSISDN ranges
// (from EUR_MSISDN_BASE) are in the oracle; the returned `conversionPairs` are every USD
// payer with every EUR payee through the FXP. The FXP's and the EUR payees' caps and cover are
// topped up as the payers' are: the FXP's EUR position rises by every conversion payment.
//
// With `iso20022Share` (--iso20022-share S, 0 by default) the first round(S·N) DFSPs,
// perffsp1.., are registered as ISO 20022 DFSPs through the admin API (`PUT
// /participants/{name}` `{ apiType: 'ISO20022' }`, docs/iso20022.md) and the others as FSPIOP
// ones (a DFSP left ISO 20022 by an earlier run is changed back); the switch then sends each
// its own type, and the simulators make them speak it (perf/simulators/iso-dfsp.js). Currency
// conversion and request to pay stay between FSPIOP DFSPs: only FSPIOP payers get conversion
// pairs, and `pairs` name each side's API type (`payerApiType`, `payeeApiType`) for k6.
//   node perf/provision.js --dfsps 4 --msisdns 100000 --transfers 100000 [--sim-base URL] [--sim-workers N]
//     [--jws-alg RS256|ES256] [--load-parties=false] [--conversion] [--conversion-payees 1] [--iso20022-share 0.5]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { adminClient, ensureCurrencyPair, ensureDfsp, ensureHub, standardEndpoints } from '../scripts/lib/onboarding.js';
import { operatorTokensFromEnv } from '../scripts/lib/operator-auth.js';
import { ensureKeyPairFiles } from '../tools/lib/jws-key-files.js';
import { ensureClientCertificate } from '../scripts/lib/scheme-certs.js';
import { API_TYPE } from '../platform/iso20022/media-types.js';

const ROOT = new URL('..', import.meta.url).pathname;
export const MSISDN_BASE = 2_000_000_000;
export const MSISDN_STRIDE = 10_000_000;
// The EUR payees' ranges lie apart from the USD DFSPs', so a run with more USD DFSPs than the
// last never finds an EUR payee's MSISDNs registered to a USD one, nor the other way round.
export const EUR_MSISDN_BASE = 3_000_000_000;
export const FXP_NAME = 'perffxp1';
export const SOURCE_CURRENCY = 'USD';
export const TARGET_CURRENCY = 'EUR';

/** Where the simulated DFSPs' key pairs live: DFSP_JWS_KEYS_DIR (scripts/env.sh) or .run/jws/dfsps. */
export const DFSP_KEYS_DIR = process.env.DFSP_JWS_KEYS_DIR ?? `${ROOT}.run/jws/dfsps`;

/** The signing algorithms the simulated DFSPs can use, with the key type each needs. */
export const JWS_KEY_TYPES = Object.freeze({ RS256: 'rsa', ES256: 'ec' });

/**
 * The directory of the DFSPs' keys for `jwsAlg`: RS256 keeps the RSA pairs where they always
 * were (the chart and earlier runs use them), ES256 has a subdirectory of P-256 pairs.
 */
export function keysDirectoryFor(jwsAlg, base = DFSP_KEYS_DIR) {
  if (!JWS_KEY_TYPES[jwsAlg]) throw new Error(`jwsAlg must be one of ${Object.keys(JWS_KEY_TYPES).join(', ')}, got ${jwsAlg}`);
  return jwsAlg === 'RS256' ? base : join(base, jwsAlg.toLowerCase());
}

export const dfspNames = (count) => Array.from({ length: count }, (_, index) => `perffsp${index + 1}`);

/** The DFSPs of `names` registered as ISO 20022 DFSPs for a share `iso20022Share` of them: the first round(share·N). */
export function isoDfspNames(names, iso20022Share = 0) {
  return names.slice(0, Math.round(iso20022Share * names.length));
}

/**
 * Every ordered pair of distinct DFSPs, equal weights, with the payee's MSISDN range and, in a
 * run with ISO 20022 DFSPs (`isoDfsps`), each side's API type. Without any the pairs are the
 * plain ones the chart's load test also writes; k6 reads a missing type as FSPIOP.
 */
export function allPairs(names, msisdnCount, isoDfsps = []) {
  const apiTypeOf = (name) => (isoDfsps.includes(name) ? API_TYPE.iso20022 : API_TYPE.fspiop);
  const apiTypes = (payer, payee) => (isoDfsps.length > 0 ? { payerApiType: apiTypeOf(payer), payeeApiType: apiTypeOf(payee) } : {});
  const pairs = [];
  names.forEach((payer) => names.forEach((payee, index) => {
    if (payer !== payee) pairs.push({ payer, payee, weight: 1, msisdnFrom: MSISDN_BASE + index * MSISDN_STRIDE, msisdnCount, ...apiTypes(payer, payee) });
  }));
  return pairs;
}

export const conversionPayeeNames = (count) => Array.from({ length: count }, (_, index) => `perffspeur${index + 1}`);

/** Every USD payer with every EUR payee through `fxp`, equal weights, with the payee's MSISDN range. */
export function conversionPairs(payers, payees, fxp, msisdnCount) {
  return payers.flatMap((payer) => payees.map((payee, index) => ({
    payer, payee, fxp, targetCurrency: TARGET_CURRENCY, weight: 1, msisdnFrom: EUR_MSISDN_BASE + index * MSISDN_STRIDE, msisdnCount,
  })));
}

/** The simulator process that owns each DFSP as payer: `{ name: index }`, DFSP i → i mod workers. */
export function payerWorkersOf(names, simWorkers) {
  return Object.fromEntries(names.map((name, index) => [name, index % simWorkers]));
}

/** DFSP `name`'s endpoint base: `simBase` with the port of the process that owns it. */
export function endpointBaseOf(simBase, worker) {
  const url = new URL(simBase);
  url.port = String(Number(url.port) + worker);
  return `${url.origin}`;
}

/**
 * Headroom of net debit cap and liquidity cover each DFSP needs for the run: enough for every
 * transfer of the run to come from one payer, twice over (1,000,000 transfers of 1 spread over
 * the pairs move each DFSP's position by far less).
 */
export function fundsFor({ transfers, amount }) {
  return String(Math.max(1_000_000, Math.ceil(transfers * Number(amount) * 2)));
}

/**
 * What a DFSP still needs for a run of `headroom`, from its current position, net debit cap
 * and liquidity cover (all whole currency units as decimal strings): `{ cap, deposit }`, each
 * undefined when nothing needs to change. The target is the position (when it is a debit)
 * plus the headroom, for the cap and for the cover alike; a shortfall within a tenth of the
 * headroom is left alone (the headroom is twice what a run needs), so that the few units a
 * run leaves on a position do not make every later run deposit them.
 */
export function topUpFor({ position, cap, cover, headroom }) {
  const whole = (text) => BigInt(String(text ?? '0').split('.')[0] || '0');
  const debit = whole(position) > 0n ? whole(position) : 0n;
  const target = debit + whole(headroom);
  const short = (value) => target - whole(value) > whole(headroom) / 10n;
  return {
    cap: short(cap) ? String(target) : undefined,
    deposit: short(cover) ? String(target - whole(cover)) : undefined,
    target: String(target),
  };
}

/** A stable funds-in id for bringing a DFSP's cover up to `target`: provisioning again with the same target deposits once. */
function topUpTransferId(name, currency, target) {
  const hex = createHash('sha256').update(`perf-top-up:${name}:${currency}:${target}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const INITIAL_FUNDS = '1000000';

function expectStatus(result, statuses, step) {
  if (!statuses.includes(result.status)) throw new Error(`${step}: HTTP ${result.status} ${result.text}`);
  return result.body;
}

/** Raises the DFSP's net debit cap and liquidity cover to its position plus `headroom` where they fall short. */
async function topUp(request, { name, currency, headroom, log }) {
  const position = expectStatus(await request('GET', `/participants/${name}/positions?currency=${currency}`), [200], `position of ${name}`).value;
  const limits = expectStatus(await request('GET', `/participants/${name}/limits?currency=${currency}&type=NET_DEBIT_CAP`), [200], `limits of ${name}`);
  const accounts = expectStatus(await request('GET', `/participants/${name}/accounts?currency=${currency}`), [200], `accounts of ${name}`);
  const settlement = accounts.find((account) => account.ledgerAccountType === 'SETTLEMENT');
  // The settlement account holds the deposits as a negative balance (README, funds movements).
  const balance = String(settlement.value);
  const cover = balance.startsWith('-') ? balance.slice(1) : `-${balance}`;
  const needed = topUpFor({ position, cap: limits[0]?.limit.value, cover, headroom });
  if (needed.cap) {
    expectStatus(await request('PUT', `/participants/${name}/limits`, { currency, limit: { type: 'NET_DEBIT_CAP', value: needed.cap } }), [200], `net debit cap of ${name}`);
    log(`${name}: net debit cap raised to ${needed.cap} (position ${position})`);
  }
  if (needed.deposit) {
    expectStatus(await request('POST', `/participants/${name}/accounts/${settlement.id}`, {
      transferId: topUpTransferId(name, currency, needed.target), externalReference: `${name}-perf-top-up`,
      action: 'recordFundsIn', reason: 'Load test top-up', amount: { amount: needed.deposit, currency },
    }), [202], `top-up of ${name}`);
    log(`${name}: ${needed.deposit} ${currency} deposited (cover ${cover}, position ${position})`);
  }
}

/** Whether the DFSP is registered already with other endpoints or another key set than these (caches may hold the old ones). */
async function registrationChanges(request, name, endpointBase, publicKey) {
  const endpoints = await request('GET', `/participants/${name}/endpoints`);
  if (endpoints.status !== 200) return { endpoints: false, keys: false };
  const registered = new Map((endpoints.body ?? []).map(({ type, value }) => [type, value]));
  const keys = await request('GET', `/participants/${name}/jwsKeys`);
  const registeredKeys = keys.status === 200 ? keys.body ?? [] : [];
  const normalise = (pem) => pem.replace(/\s+/g, '');
  return {
    existed: registered.size > 0,
    endpoints: registered.size > 0 && standardEndpoints(endpointBase).some(([type, value]) => registered.get(type) !== value),
    keys: registeredKeys.length > 0 && !(registeredKeys.length === 1 && normalise(registeredKeys[0].publicKey) === normalise(publicKey)),
  };
}

async function loadOracle({ name, from, count, env }) {
  const child = spawn(process.execPath, ['tools/oracle-load.js', '--type', 'MSISDN', '--from', String(from), '--count', String(count), '--fsp', name], {
    cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`oracle load for ${name} failed (${code}): ${output}`);
  return output.trim();
}

// How long the switch may keep a DFSP's old keys and endpoints (platform/config.js defaults,
// or the values this environment gives the switch), plus a second for the request in flight.
const cacheWaitMs = ({ endpoints, keys }) => Math.max(
  endpoints ? Number(process.env.ENDPOINT_CACHE_TTL_MS ?? 60_000) + 1_000 : 0,
  keys ? Number(process.env.JWS_KEY_CACHE_TTL_MS ?? 5_000) + 1_000 : 0,
);

/**
 * Waits until the admin API answers /health. A pod that has just started (the chart's
 * provisioning Job) may be refused for a moment: NetworkPolicy controllers admit a pod only once
 * its IP is in its status, which the kubelet reports a little after the container starts.
 */
async function waitForAdmin(adminUrl, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let failure;
    try {
      if ((await fetch(`${adminUrl}/health`, { signal: AbortSignal.timeout(5_000) })).ok) return;
    } catch (error) {
      failure = error;
    }
    if (Date.now() >= deadline) throw new Error(`the admin API at ${adminUrl} was not healthy within ${timeoutMs / 1000} s`, { cause: failure });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/**
 * Registers DFSP `name` with `apiType` unless it is already (a participant that names none is
 * FSPIOP); returns whether it changed, which the switch's endpoint cache, holding the type
 * beside the endpoints, needs waiting out.
 */
export async function ensureApiType(request, name, apiType) {
  const registered = expectStatus(await request('GET', `/participants/${name}`), [200], `participant ${name}`);
  if ((registered.apiType ?? API_TYPE.fspiop) === apiType) return false;
  expectStatus(await request('PUT', `/participants/${name}`, { apiType }), [200], `API type of ${name}`);
  return true;
}

/**
 * Onboards one simulated DFSP in each of `currencies` (an account set per currency, the
 * endpoints and key with the first), tops each currency up to `headroom`, and returns whether
 * its endpoints or keys changed.
 */
async function ensurePerfDfsp(request, { name, currencies, endpointBase, keysDirectory, jwsAlg, tlsDir, headroom, apiType, log }) {
  const { publicKey } = ensureKeyPairFiles({ privateKeyPath: join(keysDirectory, `${name}.key`), publicKeyPath: join(keysDirectory, `${name}.pem`), type: JWS_KEY_TYPES[jwsAlg] });
  if (tlsDir) ensureClientCertificate(tlsDir, name);
  const changes = await registrationChanges(request, name, endpointBase, publicKey);
  for (const [index, currency] of currencies.entries()) {
    // The first deposit has a fixed id (a second onboarding is a duplicate of it) and so a
    // fixed amount; what a longer run needs beyond it comes from the top-up.
    const registration = index === 0 ? { endpointBase, jwsPublicKey: publicKey } : {};
    await ensureDfsp(request, { name, currency, netDebitCap: INITIAL_FUNDS, fundsIn: INITIAL_FUNDS, ...registration });
    await topUp(request, { name, currency, headroom, log });
  }
  // A DFSP's API type is in the endpoint cache with its endpoints: one registered before that
  // changes type has its cache entry waited out (a new one is in no cache yet).
  if (apiType && await ensureApiType(request, name, apiType)) {
    log(`${name}: registered as ${apiType}`);
    changes.endpoints ||= changes.existed;
  }
  return changes;
}

/**
 * The simulated DFSPs of a run: the USD DFSPs (payers and payees), and with `conversion` the
 * FXP and the EUR payees, each with its currencies, MSISDN range (none for the FXP) and the
 * simulator process its endpoints are on (the USD DFSPs first, so that a payer's process is
 * the one payerWorkersOf names).
 */
function perfDfsps({ dfsps, simWorkers, conversion, conversionPayees }) {
  const usd = dfspNames(dfsps).map((name, index) => ({ name, currencies: [SOURCE_CURRENCY], msisdnFrom: MSISDN_BASE + index * MSISDN_STRIDE }));
  const eur = conversion ? conversionPayeeNames(conversionPayees).map((name, index) => ({ name, currencies: [TARGET_CURRENCY], msisdnFrom: EUR_MSISDN_BASE + index * MSISDN_STRIDE })) : [];
  const fxp = conversion ? [{ name: FXP_NAME, currencies: [SOURCE_CURRENCY, TARGET_CURRENCY] }] : [];
  return [...usd, ...fxp, ...eur].map((dfsp, index) => ({ ...dfsp, worker: index % simWorkers }));
}

export async function provision({
  adminUrl, adminToken = operatorTokensFromEnv().readWrite, simBase, simWorkers = 1, dfsps = 4, msisdns = 1000, transfers = 1000, amount = '1',
  dbEnv = {}, loadParties = true, jwsAlg = 'RS256', keysBase = DFSP_KEYS_DIR, tlsDir, conversion = false, conversionPayees = 1, iso20022Share = 0, log = () => {},
}) {
  await waitForAdmin(adminUrl);
  const request = adminClient(adminUrl, { token: adminToken });
  const names = dfspNames(dfsps);
  const isoDfsps = isoDfspNames(names, iso20022Share);
  const payerWorkers = payerWorkersOf(names, simWorkers);
  const headroom = fundsFor({ transfers, amount });
  const keysDirectory = keysDirectoryFor(jwsAlg, keysBase);
  const changed = { endpoints: false, keys: false };
  const all = perfDfsps({ dfsps, simWorkers, conversion, conversionPayees });
  for (const currency of new Set(all.flatMap((dfsp) => dfsp.currencies))) await ensureHub(request, currency);
  for (const { name, currencies, worker } of all) {
    const endpointBase = `${endpointBaseOf(simBase, worker)}/fsp/${name}`;
    // The USD DFSPs are of the share's types; the FXP and the EUR payees stay as they are (FSPIOP).
    const apiType = names.includes(name) ? (isoDfsps.includes(name) ? API_TYPE.iso20022 : API_TYPE.fspiop) : undefined;
    const changes = await ensurePerfDfsp(request, { name, currencies, endpointBase, keysDirectory, jwsAlg, tlsDir, headroom, apiType, log });
    changed.endpoints ||= changes.endpoints;
    changed.keys ||= changes.keys;
  }
  if (conversion) await ensureCurrencyPair(request, FXP_NAME, [SOURCE_CURRENCY, TARGET_CURRENCY]);
  if (loadParties) {
    for (const { name, msisdnFrom } of all.filter((dfsp) => dfsp.msisdnFrom !== undefined)) {
      log(await loadOracle({ name, from: msisdnFrom, count: msisdns, env: dbEnv }));
    }
  }
  const waitMs = cacheWaitMs(changed);
  if (waitMs > 0) {
    log(`the DFSPs' ${[changed.endpoints && 'endpoints', changed.keys && 'JWS keys'].filter(Boolean).join(' and ')} changed: waiting ${waitMs / 1000} s for the switch's caches`);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
  const fspiopPayers = names.filter((name) => !isoDfsps.includes(name));
  return {
    names, pairs: allPairs(names, msisdns, isoDfsps), payerWorkers, keysDirectory, isoDfsps,
    conversionPairs: conversion ? conversionPairs(fspiopPayers, conversionPayeeNames(conversionPayees), FXP_NAME, msisdns) : [],
    dfspCurrencies: Object.fromEntries(all.map(({ name, currencies }) => [name, currencies])),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: {
    dfsps: { type: 'string', default: '4' }, msisdns: { type: 'string', default: '100000' }, transfers: { type: 'string', default: '100000' },
    'sim-base': { type: 'string', default: 'http://127.0.0.1:7000' }, 'admin-url': { type: 'string', default: process.env.ADMIN_API_URL ?? 'http://127.0.0.1:3001' },
    // One simulator process unless told otherwise: the in-cluster load test's simulators
    // take every DFSP's callbacks on the one port its Service exposes.
    'sim-workers': { type: 'string', default: '1' }, 'jws-alg': { type: 'string', default: 'RS256' },
    // Discovery needs the MSISDNs in the oracle only when it goes through the switch (mode full).
    'load-parties': { type: 'string', default: 'true' },
    conversion: { type: 'boolean', default: false }, 'conversion-payees': { type: 'string', default: '1' }, 'iso20022-share': { type: 'string', default: '0' },
  } });
  const result = await provision({
    adminUrl: values['admin-url'], simBase: values['sim-base'], simWorkers: Number(values['sim-workers']), dfsps: Number(values.dfsps), msisdns: Number(values.msisdns),
    transfers: Number(values.transfers), jwsAlg: values['jws-alg'], loadParties: values['load-parties'] !== 'false',
    conversion: values.conversion, conversionPayees: Number(values['conversion-payees']), iso20022Share: Number(values['iso20022-share']), log: (line) => console.log(line),
  });
  console.log(JSON.stringify({ names: result.names, payerWorkers: result.payerWorkers, conversionPairs: result.conversionPairs, isoDfsps: result.isoDfsps }));
}
