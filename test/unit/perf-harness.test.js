// The load harness's pure parts: which simulator process owns a DFSP, how much a DFSP's cap
// and cover are raised for a run, which k6 lines are kept, the report's windows and latency
// histogram read from a k6 CSV, CPU ms per iteration, RSS over time, and the rate search's
// verdicts and stopping rule, and which JWS verification the measured switch's edges ask for.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpointBaseOf, keysDirectoryFor, payerWorkersOf, topUpFor } from '../../perf/provision.js';
import { jwsVerificationOf, k6OutputFilter, localTarget } from '../../perf/run.js';
import { binOf, cpuRows, failedIterations, histogramQuantile, overTime, paidIterations, readWindows, rssRows, windowSeries } from '../../perf/report.js';
import { byComponent, rateFigures, shouldContinue } from '../../perf/rate-search.js';

const HEADER = 'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,scenario,service,status,subproto,tls_version,url,extra_tags,metadata';

test('DFSP i belongs to simulator process i mod workers, whose port its endpoints name', () => {
  assert.deepEqual(payerWorkersOf(['a', 'b', 'c', 'd'], 2), { a: 0, b: 1, c: 0, d: 1 });
  assert.deepEqual(payerWorkersOf(['a', 'b'], 1), { a: 0, b: 0 });
  assert.equal(endpointBaseOf('http://127.0.0.1:7000', 1), 'http://127.0.0.1:7001');
  assert.equal(endpointBaseOf('http://sims:7000', 0), 'http://sims:7000');
});

test('RS256 keys stay where they were; ES256 keys have a directory of their own; other algorithms are refused', () => {
  assert.equal(keysDirectoryFor('RS256', '/keys'), '/keys');
  assert.equal(keysDirectoryFor('ES256', '/keys'), '/keys/es256');
  assert.throws(() => keysDirectoryFor('HS256', '/keys'), /jwsAlg/);
});

test('cap and cover are raised to the debit position plus the headroom, and only when short', () => {
  assert.deepEqual(topUpFor({ position: '150000.0000', cap: '1000000', cover: '1000000.0000', headroom: '1000000' }), { cap: '1150000', deposit: '150000', target: '1150000' });
  // A few units left on a position by earlier runs are within the slack: nothing changes.
  assert.deepEqual(topUpFor({ position: '12', cap: '1000000', cover: '1000000', headroom: '1000000' }), { cap: undefined, deposit: undefined, target: '1000012' });
  // A DFSP that is owed money (negative position) needs no more than the headroom.
  assert.deepEqual(topUpFor({ position: '-300', cap: '2000000', cover: '2000000', headroom: '2000000' }), { cap: undefined, deposit: undefined, target: '2000000' });
  // The soak's 2,000,000 over a DFSP onboarded with 1,000,000.
  assert.deepEqual(topUpFor({ position: '0', cap: '1000000', cover: '1000000', headroom: '2000000' }), { cap: '2000000', deposit: '1000000', target: '2000000' });
});

test('only the header and the kept metrics pass the k6 output filter, across chunk boundaries', () => {
  const kept = [];
  const other = [];
  const filter = k6OutputFilter((line) => kept.push(line), (line) => other.push(line));
  const text = `${HEADER}\nhttp_req_duration,1,5.0,,\ne2e_time,1,250.5,,\ncompleted_transactions,1,1,,\nvus,1,3,,\nfailed_transactions,2,1,,,phase=quote\nsomething else\n`;
  filter.push(text.slice(0, 70));
  filter.push(text.slice(70, 123));
  filter.push(text.slice(123));
  filter.end();
  assert.deepEqual(kept, [HEADER, 'e2e_time,1,250.5,,', 'completed_transactions,1,1,,', 'failed_transactions,2,1,,,phase=quote']);
  assert.deepEqual(other, ['something else']);
});

