// Fuzzes a real switch with Schemathesis and then checks that it survived.
//   node test/fuzz/run.js --seconds 120 [--examples N] [--report-dir DIR] [--only SLICE,...]
// The switch runs as in the integration tests (test/support/switch.js): every component a
// child process on its own database and topic prefix, real Kafka and MariaDB, the admin API
// in this process. Two DFSPs are onboarded in USD with JWS keys and callback endpoints (those
// of currency conversion included), and an FXP with USD and EUR accounts and the USD → EUR
// pair. The time is split between six runs of Schemathesis: the FSPIOP v1.1 document of
// @mojaloop/api-snippets (transfers, quotes, parties, participants; fspiop-spec.js) through
// the proxy (signing-proxy.js) signed as a registered DFSP; the v2.0 document restricted to
// what the switch serves in 2.0 (fxQuotes, fxTransfers, services/FXP, and the 2.0 transfers,
// quotes and parties), signed the same way with version 2.0 stated for each path's resource
// and conversions sent between the payer and the FXP; the v1.1 document with spoiled
// signatures, and as generated (raw headers, no or garbage signatures); then the admin API
// and the ALS admin API from their own route tables (admin-openapi.js) with the read-write
// token; then every query parameter of every operator API, the settlement API and the oracle
// included, is sent twice (repeated-query.js). `--only` runs the named slices alone, sharing
// the whole budget. Pass: no 5xx anywhere (counted by the proxy, which every request goes
// through), each repeated parameter refused with 3100, no request hung, every process
// still the one started, a transfer and a quote still complete with their callbacks, and the
// validity gate (perf/gate.js) afterwards (survival.js). The summary also counts the
// callbacks the fuzzed DFSPs got, by resource and error code: how deep the requests went
// (FUZZ_SAMPLES_PER_CODE: how many descriptions of each code it and the proxies keep, 3).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { createAdminServer } from '../../ledger/admin-api/server.js';
import { createMetrics } from '../../platform/metrics.js';
import { adminHeaders, setUpHub, onboardDfsp } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { startTestDfsp } from '../support/test-dfsp.js';
import { hubKeyFiles, jwsKeyPair } from '../support/jws-keys.js';
import { testClientTlsFor } from '../support/scheme-tls.js';
import { operatorTokens, testConfig } from '../support/environment.js';
import { createAlsAdminServer } from '../../account-lookup/admin/server.js';
import { adminOpenApiDocument, alsAdminOpenApiDocument } from './admin-openapi.js';
import { fuzzedFspiopDocument } from './fspiop-spec.js';
import { startFuzzProxy } from './signing-proxy.js';
import { checkAfterFuzz } from './survival.js';
import { checkRepeatedQueryParameters } from './repeated-query.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const DFSPS = ['payerfsp', 'payeefsp'];
// The FXP of the v2.0 slice: it holds both currencies of its pair, which the payer (USD) converts from.
const FXP = 'fxpfsp';
const CURRENCY_PAIR = Object.freeze({ sourceCurrency: 'USD', targetCurrency: 'EUR' });
const LIVENESS_DFSPS = ['livepayer', 'livepayee'];
// Shares of the time budget; the signed slices get the most because they go deepest.
const SLICES = [
  { name: 'fspiop-signed', share: 0.25, proxy: 'signed', version: '1.1' },
  { name: 'fspiop-v2-signed', share: 0.2, proxy: 'signed', version: '2.0' },
  { name: 'fspiop-tampered', share: 0.1, proxy: 'tampered', version: '1.1' },
  { name: 'fspiop-raw', share: 0.1, proxy: 'raw', version: '1.1' },
  { name: 'admin-api', share: 0.25, operatorApi: 'admin' },
  { name: 'als-admin-api', share: 0.1, operatorApi: 'alsAdmin' },
];

const log = (line) => process.stdout.write(`[fuzz] ${line}\n`);

/** The fuzzed FSPIOP document of each version a slice states, by version. */
function writeFspiopSpecs(directory) {
  const files = {};
  for (const version of new Set(SLICES.filter((slice) => slice.proxy).map((slice) => slice.version))) {
    files[version] = join(directory, `fspiop-v${version}-openapi.json`);
    writeFileSync(files[version], JSON.stringify(fuzzedFspiopDocument(version), null, 2));
  }
  return files;
}

