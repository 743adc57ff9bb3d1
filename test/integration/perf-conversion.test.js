// The performance harness with currency conversion, against a switch of its own (fresh
// database and topic prefix): provisioning with an FXP (USD and EUR, the pair USD → EUR) and
// an EUR payee, the multi-process FSP simulators, and k6 paying a share of its iterations
// across currencies (discovery → FXP discovery → fx quote → quote → fx transfer → transfer,
// API v2.0) beside plain USD payments, for ~15 s. It proves the conversion payments complete,
// that each committed both its conversion and its payment, and that they moved exactly the
// FXP's USD and EUR positions and the EUR payee's, and that the gate passes on every payment.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { freshTarget, runPerf } from '../../perf/run.js';
import { adminClient } from '../../scripts/lib/onboarding.js';
import { FXP_NAME, conversionPayeeNames, dfspNames, provision } from '../../perf/provision.js';
import { convertAmount } from '../../perf/simulators/fxp.js';
import { formatAmount, parseAmount } from '../../ledger/domain/money.js';

const SHARE = 0.3;
// PERF_CONVERSION_MODE (perf/run.js modes): 'full', the default, or 'quote-transfer' or
// 'transfer', where the bridge answers discovery (and the quotes, the FXP's terms included) itself.
const MODE = process.env.PERF_CONVERSION_MODE ?? 'full';
let target;

before(async () => {
  target = await freshTarget(MODE);
});

after(async () => {
  await target?.close();
});

/** `{ currency: value }` of a DFSP's positions, as decimal strings. */
async function positionsOf(request, name) {
  const result = await request('GET', `/participants/${name}/positions`);
  assert.equal(result.status, 200, result.text);
  return Object.fromEntries(result.body.map(({ currency, value }) => [currency, formatAmount(parseAmount(String(value), { allowNegative: true }))]));
}

const times = (amount, count) => formatAmount(parseAmount(amount) * BigInt(count));
const negated = (amount) => formatAmount(-parseAmount(amount));

test('a conversion share: conversion payments complete beside plain ones, commit conversion and payment, and move USD and EUR exactly', { timeout: 150_000 }, async (t) => {
  const lines = [];
  const result = await runPerf(target, { profile: 'smoke', mode: MODE, transfers: 150, conversionShare: SHARE }, (line) => lines.push(line));
  const metrics = result.summary.metrics;
  const count = (name) => metrics[name]?.values.count ?? 0;
  const conversions = count('conversion_completed');
  const plain = count('completed_transactions');
  t.diagnostic(`mode ${MODE}, plain ${plain}, conversions ${conversions}`);
  // Every iteration k6 started completes; on a busy machine k6 may drop some (no VU free in
  // time: dropped_iterations), which says nothing about the switch.
  assert.equal(count('failed_transactions') + count('conversion_failed'), 0, lines.join('\n'));
  assert.ok(plain + conversions + count('dropped_iterations') >= result.run.transfers - 1, lines.join('\n'));
  assert.ok(conversions >= result.run.transfers * SHARE * 0.3, `${conversions} conversion payments of ${result.run.transfers}\n${lines.join('\n')}`);
  assert.ok(plain >= result.run.transfers * (1 - SHARE) * 0.3, `${plain} plain payments of ${result.run.transfers}`);
  assert.ok(metrics.conversion_e2e_time?.values['p(95)'] > 0, 'the conversion payments are timed');
  assert.match(lines.join('\n'), new RegExp(`completed=${plain} .* conversion_completed=${conversions} `), 'the summary line counts both kinds');
  assert.match(readFileSync(`${result.dir}/summary.md`, 'utf8'), new RegExp(`${conversions} completed, 0 failed[^]*\\| conversion_e2e_time \\| \\d+`), 'the report shows them');
  assert.equal(result.payerRetries.conversionsCompleted, conversions, 'the payers completed as many conversion payments as k6 counted');
  assert.deepEqual(result.payerRetries.fxPatches, { COMMITTED: conversions }, 'the FXP was told of each conversion\'s commit, and of nothing else');
  // The gate counts every payment, a conversion payment's conversion apart, and its Kafka
  // counts expect the conversions' messages.
  assert.ok(result.gate.pass, `gate: ${result.gate.reasons.join('; ')}`);
  assert.equal(result.gate.details.states.COMMITTED?.n, plain + conversions, 'the gate counts plain and conversion payments as completed');

  const runIds = `__${result.runTag}-%`;
  const rows = await target.db('transfer').where('transfer_id', 'like', runIds).select('kind', 'state', 'currency').count({ n: '*' }).groupBy('kind', 'state', 'currency');
  const byKind = Object.fromEntries(rows.map((row) => [`${row.kind} ${row.state} ${row.currency}`, Number(row.n)]));
  assert.deepEqual(byKind, { 'PAYMENT COMMITTED USD': plain, 'PAYMENT COMMITTED EUR': conversions, 'FX_TRANSFER COMMITTED USD': conversions },
    'every plain payment committed in USD, every conversion payment in EUR with its conversion in USD');
  const [{ n: linked }] = await target.db('transfer as c').join('transfer as p', 'p.transfer_id', 'c.determining_transfer_id')
    .where('c.kind', 'FX_TRANSFER').where('c.transfer_id', 'like', runIds).where('p.commit_request_id', target.db.ref('c.transfer_id')).count({ n: '*' });
  assert.equal(Number(linked), conversions, 'each conversion and its payment name each other');

  // A fresh switch: the FXP and the EUR payee hold only what this run's conversions moved.
  const request = adminClient(target.adminUrl, { token: target.adminToken });
  const targetAmount = convertAmount('1', '0.9');
  assert.deepEqual(await positionsOf(request, FXP_NAME), { USD: negated(times('1', conversions)), EUR: times(targetAmount, conversions) },
    'the FXP received the source amounts in USD and paid the target amounts in EUR');
  assert.deepEqual(await positionsOf(request, 'perffspeur1'), { EUR: negated(times(targetAmount, conversions)) }, 'the EUR payee received every target amount');
  let usdPayers = 0n;
  for (const name of dfspNames(result.run.dfsps)) usdPayers += parseAmount((await positionsOf(request, name)).USD, { allowNegative: true });
  assert.equal(formatAmount(usdPayers), times('1', conversions), 'the USD DFSPs together paid out exactly the conversions\' source amounts');

  // Provisioning again as the run did changes nothing: no second deposit, pair or account.
  const names = [...dfspNames(result.run.dfsps), FXP_NAME, ...conversionPayeeNames(1)];
  const accountsOf = async () => Promise.all(names.map(async (name) => (await request('GET', `/participants/${name}/accounts`)).body));
  const accounts = await accountsOf();
  await provision({
    adminUrl: target.adminUrl, adminToken: target.adminToken, simBase: `http://127.0.0.1:${result.simPort}`, simWorkers: result.run.simWorkers, dfsps: result.run.dfsps,
    msisdns: result.run.msisdns, transfers: result.run.transfers, dbEnv: target.dbEnv, jwsAlg: result.run.jwsAlg, tlsDir: target.tlsDir, conversion: true,
  });
  assert.deepEqual(await accountsOf(), accounts, 'provisioning again moved nothing');
  assert.deepEqual((await request('GET', `/participants/${FXP_NAME}/currencyPairs`)).body.map(({ sourceCurrency, targetCurrency }) => `${sourceCurrency}/${targetCurrency}`), ['USD/EUR']);
});
