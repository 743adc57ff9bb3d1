// The performance harness's smoke profile end to end, against a switch of its own (fresh
// database and topic prefix): provisioning, the multi-process FSP simulators, k6 driving
// discovery → quote → transfer at a low constant rate for ~25 s, then the validity gate and
// the report. It proves the harness and the gate work; the numbers are in perf/RESULTS.md.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { freshTarget, runPerf } from '../../perf/run.js';


// PERF_SMOKE_MODE (perf/run.js modes): 'full', the default (discovery + quote + transfer
// through the switch), 'quote-transfer' (the bridge answers discovery itself), or 'transfer'
// (only the transfer goes through the switch).
const MODE = process.env.PERF_SMOKE_MODE ?? 'full';
let target;

before(async () => {
  target = await freshTarget(MODE);
});

after(async () => {
  await target?.close();
});

test('smoke profile: every transfer completes, the gate passes, the report is written', { timeout: 110_000 }, async (t) => {
  t.diagnostic(`mode ${MODE}`);
  const lines = [];
  const result = await runPerf(target, { profile: 'smoke', mode: MODE }, (line) => lines.push(line));
  const completed = result.summary.metrics.completed_transactions?.values.count ?? 0;
  // Every iteration k6 started completes; on a busy machine k6 may drop a few iterations
  // (dropped_iterations: no VU free in time), which says nothing about the switch.
  assert.ok(completed >= result.run.transfers * 0.9, lines.join('\n'));
  assert.equal(result.summary.metrics.failed_transactions?.values.count ?? 0, 0, lines.join('\n'));
  assert.ok(result.gate.pass, `gate: ${result.gate.reasons.join('; ')}`);
  for (const file of ['summary.json', 'dashboard.html', 'chart.svg', 'summary.md', 'metrics-api-adapter-0.txt']) {
    assert.ok(existsSync(`${result.dir}/${file}`), `${file} in ${result.dir}`);
  }
  assert.match(readFileSync(`${result.dir}/chart.svg`, 'utf8'), /<polyline/);
});