/** The operator APIs' documents, from servers built (not started) over the switch's database. */
function writeOperatorSpecs(sw, directory) {
  const config = testConfig({ PORT: '0', DB_NAME: sw.admin.databaseName }, { operatorApi: true });
  const server = createAdminServer({ db: sw.admin.db, config, logger: pino({ level: 'silent' }), metrics: createMetrics(config), hubPublicKey: hubKeyFiles().publicKey });
  const file = join(directory, 'admin-openapi.json');
  writeFileSync(file, JSON.stringify(adminOpenApiDocument(server.table()), null, 2));
  const alsServer = createAlsAdminServer({ db: sw.admin.db, port: 0, host: '127.0.0.1', operatorAuth: config.operatorAuth, logger: pino({ level: 'silent' }), metrics: createMetrics(config) });
  const alsFile = join(directory, 'als-admin-openapi.json');
  writeFileSync(alsFile, JSON.stringify(alsAdminOpenApiDocument(alsServer.table()), null, 2));
  return { admin: file, alsAdmin: alsFile };
}

/**
 * Onboards `names` as DFSPs with keys and callback endpoints (those of currency conversion
 * included) served by test DFSPs, each with an account in `currency`.
 */
export async function startDfsps(sw, names, currency = 'USD') {
  const urls = { transfers: sw.apiUrl, quotes: sw.urlOf('quoting'), parties: sw.urlOf('account-lookup') };
  const dfsps = {};
  for (const name of names) {
    dfsps[name] = await startTestDfsp({ name, switchUrl: sw.apiUrl, urls });
    await onboardDfsp(sw.admin.request, { name, currency, endpointBase: dfsps[name].url, netDebitCap: '100000', fundsIn: '1000000' });
  }
  return dfsps;
}

/**
 * The FXP the v2.0 slice converts through: a DFSP with accounts in both currencies of
 * CURRENCY_PAIR and that pair registered, so that fx quotes reach it and fx transfers reserve
 * its position (the hub gets accounts in the target currency first).
 */
async function startFxp(sw) {
  const { targetCurrency } = CURRENCY_PAIR;
  await setUpHub(sw.admin.request, targetCurrency);
  const dfsps = await startDfsps(sw, [FXP], CURRENCY_PAIR.sourceCurrency);
  await onboardDfsp(sw.admin.request, { name: FXP, currency: targetCurrency, netDebitCap: '100000', fundsIn: '1000000', jwsPublicKey: null });
  const pair = await sw.admin.request('POST', `/participants/${FXP}/currencyPairs`, CURRENCY_PAIR);
  if (pair.status !== 201) throw new Error(`currency pair of ${FXP}: ${pair.status} ${pair.text}`);
  return dfsps;
}

const CALLBACK_SAMPLES_PER_CODE = Number(process.env.FUZZ_SAMPLES_PER_CODE ?? 3);

/**
 * What the fuzzed DFSPs were sent by the switch: counts by method and resource (`PUT
 * fxTransfers/error`) and by FSPIOP error code, with a few descriptions of each code, to show
 * how deep the fuzzed requests went.
 */
function callbacksOf(dfsps) {
  const byKind = {};
  const byErrorCode = {};
  const samples = {};
  for (const call of Object.values(dfsps).flatMap((dfsp) => dfsp.received)) {
    const segments = call.path.split('?')[0].split('/');
    const kind = `${call.method} ${segments[1]}${segments.at(-1) === 'error' ? '/error' : ''}`;
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    const { errorCode, errorDescription } = call.body?.errorInformation ?? {};
    if (errorCode === undefined) continue;
    byErrorCode[errorCode] = (byErrorCode[errorCode] ?? 0) + 1;
    samples[errorCode] ??= [];
    if (samples[errorCode].length < CALLBACK_SAMPLES_PER_CODE) samples[errorCode].push(`${kind}: ${String(errorDescription).slice(0, 200)}`);
  }
  return { byKind, byErrorCode, samples };
}

/** Every operator API of the switch under test, by the names repeated-query.js uses. */
const operatorApiUrls = (sw) => ({
  admin: sw.admin.baseUrl, settlement: sw.urlOf('settlement-api'), alsAdmin: sw.urlOf('account-lookup-admin'), oracle: sw.oracleUrl,
});

