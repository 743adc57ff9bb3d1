// The run report shows a fault as it happened: empty seconds are zeros, failed iterations
// have their own line, the campaign's faults are marked; CPU per component never goes
// negative when a process is replaced by one with a new PID.
import test from 'node:test';
import assert from 'node:assert/strict';
import { chartSvg, summarise } from '../../perf/report.js';
import { cpuPercent } from '../../perf/run.js';

const START = 1_800_000_000;

function bucketsOf(entries) {
  return new Map(entries.map(([offset, bucket]) => [START + offset, { completed: 0, failed: 0, e2e: [], ...bucket }]));
}

test('seconds without a completion are zeros, not skipped', () => {
  const series = summarise(bucketsOf([[0, { completed: 50, e2e: [400] }], [1, { completed: 50, e2e: [500] }], [5, { completed: 90, e2e: [3000] }]]));
  assert.deepEqual(series.map((point) => point.t), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(series.map((point) => point.tps), [50, 50, 0, 0, 0, 90]);
  // Nothing was measured in an empty second: no latency, rather than a made-up 0 ms.
  assert.equal(series[3].p95, null);
  assert.equal(series[5].p95, 3000);
});

test('failed iterations per second are a series of their own', () => {
  const series = summarise(bucketsOf([[0, { completed: 45 }], [1, { failed: 12 }], [2, { completed: 40, failed: 3 }]]));
  assert.deepEqual(series.map((point) => point.failed), [0, 12, 3]);
  assert.deepEqual(series.map((point) => point.at), [START, START + 1, START + 2]);
});

test('long runs merge seconds into buckets and still keep the empty ones', () => {
  const entries = [];
  for (let second = 0; second < 600; second += 1) if (second < 200 || second >= 260) entries.push([second, { completed: 45 }]);
  const series = summarise(bucketsOf(entries));
  assert.equal(series.length, 300);
  assert.deepEqual(series.slice(99, 131).map((point) => point.tps), [45, ...Array(30).fill(0), 45]);
});

test('the chart draws the failed line, breaks latency lines where nothing completed, and marks each fault', () => {
  const series = summarise(bucketsOf([[0, { completed: 50, e2e: [400] }], [1, { failed: 20 }], [2, { completed: 50, e2e: [450] }]]));
  const svg = chartSvg(series, 'run', [{ at: (START + 1) * 1000, label: 'kill position', kind: 'start' }, { at: (START + 2) * 1000, label: 'kill position', kind: 'end' }]);
  assert.match(svg, />failed</);
  // tps through all three seconds (one line), p50 in two pieces around the empty second.
  const lines = [...svg.matchAll(/<polyline [^>]*stroke="([^"]+)"[^>]*points="([^"]*)"/g)].map((match) => ({ colour: match[1], points: match[2].split(' ').length }));
  assert.deepEqual(lines.filter((line) => line.colour === '#1f77b4').map((line) => line.points), [3]);
  assert.deepEqual(lines.filter((line) => line.colour === '#2ca02c').map((line) => line.points), [1, 1]);
  assert.equal([...svg.matchAll(/<line [^>]*stroke-dasharray/g)].length, 2);
  assert.match(svg, /kill position/);
});

test('CPU of a component whose process was replaced counts the new process from zero, never negative', () => {
  const before = { at: 0, ticks: { kafka: { 100: 5000 }, prepare: { 200: 100 } } };
  // Kafka restarted: PID 100 is gone, PID 300 has used 50 ticks since it started.
  const after = { at: 10_000, ticks: { kafka: { 300: 50 }, prepare: { 200: 600 } } };
  assert.deepEqual(cpuPercent(before, after), { kafka: 5, prepare: 50 });
});
