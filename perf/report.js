// The report of one run, from the k6 samples perf/run.js kept (k6.csv: k6's CSV lines of
// e2e_time, completed_transactions, failed_transactions and dropped_iterations; older runs'
// k6.json.gz is read too) and the resources it sampled (run.json): chart.svg (completed and
// failed iterations/s, e2e p50/p95/p99 per window, the faults a campaign injected), rss.svg
// (RSS per component over the run), summary.md (the k6 summary, the gate, CPU % and CPU ms
// per iteration per component, RSS min/max/last, latency over time) and dashboard.html (all
// of it on one page). The samples are read as a stream and folded into windows (1 s for a
// run under five minutes, 10 s beyond) of counts and a latency histogram, so a
// million-iteration soak needs no more memory than a short run. No chart library.
//   node perf/report.js perf/results/<run>
import { createReadStream, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';

const SERIES_METRICS = ['e2e_time', 'completed_transactions', 'failed_transactions', 'dropped_iterations'];

function linesOf(path) {
  const stream = createReadStream(path);
  return createInterface({ input: path.endsWith('.gz') ? stream.pipe(createGunzip()) : stream, crlfDelay: Infinity });
}

/**
 * Calls `onSample(metric, epochSecond, value)` for every sample of SERIES_METRICS in a k6
 * output file: CSV (`--out csv`, header first) or JSON lines (`--out json`, optionally gzipped).
 */
export async function eachSample(path, onSample) {
  const csv = /\.csv(\.gz)?$/.test(path);
  let columns;
  for await (const line of linesOf(path)) {
    if (csv) {
      const fields = line.split(',');
      if (!columns) {
        columns = { metric: fields.indexOf('metric_name'), time: fields.indexOf('timestamp'), value: fields.indexOf('metric_value') };
        continue;
      }
      if (SERIES_METRICS.includes(fields[columns.metric])) onSample(fields[columns.metric], Math.floor(Number(fields[columns.time])), Number(fields[columns.value]));
    } else if (line.includes('"Point"') && SERIES_METRICS.some((metric) => line.includes(`"metric":"${metric}"`))) {
      const point = JSON.parse(line);
      onSample(point.metric, Math.floor(Date.parse(point.data.time) / 1000), point.data.value);
    }
  }
}

/** The k6 samples of a run directory: k6.csv, or an older run's k6.json.gz; undefined if neither. */
export function k6OutputOf(dir) {
  return ['k6.csv', 'k6.json.gz', 'k6.json'].map((name) => `${dir}/${name}`).find((path) => existsSync(path));
}

/** Per second (epoch seconds): `{ completed, failed, e2e: [ms] }` (every latency kept: for short runs, perf/chaos.js). */
export async function readBuckets(path) {
  const buckets = new Map();
  const bucket = (second) => {
    if (!buckets.has(second)) buckets.set(second, { completed: 0, failed: 0, e2e: [] });
    return buckets.get(second);
  };
  await eachSample(path, (metric, second, value) => {
    if (metric === 'e2e_time') bucket(second).e2e.push(value);
    else if (metric === 'failed_transactions') bucket(second).failed += value;
    else if (metric === 'completed_transactions') bucket(second).completed += value;
  });
  return buckets;
}

// Latency histogram: bins 1 % wide on a log scale (bin 0 holds everything under 1 ms), so a
// quantile read from it is within half a percent of the exact one, and a window holds a few
// hundred counters whatever the number of samples.
const BIN_GROWTH = Math.log(1.01);

export function binOf(ms) {
  return ms < 1 ? 0 : 1 + Math.floor(Math.log(ms) / BIN_GROWTH);
}

function valueOfBin(bin) {
  return bin === 0 ? 0.5 : Math.exp((bin - 0.5) * BIN_GROWTH);
}

/** Adds `from`'s counts into `into` (Maps of bin → count). */
export function mergeHistogram(into, from) {
  for (const [bin, count] of from) into.set(bin, (into.get(bin) ?? 0) + count);
  return into;
}

/** The q-quantile of a histogram (the sample at rank floor(q·n), as summarise takes it), or null when it is empty. */
export function histogramQuantile(histogram, q) {
  let total = 0;
  for (const count of histogram.values()) total += count;
  if (total === 0) return null;
  const rank = Math.min(total - 1, Math.floor(q * total));
  let seen = 0;
  for (const bin of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bin);
    if (seen > rank) return valueOfBin(bin);
  }
  return null;
}

/** The window length for a run lasting `durationS`: 1 s under five minutes, 10 s beyond. */
export const windowFor = (durationS) => (durationS < 300 ? 1 : 10);