test('a histogram quantile is within one percent of the exact one', () => {
  const values = Array.from({ length: 1000 }, (_, index) => 10 + index * 3.7);
  const histogram = new Map();
  for (const value of values) histogram.set(binOf(value), (histogram.get(binOf(value)) ?? 0) + 1);
  for (const q of [0.5, 0.95, 0.99]) {
    const exact = values[Math.floor(q * values.length)];
    assert.ok(Math.abs(histogramQuantile(histogram, q) - exact) / exact < 0.01, `q ${q}: ${histogramQuantile(histogram, q)} vs ${exact}`);
  }
  assert.equal(histogramQuantile(new Map(), 0.95), null);
});

test('windows from a k6 CSV: rates, failures, empty windows as zeros, latency per window and over time', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'perf-windows-'));
  const lines = [HEADER];
  const start = 1_800_000_000;
  for (let second = 0; second < 30; second += 1) {
    if (second >= 10 && second < 20) continue; // an outage: nothing completes for 10 s
    for (let index = 0; index < 5; index += 1) {
      lines.push(`e2e_time,${start + second},${second < 10 ? 200 : 800},,,,,,,,,transfers,,,,,,,`, `completed_transactions,${start + second},1.000000,,,,,,,,,transfers,,,,,,,`);
    }
  }
  lines.push(`failed_transactions,${start + 25},1.000000,,,,,,,,,transfers,,,,,,phase=transfer,`, `dropped_iterations,${start + 26},2.000000,,,,,,,,,transfers,,,,,,,`);
  writeFileSync(join(dir, 'k6.csv'), `${lines.join('\n')}\n`);
  const windows = await readWindows(join(dir, 'k6.csv'), 10);
  const series = windowSeries(windows, 10);
  assert.deepEqual(series.map((point) => point.t), [0, 10, 20]);
  assert.deepEqual(series.map((point) => point.tps), [5, 0, 5]);
  assert.deepEqual(series.map((point) => point.failed), [0, 0, 0.1]);
  assert.deepEqual(series.map((point) => point.dropped), [0, 0, 0.2]);
  assert.equal(series[1].p95, null);
  assert.ok(Math.abs(series[0].p95 - 200) < 2 && Math.abs(series[2].p95 - 800) < 8, JSON.stringify(series));
  const stretches = overTime(windows, 10, 2);
  assert.deepEqual(stretches.map((row) => [row.fromS, row.toS]), [[0, 20], [20, 30]]);
  assert.equal(stretches[0].tps, 2.5);
});

test('CPU ms per iteration per component and in total; RSS first, min, max and last', () => {
  const rows = cpuRows({ cpu: { prepare: 40, kafka: 60 }, cpuSeconds: { prepare: 12, kafka: 18 }, completed: 6000 });
  assert.ok(rows.includes('| prepare | 40 | 12.0 | 2.00 |'), rows.join('\n'));
  assert.ok(rows.includes('| **total** | 100 | 30.0 | 5.00 |'), rows.join('\n'));
  const mb = 1024 * 1024;
  const rss = rssRows([{ at: 0, bytes: { k6: 50 * mb } }, { at: 10_000, bytes: { k6: 80 * mb } }, { at: 20_000, bytes: { k6: 70 * mb } }]);
  assert.ok(rss.includes('| k6 | 50 | 50 | 80 | 70 |'), rss.join('\n'));
});

