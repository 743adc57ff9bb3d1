// A rate search: one run per rate, back to back, against the switch `make up` runs (or, with
// --fresh, one switch of its own for all of them), each with its gate, and one Markdown row
// per rate: achieved rate, success, dropped iterations, e2e p50/p95/p99 and CPU ms per
// iteration of each component. It stops after the first rate that fails (success under
// 99.99 %, e2e p95 of 1 s or more, or more than 1 % of the iterations dropped), or runs
// --beyond more rates past it. The rows name the JWS setting they were measured with: the
// DFSPs' signing (--jws-alg) and the switch's JWS_VERIFICATION, read from the api-adapter's
// environment unless --jws-verification says it.
//   node perf/rate-search.js --rates 150,200,250,300 --seconds 60 [--mode full] [--jws-alg ES256|RS256|none]
//     [--jws-verification required|off] [--beyond 1] [--sim-workers 2] [--fresh [--switch-profile separate|compact]]
// The CPU columns are the switch's processes: each component, or in the compact profile each host.
// Each run's report is in perf/results/<run>/; the table and the runs' output in
// perf/results/rate-search-<time>/.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { paidIterations } from './report.js';
import { freshTarget, localTarget, runPerf } from './run.js';

const ROOT = new URL('..', import.meta.url).pathname;

// The processes of the table, in this order, for each switch profile (the compact profile's
// hosts: scripts/services-compact.conf); every other process counts in the total.
const AROUND_THE_SWITCH = ['kafka', 'mariadb', 'simulators', 'k6'];
export const COLUMNS = Object.freeze({
  separate: ['api-adapter', 'prepare', 'position', 'fulfil', 'notification', 'quoting', 'quoting-handler', 'account-lookup', ...AROUND_THE_SWITCH],
  compact: ['edges', 'ledger-handlers', 'callbacks-quotes', 'directory-admin', ...AROUND_THE_SWITCH],
});

export const PASS_RULE = Object.freeze({ successMin: 0.9999, p95MaxMs: 1000, droppedMaxShare: 0.01 });

/** CPU seconds per component with replicas summed (api-adapter-0 and api-adapter-1 are api-adapter). */
export function byComponent(cpuSeconds) {
  const totals = {};
  for (const [name, seconds] of Object.entries(cpuSeconds)) {
    const component = name.replace(/-\d+$/, '');
    totals[component] = (totals[component] ?? 0) + seconds;
  }
  return totals;
}

/** One rate's figures from a run's k6 summary and resources. */
export function rateFigures({ tps, seconds, summary, cpuSeconds, gatePass, columns = COLUMNS.separate }) {
  const metric = (name) => summary.metrics[name]?.values ?? {};
  const completed = metric('completed_transactions').count ?? 0;
  const failed = metric('failed_transactions').count ?? 0;
  const dropped = metric('dropped_iterations').count ?? 0;
  const e2e = metric('e2e_time');
  const success = completed + failed > 0 ? completed / (completed + failed) : 0;
  const components = byComponent(cpuSeconds);
  const paid = paidIterations(summary);
  const msPerIteration = (cpu) => (paid > 0 ? (cpu * 1000) / paid : null);
  const figures = {
    tps, achieved: completed / seconds, success, dropped, droppedShare: dropped / (tps * seconds), p50: e2e.med, p95: e2e['p(95)'], p99: e2e['p(99)'], gatePass,
    cpuMs: Object.fromEntries(columns.map((name) => [name, components[name] === undefined ? null : msPerIteration(components[name])])),
    totalCpuMs: msPerIteration(Object.values(components).reduce((sum, cpu) => sum + cpu, 0)),
  };
  figures.pass = success >= PASS_RULE.successMin && (figures.p95 ?? Infinity) < PASS_RULE.p95MaxMs && figures.droppedShare <= PASS_RULE.droppedMaxShare;
  return figures;
}

const fixed = (value, digits = 0) => (value === null || value === undefined ? '—' : value.toFixed(digits));

