// The report of one run, from k6's JSON output (`--out json=k6.json.gz`): an SVG chart of
// throughput (completed and failed transactions/s, empty seconds as zero), e2e p50/p95/p99
// over time and the faults a campaign injected (perf/chaos.js), and a Markdown summary
// of the k6 summary JSON, the gate and CPU per component. No chart library: the SVG is small.
//   node perf/report.js perf/results/<run>
import { createReadStream, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';

/** Per second (epoch seconds): `{ completed, failed, e2e: [ms] }` from k6's JSON lines. */
export async function readBuckets(path) {
  const stream = createReadStream(path);
  const lines = createInterface({ input: path.endsWith('.gz') ? stream.pipe(createGunzip()) : stream, crlfDelay: Infinity });
  const buckets = new Map();
  const bucket = (second) => {
    if (!buckets.has(second)) buckets.set(second, { completed: 0, failed: 0, e2e: [] });
    return buckets.get(second);
  };
  for await (const line of lines) {
    if (!line.includes('"Point"')) continue;
    if (!SERIES_METRICS.some((metric) => line.includes(`"metric":"${metric}"`))) continue;
    const point = JSON.parse(line);
    const second = Math.floor(Date.parse(point.data.time) / 1000);
    if (point.metric === 'e2e_time') bucket(second).e2e.push(point.data.value);
    else if (point.metric === 'failed_transactions') bucket(second).failed += point.data.value;
    else bucket(second).completed += point.data.value;
  }
  return buckets;
}

const SERIES_METRICS = ['e2e_time', 'completed_transactions', 'failed_transactions'];

/** Per-bucket series of a run's k6 JSON output (summarise). */
export async function readSeries(path) {
  return summarise(await readBuckets(path));
}

function quantile(sorted, q) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : 0;
}

/**
 * Merges seconds into at most ~300 buckets: `[{ t, at, tps, failed, p50, p95, p99 }]` (t:
 * seconds from the first, at: its epoch second). Every bucket from the first second to the
 * last is there: a second in which nothing completed is a zero, so an outage shows as a
 * drop to zero rather than a straight line across the gap; its latencies are null (nothing
 * was measured), which the chart leaves undrawn.
 */
export function summarise(buckets) {
  const seconds = [...buckets.keys()].sort((a, b) => a - b);
  if (seconds.length === 0) return [];
  const start = seconds[0];
  const width = Math.max(1, Math.ceil((seconds.at(-1) - start + 1) / 300));
  const merged = new Map();
  for (let key = 0; key <= Math.floor((seconds.at(-1) - start) / width); key += 1) merged.set(key, { completed: 0, failed: 0, e2e: [] });
  for (const second of seconds) {
    const into = merged.get(Math.floor((second - start) / width));
    const from = buckets.get(second);
    into.completed += from.completed;
    into.failed += from.failed ?? 0;
    for (const value of from.e2e) into.e2e.push(value);
  }
  return [...merged.entries()].map(([key, { completed, failed, e2e }]) => {
    const sorted = e2e.sort((a, b) => a - b);
    const latency = (q) => (sorted.length ? quantile(sorted, q) : null);
    return { t: key * width, at: start + key * width, tps: completed / width, failed: failed / width, p50: latency(0.5), p95: latency(0.95), p99: latency(0.99) };
  });
}

/** Polylines through the points with a value; a point without one (null) breaks the line. */
function polylines(points, x, y, value, colour) {
  const runs = [[]];
  for (const point of points) {
    if (value(point) === null || value(point) === undefined) runs.push([]);
    else runs.at(-1).push(point);
  }
  return runs.filter((run) => run.length > 0).map((run) => `<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${run.map((p) => `${x(p).toFixed(1)},${y(p).toFixed(1)}`).join(' ')}"/>`).join('\n');
}

/** A dashed vertical line per fault start and end, labelled, across both panels. */
function faultMarks(marks, x, maxT) {
  return marks.filter((mark) => mark.t >= 0 && mark.t <= maxT).map((mark, index) => {
    const colour = mark.kind === 'end' ? '#2ca02c' : '#d62728';
    const position = x(mark).toFixed(1);
    return `<line x1="${position}" y1="50" x2="${position}" y2="440" stroke="${colour}" stroke-dasharray="4 3"/>`
      + `<text x="${position}" y="${index % 2 === 0 ? 36 : 46}" font-size="9" fill="${colour}" text-anchor="middle">${escapeXml(mark.label)}</text>`;
  }).join('\n');
}

const escapeXml = (text) => String(text).replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);

