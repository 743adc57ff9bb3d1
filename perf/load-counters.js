// What one iteration costs the shared services, measured rather than estimated: MariaDB's
// statement, commit and redo-log counters and Kafka's records and bytes on disk, sampled
// before and after a run. perf/capacity.js turns these per-iteration figures into RDS and
// MSK sizes. Beside a running load test:
//   source scripts/env.sh && node perf/load-counters.js --seconds 60
// prints the deltas per second; divide by the achieved iteration rate for "per iteration".
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = new URL('..', import.meta.url).pathname;
const DB_COUNTERS = ['Questions', 'Com_commit', 'Com_select', 'Com_insert', 'Com_update', 'Innodb_os_log_written', 'Innodb_data_written', 'Bytes_received', 'Bytes_sent'];

/** Bytes of every file under `directory` (Kafka's log segments grow by what it stores). */
function bytesUnder(directory) {
  let total = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else if (entry.isFile() && entry.name.endsWith('.log')) {
      try { total += statSync(path).size; } catch { /* rolled away */ }
    }
  }
  return total;
}

async function dbCounters(db) {
  const [rows] = await db.raw(`SHOW GLOBAL STATUS WHERE Variable_name IN (${DB_COUNTERS.map(() => '?').join(',')})`, DB_COUNTERS);
  return Object.fromEntries(rows.map((row) => [row.Variable_name, Number(row.Value)]));
}

/** `{ at, db: {counter: value}, kafka: { records, logBytes } }` now. */
export async function sampleLoad({ db, kafka, kafkaDataDir }) {
  const { topicHighWaterMarks } = await import('./gate.js');
  const marks = await topicHighWaterMarks(kafka);
  const records = Object.values(marks).reduce((sum, value) => sum + (typeof value === 'number' ? value : 0), 0);
  return { at: Date.now(), db: await dbCounters(db), kafka: { records, logBytes: bytesUnder(kafkaDataDir) } };
}

/** Per-second rates between two samples. */
export function loadRates(before, after) {
  const seconds = (after.at - before.at) / 1000;
  const rate = (a, b) => Math.round(((b - a) / seconds) * 10) / 10;
  return {
    seconds,
    db: Object.fromEntries(Object.keys(after.db).map((name) => [name, rate(before.db[name], after.db[name])])),
    kafka: { records: rate(before.kafka.records, after.kafka.records), logBytes: rate(before.kafka.logBytes, after.kafka.logBytes) },
  };
}

async function main() {
  const { values } = parseArgs({ options: { seconds: { type: 'string', default: '60' } } });
  const { loadConfig } = await import('../platform/config.js');
  const { createDatabase } = await import('../platform/db.js');
  const config = loadConfig({ SERVICE_NAME: 'perf-load-counters', ...process.env });
  const db = createDatabase(config.db);
  const target = { db, kafka: { brokers: config.kafka.brokers, prefix: config.kafka.topicPrefix ?? '' }, kafkaDataDir: `${ROOT}.run/kafka/data` };
  try {
    const before = await sampleLoad(target);
    await sleep(Number(values.seconds) * 1000);
    process.stdout.write(`${JSON.stringify(loadRates(before, await sampleLoad(target)), null, 2)}\n`);
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
