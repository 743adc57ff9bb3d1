// The pending-lookup purge (account-lookup/pending-lookups.js) against a backlog, on the real
// MariaDB in a database of its own: each run fills `party_lookup` with `--expired` expired
// lookups and `--pending` unexpired ones, then makes one purge call while lookups are recorded
// beside it at `--rate` per second on the same pool, as account-lookup's hot path records them.
// It prints, per run, the rows the call removed, its time, its DELETEs' median and longest, and the
// hot path's INSERT latency meanwhile. Modes:
//   before: the purge as it was, one DELETE of at most 10,000 rows from the start of the
//           expiry index, run by each replica once a PARTY_LOOKUP_TTL_MS (60 s): at most 167
//           rows/s whatever the backlog;
//   loop:   that DELETE with a LIMIT of `--batch-rows`, repeated until one is not full;
//   after:  purgeExpiredLookups, batches of `--batch-rows`, each starting where the last ended.
// Runs alternate the modes, `--rounds` of each; medians at the end.
//   source scripts/env.sh && node perf/bench-lookup-purge.js [--expired 100000] [--rounds 3]
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, testConfig } from '../test/support/environment.js';
import { createSqlPool, runStatement } from '../platform/db.js';
import { PURGE_BATCH_ROWS, purgeExpiredLookups, recordPendingLookups } from '../account-lookup/pending-lookups.js';

const { values } = parseArgs({ options: {
  expired: { type: 'string', default: '100000' },
  pending: { type: 'string', default: '15000' },
  rate: { type: 'string', default: '250' },
  rounds: { type: 'string', default: '3' },
  'batch-rows': { type: 'string', default: String(PURGE_BATCH_ROWS) },
} });
const EXPIRED = Number(values.expired);
const PENDING = Number(values.pending);
const RATE = Number(values.rate);
const BATCH_ROWS = Number(values['batch-rows']);
const BEFORE_LIMIT = 10_000;
const MODES = ['before', 'loop', 'after'];
// The statement the purge ran before this benchmark was written, as it was.
const FROM_START_TEXT = 'DELETE FROM `party_lookup` WHERE `expires_at` <= ? ORDER BY `expires_at` LIMIT ?';
const TTL_MS = 60_000;
const FILL_ROWS = 1_000;
const NOW = new Date();

const env = await createTestDatabase('fspiop_bench');
const pool = createSqlPool(testConfig().db, { database: env.name });

/** `count` rows expiring evenly over the `spanMs` after `from`, each a different party. */
async function fill(count, from, spanMs, tag) {
  for (let start = 0; start < count; start += FILL_ROWS) {
    const rows = Array.from({ length: Math.min(FILL_ROWS, count - start) }, (_, k) => {
      const i = start + k;
      return {
        party_id_type: 'MSISDN', party_identifier: `${tag}${27_700_000_000 + i}`, party_sub_id: '',
        requester_fsp: `payerfsp${i % 8}`, payee_fsp: `payeefsp${i % 8}`, expires_at: new Date(from + (spanMs * i) / count),
      };
    });
    await env.db('party_lookup').insert(rows);
  }
}

/** The pool with each DELETE timed, so the purge's own loop can be measured as it is. */
function timed(statementsMs) {
  return {
    async query(sql, params) {
      const startedAt = performance.now();
      const result = await pool.query(sql, params);
      if (sql.startsWith('DELETE')) statementsMs.push(performance.now() - startedAt);
      return result;
    },
  };
}

/** Records lookups at RATE/s on the pool until `stop()`; returns their INSERT times. */
function recordAlongside() {
  const insertsMs = [];
  let stopped = false;
  const running = (async () => {
    const inFlight = [];
    for (let i = 0; !stopped; i += 1) {
      const startedAt = performance.now();
      inFlight.push(recordPendingLookups(pool, {
        party: { type: 'MSISDN', id: `live${i}` }, requester: 'payerfsp0', payees: ['payeefsp0'], expiresAt: new Date(NOW.getTime() + TTL_MS),
      }).then(() => insertsMs.push(performance.now() - startedAt)));
      await sleep(1000 / RATE);
    }
    await Promise.all(inFlight);
  })();
  return async () => { stopped = true; await running; return insertsMs; };
}

async function deleteFromStart(db, limit) {
  return (await runStatement(db, { sql: FROM_START_TEXT, values: [NOW, limit] })).affectedRows;
}

const PURGES = {
  before: (db) => deleteFromStart(db, BEFORE_LIMIT),
  async loop(db) {
    let purged = 0;
    for (;;) {
      const deleted = await deleteFromStart(db, BATCH_ROWS);
      purged += deleted;
      if (deleted < BATCH_ROWS) return purged;
    }
  },
  after: (db) => purgeExpiredLookups(db, NOW, { batchRows: BATCH_ROWS }),
};

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const median = (numbers) => quantile([...numbers].sort((a, b) => a - b), 0.5);

async function run(mode) {
  await env.db('party_lookup').truncate();
  await fill(EXPIRED, NOW.getTime() - TTL_MS, TTL_MS, 'x');
  await fill(PENDING, NOW.getTime() + 1, TTL_MS, 'p');
  const statementsMs = [];
  const db = timed(statementsMs);
  const stop = recordAlongside();
  await sleep(500);
  const startedAt = performance.now();
  const removed = await PURGES[mode](db);
  const purgeMs = performance.now() - startedAt;
  await sleep(500);
  const insertsMs = (await stop()).sort((a, b) => a - b);
  const left = Number((await env.db('party_lookup').where('expires_at', '<=', NOW).count({ n: '*' }))[0].n);
  return {
    mode, removed, left, purgeMs, rowsPerS: (removed / purgeMs) * 1000, deleteP50Ms: median(statementsMs), deleteMaxMs: Math.max(...statementsMs), statements: statementsMs.length,
    insertP50Ms: quantile(insertsMs, 0.5), insertP99Ms: quantile(insertsMs, 0.99), insertMaxMs: insertsMs.at(-1),
  };
}

const show = (result) => [
  result.mode.padEnd(6), `removed ${result.removed} (${result.left} expired left)`, `${result.statements} DELETE`,
  `${result.purgeMs.toFixed(0)} ms`, `${result.rowsPerS.toFixed(0)} rows/s`, `DELETE p50/max ${result.deleteP50Ms.toFixed(0)}/${result.deleteMaxMs.toFixed(0)} ms`,
  `INSERT p50/p99/max ${result.insertP50Ms.toFixed(1)}/${result.insertP99Ms.toFixed(1)}/${result.insertMaxMs.toFixed(1)} ms`,
].join('  ');

console.log(`${EXPIRED} expired and ${PENDING} pending lookups; ${RATE}/s recorded alongside; loop and after: batches of ${BATCH_ROWS}`);
const results = [];
try {
  for (let round = 0; round < Number(values.rounds); round += 1) {
    for (const mode of MODES) {
      const result = await run(mode);
      results.push(result);
      console.log(show(result));
    }
  }
  for (const mode of MODES) {
    const mine = results.filter((result) => result.mode === mode);
    const medians = Object.fromEntries(Object.keys(mine[0]).filter((key) => key !== 'mode').map((key) => [key, median(mine.map((result) => result[key]))]));
    console.log(`median ${show({ ...medians, mode })}`);
  }
} finally {
  await pool.end();
  await env.drop();
}