/** Runs one Schemathesis slice; resolves to its exit code. Its output goes to `<dir>/<name>.log`. */
async function runSchemathesis({ name, spec, url, seconds, examples, directory, extraArgs = [] }) {
  const args = [
    'run', spec, '--url', url, '--checks', 'not_a_server_error', '--max-time', String(Math.max(5, Math.round(seconds))),
    '--workers', '2', '--request-timeout', '15', '--continue-on-failure', '--no-color', '--suppress-health-check', 'all',
    '--generation-database', 'none', '--report', 'ndjson', '--report-ndjson-path', join(directory, `${name}.ndjson`),
    ...(examples ? ['--max-examples', String(examples)] : []), ...extraArgs,
  ];
  const venv = process.env.FUZZ_VENV ?? join(ROOT, '.run', 'venv');
  const child = spawn(join(venv, 'bin', 'st'), args, { cwd: directory, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += chunk; });
  child.stderr.on('data', (chunk) => { output += chunk; });
  const [code] = await once(child, 'exit');
  writeFileSync(join(directory, `${name}.log`), output);
  return { code, ...schemathesisOutcome(output) };
}

// Errors of Schemathesis that are about the switch, not about generating data: a request that
// hung, or a connection the server dropped.
const SERVER_SIDE_ERRORS = /Network Error|Timeout Error|Connection (reset|refused|aborted)|Read timed out/i;

/** The failures (checks that failed) and server-side errors in a Schemathesis run's output. */
function schemathesisOutcome(output) {
  const closing = output.split('\n').reverse().find((line) => /=+ .* in [\d.]+s =+/.test(line)) ?? '';
  const failures = Number(closing.match(/(\d+) failures?/)?.[1] ?? 0);
  const serverSideErrors = (output.match(new RegExp(SERVER_SIDE_ERRORS.source, 'gi')) ?? []).length;
  return { failures, serverSideErrors, closing: closing.replace(/=+/g, '').trim() };
}

/** The slices named in `only` (comma-separated; all when absent), their shares scaled to fill the budget. */
function slicesOf(only) {
  const names = only ? only.split(',').map((name) => name.trim()) : SLICES.map((slice) => slice.name);
  const unknown = names.filter((name) => !SLICES.some((slice) => slice.name === name));
  if (unknown.length) throw new Error(`no slice ${unknown.join(', ')}; the slices are ${SLICES.map((slice) => slice.name).join(', ')}`);
  const chosen = SLICES.filter((slice) => names.includes(slice.name));
  const total = chosen.reduce((sum, slice) => sum + slice.share, 0);
  return chosen.map((slice) => ({ ...slice, share: slice.share / total }));
}

async function fuzzSlices({ sw, slices, seconds, examples, directory }) {
  const edges = { transfers: sw.apiUrl, quotes: sw.urlOf('quoting'), accountLookup: sw.urlOf('account-lookup') };
  const signer = (name) => ({ name, privateKey: jwsKeyPair(name).privateKey, tls: testClientTlsFor(sw.apiUrl, name), fxp: name === FXP });
  // The v2.0 slice sends conversions between the payer and the FXP as well.
  const signers = { '1.1': DFSPS.map(signer), '2.0': [...DFSPS, FXP].map(signer) };
  const operatorSpecs = writeOperatorSpecs(sw, directory);
  const operatorUrls = operatorApiUrls(sw);
  const fspiopSpecFiles = writeFspiopSpecs(directory);
  const results = [];
  for (const slice of slices) {
    // The admin API is reached through the proxy too (as it is), so that every slice's answers are counted.
    const proxy = slice.proxy
      ? await startFuzzProxy({ mode: slice.proxy, edges, dfsps: signers[slice.version], version: slice.version, currencyPair: CURRENCY_PAIR })
      : await startFuzzProxy({ mode: 'raw', edges: { all: operatorUrls[slice.operatorApi] } });
    const started = Date.now();
    log(`${slice.name}: ${Math.round(seconds * slice.share)} s`);
    const run = await runSchemathesis({
      name: slice.name, directory, examples, seconds: seconds * slice.share,
      ...(slice.proxy
        ? { spec: fspiopSpecFiles[slice.version], url: proxy.url }
        : { spec: operatorSpecs[slice.operatorApi], url: proxy.url, extraArgs: ['-H', `Authorization: Bearer ${operatorTokens().readWrite}`] }),
    });
    await proxy.close();
    const requests = Object.values(proxy.statusCounts).reduce((sum, count) => sum + count, 0);
    results.push({ slice: slice.name, ...run, seconds: Math.round((Date.now() - started) / 1000), requests, statusCounts: proxy.statusCounts, errorCodeCounts: proxy.errorCodeCounts, errorSamples: proxy.errorSamples, serverErrors: proxy.serverErrors(), findings: proxy.findings });
    log(`${slice.name}: ${requests} requests, HTTP ${JSON.stringify(proxy.statusCounts)}, FSPIOP ${JSON.stringify(proxy.errorCodeCounts)}; Schemathesis: ${run.closing}`);
  }
  return results;
}