/**
 * Per window (`windowS` seconds; the key is epoch second ÷ windowS): `{ completed, failed,
 * dropped, e2e: Map(bin → count) }`, read as a stream: no sample is kept.
 */
export async function readWindows(path, windowS) {
  const windows = new Map();
  await eachSample(path, (metric, second, value) => {
    const key = Math.floor(second / windowS);
    if (!windows.has(key)) windows.set(key, { completed: 0, failed: 0, dropped: 0, e2e: new Map() });
    const window = windows.get(key);
    if (metric === 'e2e_time') window.e2e.set(binOf(value), (window.e2e.get(binOf(value)) ?? 0) + 1);
    else if (metric === 'failed_transactions') window.failed += value;
    else if (metric === 'completed_transactions') window.completed += value;
    else if (metric === 'dropped_iterations') window.dropped += value;
  });
  return windows;
}

/**
 * `[{ t, at, tps, failed, dropped, p50, p95, p99 }]` per window from the first to the last (t:
 * seconds from the first, at: its epoch second); a window without a sample is a zero rate and
 * null latencies, so an outage shows as a drop rather than a line across the gap.
 */
export function windowSeries(windows, windowS) {
  const keys = [...windows.keys()].sort((a, b) => a - b);
  if (keys.length === 0) return [];
  const series = [];
  for (let key = keys[0]; key <= keys.at(-1); key += 1) {
    const window = windows.get(key) ?? { completed: 0, failed: 0, dropped: 0, e2e: new Map() };
    series.push({
      t: (key - keys[0]) * windowS, at: key * windowS, tps: window.completed / windowS, failed: window.failed / windowS, dropped: window.dropped / windowS,
      p50: histogramQuantile(window.e2e, 0.5), p95: histogramQuantile(window.e2e, 0.95), p99: histogramQuantile(window.e2e, 0.99),
    });
  }
  return series;
}

/**
 * The run cut into at most `rows` equal stretches: `[{ fromS, toS, tps, failed, p50, p95, p99 }]`,
 * each from its windows' merged histograms (the soak's latency over time, for the Markdown).
 */