test('the rate search sums replicas, judges a rate by success, p95 and dropped iterations, and stops after the first failure', () => {
  assert.deepEqual(byComponent({ 'api-adapter-0': 1, 'api-adapter-1': 2, kafka: 4, 'account-lookup-admin-0': 1 }), { 'api-adapter': 3, kafka: 4, 'account-lookup-admin': 1 });
  const summary = (completed, failed, dropped, p95) => ({ metrics: {
    completed_transactions: { values: { count: completed } }, failed_transactions: { values: { count: failed } },
    dropped_iterations: { values: { count: dropped } }, e2e_time: { values: { med: 300, 'p(95)': p95, 'p(99)': p95 + 100 } },
  } });
  const good = rateFigures({ tps: 100, seconds: 60, summary: summary(6000, 0, 0, 700), cpuSeconds: { 'prepare-0': 30, k6: 6 }, gatePass: true });
  assert.equal(good.pass, true);
  assert.equal(good.achieved, 100);
  assert.equal(good.cpuMs.prepare, 5);
  assert.equal(good.cpuMs.position, null);
  assert.equal(good.totalCpuMs, 6);
  // A warm-up's payments cost CPU inside the sampled run but are not in the rate or latencies.
  const warmedUp = summary(6000, 0, 0, 700);
  warmedUp.metrics.warmup_completed = { values: { count: 1500 } };
  const afterWarmup = rateFigures({ tps: 100, seconds: 60, summary: warmedUp, cpuSeconds: { 'prepare-0': 30 }, gatePass: true });
  assert.equal(afterWarmup.achieved, 100);
  assert.equal(afterWarmup.cpuMs.prepare, 4);
  assert.equal(rateFigures({ tps: 100, seconds: 60, summary: summary(5999, 1, 0, 700), cpuSeconds: {}, gatePass: true }).pass, false);
  assert.equal(rateFigures({ tps: 100, seconds: 60, summary: summary(6000, 0, 0, 1000), cpuSeconds: {}, gatePass: true }).pass, false);
  assert.equal(rateFigures({ tps: 100, seconds: 60, summary: summary(5900, 0, 100, 700), cpuSeconds: {}, gatePass: true }).pass, false);
  assert.equal(shouldContinue([{ pass: true }, { pass: true }], 0), true);
  assert.equal(shouldContinue([{ pass: true }, { pass: false }], 0), false);
  assert.equal(shouldContinue([{ pass: false }], 1), true);
  assert.equal(shouldContinue([{ pass: false }, { pass: false }], 1), false);
});

test('the gate accounts for the warm-up: paid and failed iterations include its counts', () => {
  const counts = (entries) => ({ metrics: Object.fromEntries(entries.map(([name, count]) => [name, { values: { count } }])) });
  const summary = counts([['completed_transactions', 6000], ['warmup_completed', 940], ['failed_transactions', 3], ['warmup_failed', 2]]);
  assert.equal(paidIterations(summary), 6940);
  assert.equal(failedIterations(summary), 5);
  assert.equal(failedIterations(counts([['completed_transactions', 10]])), 0);
});

test('the JWS verification a run reports is read from the process that hosts the api-adapter, in either profile', async (t) => {
  const spawnWith = async (env) => {
    const child = spawn('sleep', ['30'], { env: { PATH: process.env.PATH, ...env } });
    t.after(() => child.kill());
    await once(child, 'spawn');
    return child.pid;
  };
  const edges = await spawnWith({ JWS_VERIFICATION: 'optional' });
  const position = await spawnWith({ JWS_VERIFICATION: 'off' });
  // `make up`'s compact profile, as its PID files say: the api-adapter a member of `edges`.
  const runDir = mkdtempSync(join(tmpdir(), 'run-dir-'));
  mkdirSync(join(runDir, 'pids'));
  writeFileSync(join(runDir, 'pids', 'ledger-handlers-0.pid'), `${position}\n`);
  writeFileSync(join(runDir, 'pids', 'edges-0.pid'), `${edges}\n`);
  Object.assign(process.env, { RUN_DIR: runDir, DB_PASSWORD: process.env.DB_PASSWORD ?? 'never-used' });
  const local = await localTarget();
  t.after(() => local.close());
  assert.equal(local.profile, 'compact');
  assert.equal(jwsVerificationOf(local), 'optional');
  // A fresh switch of the separate profile: one process per component and replica.
  const separate = { members: new Map([['position-0', ['position']], ['api-adapter-0', ['api-adapter']]]), processes: () => ({ 'position-0': [position], 'api-adapter-0': [edges] }) };
  assert.equal(jwsVerificationOf(separate), 'optional');
  // Unset means the default, required; a process that cannot be read is reported as unknown.
  const unset = await spawnWith({});
  assert.equal(jwsVerificationOf({ members: new Map([['edges', ['api-adapter']]]), processes: () => ({ edges: [unset] }) }), 'required');
  assert.equal(jwsVerificationOf({ members: new Map([['edges', ['quoting']]]), processes: () => ({ edges: [unset] }) }), 'unknown');
});