function panel({ series, top, height, width, values, label, colours }) {
  const maxT = Math.max(1, series.at(-1)?.t ?? 1);
  const maxY = Math.max(1, ...series.flatMap((point) => values.map((name) => point[name] ?? 0)));
  const x = (point) => 60 + (point.t / maxT) * (width - 80);
  const parts = [`<text x="10" y="${top - 6}" font-size="12">${label} (max ${maxY.toFixed(0)})</text>`,
    `<rect x="60" y="${top}" width="${width - 80}" height="${height}" fill="none" stroke="#ccc"/>`,
    `<text x="55" y="${top + 10}" font-size="10" text-anchor="end">${maxY.toFixed(0)}</text>`,
    `<text x="55" y="${top + height}" font-size="10" text-anchor="end">0</text>`];
  values.forEach((name, index) => {
    parts.push(polylines(series, x, (point) => top + height - (point[name] / maxY) * height, (point) => point[name], colours[index]));
    parts.push(`<text x="${width - 200 + index * 60}" y="${top - 6}" font-size="11" fill="${colours[index]}">${name}</text>`);
  });
  return parts.join('\n');
}

/**
 * The run's chart. `marks`: `[{ at (epoch ms), label, kind: 'start' | 'end' }]`, the faults
 * the campaign injected, drawn where they happened.
 */
export function chartSvg(series, title, marks = []) {
  const width = 900;
  const maxT = series.at(-1)?.t ?? 0;
  const start = series[0]?.at ?? 0;
  const x = (point) => 60 + (point.t / Math.max(1, maxT)) * (width - 80);
  const placed = marks.map((mark) => ({ ...mark, t: mark.at / 1000 - start }));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="480" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="18" font-size="14">${escapeXml(title)}</text>
${panel({ series, top: 70, height: 150, width, values: ['tps', 'failed'], label: 'completed and failed transactions/s', colours: ['#1f77b4', '#d62728'] })}
${panel({ series, top: 270, height: 170, width, values: ['p50', 'p95', 'p99'], label: 'e2e ms', colours: ['#2ca02c', '#ff7f0e', '#d62728'] })}
${faultMarks(placed, x, maxT)}
<text x="60" y="465" font-size="10">0 s</text><text x="${width - 20}" y="465" font-size="10" text-anchor="end">${maxT} s</text>
</svg>\n`;
}

const ms = (value) => (value === undefined ? '—' : Math.round(value));

/** The Markdown summary: one table row per phase, the gate, CPU per component. */
export function summaryMarkdown({ run, summary, gate, cpu }) {
  const metric = (name) => summary.metrics[name]?.values ?? {};
  const rows = ['discovery_time', 'quote_time', 'transfer_time', 'e2e_time'].map((name) => {
    const values = metric(name);
    return `| ${name} | ${ms(values.med)} | ${ms(values['p(95)'])} | ${ms(values['p(99)'])} | ${ms(values.max)} |`;
  });
  const cpuRows = Object.entries(cpu ?? {}).map(([name, percent]) => `| ${name} | ${percent} |`);
  return [`# Run ${run.name}`, '', `profile ${run.profile}, target ${run.tps}/s × ${run.transfers}, mode ${run.mode}`, '',
    `completed ${metric('completed_transactions').count ?? 0}, failed ${metric('failed_transactions').count ?? 0}, success rate ${metric('success_rate').rate}, `
      + `dropped iterations ${metric('dropped_iterations').count ?? 0}, achieved ${((metric('completed_transactions').count ?? 0) / Math.ceil(run.transfers / run.tps)).toFixed(1)}/s`,
    '', '| phase | p50 ms | p95 ms | p99 ms | max ms |', '|---|---|---|---|---|', ...rows, '',
    `gate: **${gate.pass ? 'PASS' : 'FAIL'}**`, ...gate.reasons.map((reason) => `- ${reason}`), '',
    '| process | CPU % (average over the run) |', '|---|---|', ...cpuRows, ''].join('\n');
}

export async function writeReport(dir, { run, gate, cpu, marks = [] }) {
  const summary = JSON.parse(readFileSync(`${dir}/summary.json`, 'utf8'));
  const series = existsSync(`${dir}/k6.json.gz`) ? await readSeries(`${dir}/k6.json.gz`) : [];
  if (series.length > 0) {
    writeFileSync(`${dir}/chart.svg`, chartSvg(series, `${run.name}: ${run.tps}/s target, ${run.transfers} transfers`, marks));
    writeFileSync(`${dir}/series.json`, JSON.stringify(series));
  }
  const markdown = summaryMarkdown({ run, summary, gate, cpu });
  writeFileSync(`${dir}/summary.md`, markdown);
  return markdown;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  const meta = JSON.parse(readFileSync(`${dir}/run.json`, 'utf8'));
  process.stdout.write(await writeReport(dir, meta));
}