export function overTime(windows, windowS, rows = 12) {
  const keys = [...windows.keys()].sort((a, b) => a - b);
  if (keys.length === 0) return [];
  const span = keys.at(-1) - keys[0] + 1;
  const per = Math.max(1, Math.ceil(span / rows));
  const stretches = [];
  for (let first = keys[0]; first <= keys.at(-1); first += per) {
    const merged = { completed: 0, failed: 0, e2e: new Map() };
    for (let key = first; key < first + per; key += 1) {
      const window = windows.get(key);
      if (!window) continue;
      merged.completed += window.completed;
      merged.failed += window.failed;
      mergeHistogram(merged.e2e, window.e2e);
    }
    const seconds = Math.min(per, keys.at(-1) - first + 1) * windowS;
    stretches.push({
      fromS: (first - keys[0]) * windowS, toS: (first - keys[0]) * windowS + seconds, tps: merged.completed / seconds, failed: merged.failed,
      p50: histogramQuantile(merged.e2e, 0.5), p95: histogramQuantile(merged.e2e, 0.95), p99: histogramQuantile(merged.e2e, 0.99),
    });
  }
  return stretches;
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
${panel({ series, top: 70, height: 150, width, values: ['tps', 'failed', 'dropped'], label: 'completed, failed and dropped iterations/s', colours: ['#1f77b4', '#d62728', '#9467bd'] })}
${panel({ series, top: 270, height: 170, width, values: ['p50', 'p95', 'p99'], label: 'e2e ms', colours: ['#2ca02c', '#ff7f0e', '#d62728'] })}
${faultMarks(placed, x, maxT)}
<text x="60" y="465" font-size="10">0 s</text><text x="${width - 20}" y="465" font-size="10" text-anchor="end">${maxT} s</text>
</svg>\n`;
}

const ms = (value) => (value === undefined || value === null ? '—' : Math.round(value));
const mb = (bytes) => (bytes / 1024 / 1024).toFixed(0);

const countOf = (summary, name) => summary.metrics[name]?.values.count ?? 0;

/**
 * The iterations that cost the run's CPU: the completed ones, the warm-up's and the
 * conversion payments included (CPU is sampled over the whole k6 run); every payment the gate
 * counts as completed.
 */
export function paidIterations(summary) {
  return countOf(summary, 'completed_transactions') + countOf(summary, 'warmup_completed') + countOf(summary, 'conversion_completed') + countOf(summary, 'rtp_completed');
}

/** The iterations that failed, the warm-up's and the conversion payments' included: what the gate must account for. */
export function failedIterations(summary) {
  return countOf(summary, 'failed_transactions') + countOf(summary, 'warmup_failed') + countOf(summary, 'conversion_failed') + countOf(summary, 'rtp_failed');
}

/** The conversion payments that completed (perf/k6/transfers.js, CONVERSION_SHARE), the warm-up's not told apart. */
export function conversionIterations(summary) {
  return countOf(summary, 'conversion_completed');
}

/** The requests to pay that completed (perf/k6/transfers.js, RTP_SHARE), the warm-up's included. */
export function requestToPayIterations(summary) {
  return countOf(summary, 'rtp_completed') + countOf(summary, 'warmup_rtp_completed');
}

/** The report's lines on requests to pay, none for a run without them. */
function requestToPayLines(run, metric) {
  if (!(metric('rtp_completed').count > 0 || metric('rtp_failed').count > 0)) return { phases: [], lines: [] };
  return {
    phases: ['transaction_request_time', 'rtp_payment_time', 'rtp_e2e_time'],
    lines: ['', `requests to pay (merchant-initiated, a share of ${run.rtpShare}, ${run.rtpOtpShare ?? 0} of them approved by OTP): `
      + `${metric('rtp_completed').count ?? 0} completed, ${metric('rtp_failed').count ?? 0} failed (the plain figures above leave them out)`],
  };
}

/**
 * The report's lines on ISO 20022 (a run with --iso20022-share): the share, the DFSPs it made
 * ISO 20022 DFSPs, and the committed payments per API type pair (the gate's count in MySQL).
 */
export function iso20022Lines(run, gate) {
  if (!(run.iso20022Share > 0)) return [];
  const byTypePair = gate.details?.paymentsByTypePair ?? {};
  const pairs = ['FSPIOP→FSPIOP', 'FSPIOP→ISO20022', 'ISO20022→FSPIOP', 'ISO20022→ISO20022'].map((typePair) => `${typePair} ${byTypePair[typePair] ?? 0}`);
  return ['', `ISO 20022 DFSPs (a share of ${run.iso20022Share}: ${(run.isoDfsps ?? []).join(', ') || 'none'}); committed payments by API type pair, payer → payee: ${pairs.join(', ')}`];
}

/**
 * Per component: CPU % of one core (average over the run), CPU seconds, and CPU ms per
 * completed iteration (CPU seconds over the run ÷ completed iterations), with a total.
 */
export function cpuRows({ cpu = {}, cpuSeconds, completed }) {
  const perIteration = (seconds) => (completed > 0 ? ((seconds * 1000) / completed).toFixed(2) : '—');
  const rows = Object.entries(cpu).map(([name, percent]) => {
    const seconds = cpuSeconds?.[name];
    return seconds === undefined ? `| ${name} | ${percent} | — | — |` : `| ${name} | ${percent} | ${seconds.toFixed(1)} | ${perIteration(seconds)} |`;
  });
  if (cpuSeconds) {
    const total = Object.values(cpuSeconds).reduce((sum, seconds) => sum + seconds, 0);
    const percent = Object.values(cpu).reduce((sum, value) => sum + value, 0);
    rows.push(`| **total** | ${percent} | ${total.toFixed(1)} | ${perIteration(total)} |`);
  }
  return ['| process | CPU % (average over the run) | CPU s | CPU ms per iteration |', '|---|---|---|---|', ...rows];
}

/** Per component: RSS at the first sample, its min, max and last over the run's samples (every 10 s), in MB. */
export function rssRows(samples = []) {
  const components = [...new Set(samples.flatMap((sample) => Object.keys(sample.bytes)))];
  const rows = components.map((name) => {
    const values = samples.map((sample) => sample.bytes[name]).filter((bytes) => bytes > 0);
    if (values.length === 0) return `| ${name} | — | — | — | — |`;
    return `| ${name} | ${mb(values[0])} | ${mb(Math.min(...values))} | ${mb(Math.max(...values))} | ${mb(values.at(-1))} |`;
  });
  return [`| process | RSS first MB | min MB | max MB | last MB (${samples.length} samples) |`, '|---|---|---|---|---|', ...rows];
}

function overTimeRows(stretches) {
  return ['| from s | to s | completed/s | failed | e2e p50 ms | p95 ms | p99 ms |', '|---|---|---|---|---|---|---|',
    ...stretches.map((row) => `| ${row.fromS} | ${row.toS} | ${row.tps.toFixed(1)} | ${row.failed} | ${ms(row.p50)} | ${ms(row.p95)} | ${ms(row.p99)} |`)];
}

/**
 * The Markdown summary: one table row per phase, the gate, CPU and CPU ms per iteration per
 * component, RSS per component, and latency over time when the windows are given.
 */
export function summaryMarkdown({ run, summary, gate, cpu, resources, stretches = [] }) {
  const metric = (name) => summary.metrics[name]?.values ?? {};
  // A run with conversion payments (perf/k6/transfers.js CONVERSION_SHARE) has their phases too.
  const conversions = metric('conversion_completed').count > 0 || metric('conversion_failed').count > 0 ? ['fx_quote_time', 'fx_transfer_time', 'conversion_e2e_time'] : [];
  const requestsToPay = requestToPayLines(run, metric);
  // A bulk run (perf/k6/bulk.js) counts items in completed_transactions; its bulks have phases of their own.
  const bulks = metric('bulk_completed').count > 0 || metric('bulk_failed').count > 0 ? ['bulk_quote_time', 'bulk_transfer_time', 'bulk_e2e_time'] : [];
  const rows = ['discovery_time', 'quote_time', 'transfer_time', 'e2e_time', ...conversions, ...requestsToPay.phases, ...bulks].map((name) => {
    const values = metric(name);
    return `| ${name} | ${ms(values.med)} | ${ms(values['p(95)'])} | ${ms(values['p(99)'])} | ${ms(values.max)} |`;
  });
  const completed = metric('completed_transactions').count ?? 0;
  const setting = run.jwsAlg ? [`signing ${run.jwsAlg}, switch JWS_VERIFICATION ${run.jwsVerification ?? 'unknown'}, ${run.simWorkers} simulator processes`, ''] : [];
  return [`# Run ${run.name}`, '', `profile ${run.profile}, target ${run.tps}/s × ${run.transfers}, mode ${run.mode}`, '', ...setting,
    `completed ${completed}, failed ${metric('failed_transactions').count ?? 0}, success rate ${metric('success_rate').rate}, `
      + `dropped iterations ${metric('dropped_iterations').count ?? 0}, achieved ${(completed / Math.ceil(run.transfers / run.tps)).toFixed(1)}/s`,
    ...(conversions.length > 0 ? ['', `conversion payments (USD → EUR through an FXP, a share of ${run.conversionShare}): `
      + `${metric('conversion_completed').count ?? 0} completed, ${metric('conversion_failed').count ?? 0} failed (the plain figures above leave them out)`] : []),
    ...requestsToPay.lines,
    ...iso20022Lines(run, gate),
    ...(bulks.length > 0 ? ['', `bulks of ${run.bulkSize} items at ${run.bulkRate}/s: ${metric('bulk_completed').count ?? 0} completed, `
      + `${metric('bulk_failed').count ?? 0} failed, ${metric('bulk_items_committed').count ?? 0} items committed (completed and failed above count items, e2e_time is a bulk's)`] : []),
    ...(run.warmupSeconds > 0 ? ['', `after a warm-up ramp of ${run.warmupSeconds} s: ${metric('warmup_completed').count ?? 0} payments completed, `
      + `${metric('warmup_failed').count ?? 0} failed (in the gate and the CPU figures, not in the latencies and rates)`] : []),
    '', '| phase | p50 ms | p95 ms | p99 ms | max ms |', '|---|---|---|---|---|', ...rows, '',
    `gate: **${gate.pass ? 'PASS' : 'FAIL'}**`, ...gate.reasons.map((reason) => `- ${reason}`), '',
    ...cpuRows({ cpu: cpu ?? {}, cpuSeconds: resources?.cpuSeconds, completed: paidIterations(summary) }), '',
    ...(resources?.rss?.length ? [...rssRows(resources.rss), ''] : []),
    ...(stretches.length > 1 ? ['Over time:', '', ...overTimeRows(stretches), ''] : [])].join('\n');
}

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