export function tableHeader(columns = COLUMNS.separate) {
  return [`| target/s | achieved/s | success % | dropped | e2e p50 ms | p95 ms | p99 ms | verdict | gate | ${columns.join(' | ')} | total |`,
    `|${'---|'.repeat(9 + columns.length + 1)}`];
}

/** The row of one rate; the CPU columns are ms per completed iteration. */
export function tableRow(figures) {
  return `| ${figures.tps} | ${fixed(figures.achieved, 1)} | ${fixed(figures.success * 100, 2)} | ${figures.dropped} | ${fixed(figures.p50)} | ${fixed(figures.p95)} | ${fixed(figures.p99)} `
    + `| ${figures.pass ? 'pass' : 'FAIL'} | ${figures.gatePass ? 'PASS' : 'FAIL'} | ${Object.values(figures.cpuMs).map((ms) => fixed(ms, 2)).join(' | ')} | ${fixed(figures.totalCpuMs, 2)} |`;
}

/** The rates to run: every one up to the first failure, then `beyond` more. */
export function shouldContinue(results, beyond) {
  const firstFailure = results.findIndex((figures) => !figures.pass);
  return firstFailure < 0 || results.length - 1 - firstFailure < beyond;
}

async function main() {
  const { values } = parseArgs({ options: {
    rates: { type: 'string', default: '150,200,250,300' }, seconds: { type: 'string', default: '60' }, mode: { type: 'string', default: 'full' },
    'jws-alg': { type: 'string', default: 'ES256' }, 'jws-verification': { type: 'string' }, beyond: { type: 'string', default: '0' },
    'sim-workers': { type: 'string' }, fresh: { type: 'boolean', default: false }, warmup: { type: 'string' }, 'switch-profile': { type: 'string', default: 'separate' },
  } });
  if (!COLUMNS[values['switch-profile']]) throw new Error(`--switch-profile is separate or compact, not ${values['switch-profile']}`);
  const rates = values.rates.split(',').map(Number);
  const seconds = Number(values.seconds);
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
  const dir = `${ROOT}perf/results/rate-search-${stamp}`;
  mkdirSync(dir, { recursive: true });
  const log = (line) => appendFileSync(`${dir}/runs.log`, `${line}\n`);
  const print = (line) => { process.stdout.write(`${line}\n`); appendFileSync(`${dir}/table.md`, `${line}\n`); };
  // Without --fresh, the switch `make up` runs, in the profile it was started with (PROFILE=).
  const target = values.fresh ? await freshTarget(values.mode, { profile: values['switch-profile'] }) : await localTarget();
  const columns = COLUMNS[target.profile];
  const results = [];
  try {
    for (const tps of rates) {
      const result = await runPerf(target, {
        profile: 'load', mode: values.mode, tps, transfers: tps * seconds, name: `rate-search-${stamp}-${tps}tps`, jwsAlg: values['jws-alg'],
        jwsVerification: values['jws-verification'], simPort: 7000, bridgePort: 7100, ...(values['sim-workers'] ? { simWorkers: Number(values['sim-workers']) } : {}),
        ...(values.warmup ? { warmupSeconds: Number(values.warmup) } : {}),
      }, log);
      if (results.length === 0) {
        print(`Rate search ${stamp}: ${target.profile} profile, mode ${values.mode}, ${seconds} s per rate, DFSPs sign ${result.run.jwsAlg}, switch JWS_VERIFICATION ${result.run.jwsVerification}, `
          + `${result.run.simWorkers} simulator processes; CPU columns are ms per completed iteration. Pass: success ≥ 99.99 %, e2e p95 < 1 s, dropped ≤ 1 %.`);
        print('');
        for (const line of tableHeader(columns)) print(line);
      }
      const figures = rateFigures({ tps, seconds, summary: result.summary, cpuSeconds: result.resources.cpuSeconds, gatePass: result.gate.pass, columns });
      results.push(figures);
      print(tableRow(figures));
      if (!shouldContinue(results, Number(values.beyond))) break;
    }
  } finally {
    await target.close();
  }
  writeFileSync(`${dir}/results.json`, JSON.stringify(results, null, 2));
  process.stdout.write(`\nreports: perf/results/rate-search-${stamp}-<rate>tps/, this table and the runs' output: ${dir}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