async function main() {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '120' }, examples: { type: 'string' }, 'report-dir': { type: 'string' }, only: { type: 'string' } } });
  const seconds = Number(values.seconds);
  const slices = slicesOf(values.only);
  const directory = values['report-dir'] ?? join(ROOT, '.run', 'fuzz', new Date().toISOString().replace(/[:.]/g, '-'));
  mkdirSync(directory, { recursive: true });
  const started = Date.now();
  const sw = await startSwitch();
  let dfsps = {};
  try {
    await setUpHub(sw.admin.request);
    dfsps = { ...await startDfsps(sw, DFSPS), ...await startFxp(sw) };
    const pids = new Map([...sw.processes].map(([key, child]) => [key, child.pid]));
    const results = await fuzzSlices({ sw, slices, seconds, examples: values.examples && Number(values.examples), directory });
    const callbacks = callbacksOf(dfsps);
    log(`callbacks to the fuzzed DFSPs: ${JSON.stringify(callbacks.byKind)}, FSPIOP ${JSON.stringify(callbacks.byErrorCode)}`);
    const repeatedQuery = await checkRepeatedQueryParameters({ urls: operatorApiUrls(sw), headers: adminHeaders('readWrite') });
    log(`repeated query parameters: ${repeatedQuery.length === 0 ? 'every one refused with 3100' : `${repeatedQuery.length} not refused`}`);
    // The admin slice may have deactivated, re-keyed or re-pointed the fuzzed DFSPs, as an
    // operator may: the liveness checks use two DFSPs onboarded after the fuzzing.
    Object.assign(dfsps, await startDfsps(sw, LIVENESS_DFSPS));
    const survival = await checkAfterFuzz({ sw, dfsps, pids });
    const requests = results.reduce((sum, result) => sum + result.requests, 0);
    const verdict = verdictOf(results, [...repeatedQuery.map((problem) => `repeated query parameter: ${problem}`), ...survival.reasons]);
    const summary = { seconds: Math.round((Date.now() - started) / 1000), requests, pass: verdict.length === 0, failures: verdict, results, callbacks, repeatedQuery, survival };
    writeFileSync(join(directory, 'summary.json'), JSON.stringify(summary, null, 2));
    log(`${summary.pass ? 'PASS' : 'FAIL'}: ${requests} requests in ${summary.seconds} s (report: ${directory})`);
    for (const reason of verdict) log(`  - ${reason}`);
    process.exitCode = summary.pass ? 0 : 1;
  } finally {
    await Promise.all(Object.values(dfsps).map((dfsp) => dfsp.close()));
    await sw.stop();
  }
}

/**
 * Why the run failed, or an empty list. Schemathesis's not_a_server_error check also flags
 * the switch's documented 501/2002 for operations it does not serve (its coverage phase tries
 * undeclared methods), so the 5xx verdict is the proxy's, which sees every answer and knows
 * that contract; Schemathesis's own failures are in its log with a curl line for each.
 */
function verdictOf(results, otherReasons) {
  const reasons = [];
  for (const result of results) {
    if (result.serverErrors > result.findings.length) reasons.push(`${result.slice}: ${result.serverErrors} server errors in all`);
    for (const finding of result.findings) reasons.push(`${result.slice}: HTTP ${finding.status} to ${finding.method} ${finding.url} (${finding.answer.slice(0, 160)})`);
    if (result.serverSideErrors > 0) reasons.push(`${result.slice}: ${result.serverSideErrors} hung or dropped requests (see ${result.slice}.log)`);
  }
  return [...reasons, ...otherReasons];
}

main().catch((error) => {
  log(`ERROR ${error.stack}`);
  process.exit(1);
});