/** RSS per component over the run: one line each, MB against seconds from the first sample. */
export function rssSvg(samples, title) {
  if (samples.length < 2) return undefined;
  const components = [...new Set(samples.flatMap((sample) => Object.keys(sample.bytes)))];
  const series = samples.map((sample) => ({ t: (sample.at - samples[0].at) / 1000, ...Object.fromEntries(components.map((name) => [name, (sample.bytes[name] ?? 0) / 1024 / 1024])) }));
  const width = 900;
  const height = 300;
  const top = 40;
  const maxT = Math.max(1, series.at(-1).t);
  const maxY = Math.max(1, ...series.flatMap((point) => components.map((name) => point[name])));
  const x = (point) => 60 + (point.t / maxT) * (width - 260);
  const lines = components.map((name, index) => {
    const colour = PALETTE[index % PALETTE.length];
    const dash = index >= PALETTE.length ? ' stroke-dasharray="5 3"' : '';
    return polylines(series, x, (point) => top + height - (point[name] / maxY) * height, (point) => point[name], colour).replace('<polyline ', `<polyline${dash} `)
      + `<text x="${width - 190}" y="${top + 12 + index * 14}" font-size="11" fill="${colour}">${escapeXml(name)} ${mb(samples.at(-1).bytes[name] ?? 0)} MB</text>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height + 80}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="18" font-size="14">${escapeXml(title)}: RSS per process (MB, max ${maxY.toFixed(0)})</text>
<rect x="60" y="${top}" width="${width - 260}" height="${height}" fill="none" stroke="#ccc"/>
<text x="55" y="${top + 10}" font-size="10" text-anchor="end">${maxY.toFixed(0)}</text><text x="55" y="${top + height}" font-size="10" text-anchor="end">0</text>
${lines.join('\n')}
<text x="60" y="${top + height + 15}" font-size="10">0 s</text><text x="${width - 200}" y="${top + height + 15}" font-size="10" text-anchor="end">${maxT.toFixed(0)} s</text>
</svg>\n`;
}

/** The summary's Markdown as HTML: headings, tables, list items and paragraphs, which is all it has. */
export function markdownHtml(markdown) {
  const html = [];
  const inline = (text) => escapeXml(text).replace(/\*\*([^*]+)\*\*/g, '<b>$1</b>');
  let table = [];
  const flush = () => {
    if (table.length === 0) return;
    const cells = (line) => line.slice(1, -1).split('|').map((cell) => cell.trim());
    const [head, , ...body] = table;
    html.push(`<table><tr>${cells(head).map((cell) => `<th>${inline(cell)}</th>`).join('')}</tr>`
      + `${body.map((line) => `<tr>${cells(line).map((cell) => `<td>${inline(cell)}</td>`).join('')}</tr>`).join('')}</table>`);
    table = [];
  };
  for (const line of markdown.split('\n')) {
    if (line.startsWith('|')) { table.push(line); continue; }
    flush();
    if (line.startsWith('# ')) html.push(`<h1>${inline(line.slice(2))}</h1>`);
    else if (line.startsWith('- ')) html.push(`<li>${inline(line.slice(2))}</li>`);
    else if (line.trim()) html.push(`<p>${inline(line)}</p>`);
  }
  flush();
  return html.join('\n');
}

/** One page with the charts and the summary: what k6's web dashboard showed, built after the run from k6.csv and run.json. */
export function dashboardHtml({ title, markdown, charts }) {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${escapeXml(title)}</title>
<style>body{font-family:sans-serif;margin:20px;max-width:960px}table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}td:first-child,th:first-child{text-align:left}</style>
</head><body>
${charts.filter(Boolean).join('\n')}
${markdownHtml(markdown)}
</body></html>
`;
}

export async function writeReport(dir, { run, gate, cpu, resources, marks = [] }) {
  const summary = JSON.parse(readFileSync(`${dir}/summary.json`, 'utf8'));
  const output = k6OutputOf(dir);
  const windowS = windowFor(Math.ceil(run.transfers / run.tps));
  const windows = output ? await readWindows(output, windowS) : new Map();
  const series = windowSeries(windows, windowS);
  const title = `${run.name}: ${run.tps}/s target, ${run.transfers} transfers, ${windowS}-s windows`;
  const chart = series.length > 0 ? chartSvg(series, title, marks) : undefined;
  if (chart) {
    writeFileSync(`${dir}/chart.svg`, chart);
    writeFileSync(`${dir}/series.json`, JSON.stringify(series));
  }
  const rssChart = rssSvg(resources?.rss ?? [], run.name);
  if (rssChart) writeFileSync(`${dir}/rss.svg`, rssChart);
  const markdown = summaryMarkdown({ run, summary, gate, cpu, resources, stretches: overTime(windows, windowS) });
  writeFileSync(`${dir}/summary.md`, markdown);
  writeFileSync(`${dir}/dashboard.html`, dashboardHtml({ title: run.name, markdown, charts: [chart, rssChart] }));
  return markdown;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2];
  const meta = JSON.parse(readFileSync(`${dir}/run.json`, 'utf8'));
  process.stdout.write(await writeReport(dir, meta));
}
