// The validity gate after every run: a run's numbers are only worth publishing when the
// switch really did what k6 says it did. It prints PASS or FAIL with reasons:
//   1. committed transfers of the run in MySQL = k6's completed_transactions;
//   2. no transfer of the run left non-final after its expiry (plus a grace period);
//   3. money conserved: the run's position changes sum to zero, the payers' net change and
//      the payees' commits both equal the committed amount, and every position account's
//      position equals the sum of its journal;
//   4. settlement: every committed transfer of the run is recorded in exactly one settlement
//      window, and every settlement's journal entries sum to zero; when the run settled on a
//      schedule, every window holding the run's transfers ended SETTLED;
//   5. Kafka high-water marks moved consistently: fulfil ≈ prepare, notification ≈ the
//      expected multiple of prepare (Mojaloop's whitepaper gate: within 2 %); in a fault run
//      (perf/chaos.js) no fewer, as redelivery may produce a record twice (never apply it
//      twice: checks 1 and 3 hold exactly).
// The run's transfers are recognised by their id (perf/simulators/correlator.js ownedId:
// characters 3–8 are the run tag).
import Kafka from 'node-rdkafka';
import { TOPIC, topicDefinitions } from '../platform/kafka/topics.js';

const FINAL = ['COMMITTED', 'ABORTED_REJECTED', 'ABORTED_ERROR', 'INVALID', 'EXPIRED_PREPARED', 'EXPIRED_RESERVED'];
const EXPIRY_GRACE_MS = 5_000;

const runPattern = (runTag) => `__${runTag}-%`;

/** The sum over partitions of every switch topic's high-water mark. */
export async function topicHighWaterMarks({ brokers, prefix = '' }) {
  const producer = new Kafka.Producer({ 'bootstrap.servers': brokers, 'client.id': 'perf-gate' });
  await new Promise((resolve, reject) => producer.connect({ timeout: 10_000 }, (error) => (error ? reject(error) : resolve())));
  try {
    const marks = {};
    for (const { name, partitions } of topicDefinitions(prefix)) {
      let sum = 0;
      for (let partition = 0; partition < partitions; partition += 1) {
        sum += await new Promise((resolve, reject) => producer.queryWatermarkOffsets(name, partition, 10_000, (error, offsets) => (error ? reject(error) : resolve(offsets.highOffset))));
      }
      marks[name.slice(prefix.length)] = sum;
    }
    return marks;
  } finally {
    await new Promise((resolve) => producer.disconnect(resolve));
  }
}

/** Waits until every transfer of the run is final, or `timeoutMs` passed; returns how many are not. */
export async function waitForFinality(db, runTag, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ n }] = await db('transfer').where('transfer_id', 'like', runPattern(runTag)).whereNotIn('state', FINAL).count({ n: '*' });
    if (Number(n) === 0 || Date.now() >= deadline) return Number(n);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function transferChecks(db, runTag, completed) {
  const reasons = [];
  const rows = await db('transfer').where('transfer_id', 'like', runPattern(runTag)).select('state').count({ n: '*' }).sum({ amount: 'amount' }).groupBy('state');
  const byState = Object.fromEntries(rows.map((row) => [row.state, { n: Number(row.n), amount: String(row.amount) }]));
  const committed = byState.COMMITTED?.n ?? 0;
  if (committed !== completed) reasons.push(`committed in MySQL ${committed} ≠ k6 completed ${completed}`);
  const [stuck] = await db('transfer').where('transfer_id', 'like', runPattern(runTag)).whereNotIn('state', FINAL)
    .where('expires_at', '<', new Date(Date.now() - EXPIRY_GRACE_MS)).count({ n: '*' });
  if (Number(stuck.n) > 0) reasons.push(`${stuck.n} transfers still non-final after their expiry`);
  return { reasons, byState, committedAmount: byState.COMMITTED?.amount ?? '0' };
}

async function moneyChecks(db, runTag, committedAmount) {
  const reasons = [];
  const sums = await db('position_change').where('transfer_id', 'like', runPattern(runTag)).select('reason').sum({ total: 'change' }).groupBy('reason');
  const by = Object.fromEntries(sums.map((row) => [row.reason, Number(row.total)]));
  const total = Object.values(by).reduce((sum, value) => sum + value, 0);
  const expected = Number(committedAmount);
  const payerNet = (by.PREPARE ?? 0) + (by.ABORT ?? 0) + (by.TIMEOUT ?? 0);
  if (Math.abs(total) > 1e-6) reasons.push(`the run's position changes sum to ${total}, not 0`);
  if (Math.abs(payerNet - expected) > 1e-6) reasons.push(`payers' net position change ${payerNet} ≠ committed amount ${expected}`);
  if (Math.abs(-(by.COMMIT ?? 0) - expected) > 1e-6) reasons.push(`payees' commits ${-(by.COMMIT ?? 0)} ≠ committed amount ${expected}`);
  const drift = await db('position as p')
    .leftJoin(db('position_change').select('account_id').sum({ journal: 'change' }).groupBy('account_id').as('j'), 'j.account_id', 'p.account_id')
    .whereRaw('p.value <> COALESCE(j.journal, 0)').select('p.account_id', 'p.value', 'j.journal');
  for (const row of drift) reasons.push(`account ${row.account_id}: position ${row.value} ≠ journal ${row.journal ?? 0}`);
  return { reasons, changes: by };
}

/**
 * Kafka's counts against the prepares. A payer's resend of a transfer whose fate was unknown
 * (`payerRetries.resent`, perf/simulators/bridge.js) is one more prepare record and may bring
 * one more fulfil and two more notifications (the prepare forwarded again, the payee's second
 * answer refused as a changed duplicate); a GET of a transfer's state (`asked`) is one
 * fulfil-topic record and one notification. An iteration that failed after its discovery or
 * quote (`failed`, k6's failed_transactions: a fault) made their notifications without a
 * prepare: up to the expected multiple less the transfer's 2.
 */
function kafkaChecks(before, after, expectedNotificationRatio, { resent = 0, asked = 0 } = {}, failed = 0, duplicatesAllowed = false) {
  const delta = Object.fromEntries(Object.keys(after).map((topic) => [topic, after[topic] - (before[topic] ?? 0)]));
  const prepare = delta[TOPIC.transferPrepare] - resent;
  const reasons = [];
  // Within 2 % of the expected count, and no more above it than resends and failed
  // iterations explain; with duplicatesAllowed (a fault run: a handler whose produce failed
  // after its commit produces its output again, at least once) only no fewer.
  const within = (count, expected, extra) => count - expected >= -expected * 0.02 && (duplicatesAllowed || count - expected <= expected * 0.02 + extra);
  if (prepare > 0) {
    const fulfil = delta[TOPIC.transferFulfil] - asked;
    if (!within(fulfil, prepare, resent)) reasons.push(`Kafka fulfil/prepare = ${(fulfil / prepare).toFixed(3)}, expected 1.0 ± 2 %`);
    const notification = delta[TOPIC.notificationEvent] - asked;
    const withoutPrepare = Math.max(0, (expectedNotificationRatio ?? 0) - 2) * failed;
    if (expectedNotificationRatio && !within(notification, expectedNotificationRatio * prepare, 2 * resent + withoutPrepare)) {
      reasons.push(`Kafka notification/prepare = ${(notification / prepare).toFixed(3)}, expected ${expectedNotificationRatio} ± 2 %`);
    }
  }
  return { reasons, delta: { ...delta, payerResent: resent, payerAsked: asked } };
}

async function settlementChecks(db, runTag, committed, settled) {
  const reasons = [];
  const [{ n: recorded }] = await db('settlement_window_transfer').where('transfer_id', 'like', runPattern(runTag)).count({ n: '*' });
  if (Number(recorded) !== committed) reasons.push(`${recorded} of the run's ${committed} committed transfers are recorded in a settlement window`);
  const unbalanced = await db('position_change').whereIn('reason', ['SETTLEMENT_POSITION', 'SETTLEMENT_FUNDS', 'GROSS_SETTLEMENT']).select('transfer_id').sum({ total: 'change' })
    .groupBy('transfer_id').havingRaw('SUM(`change`) <> 0');
  for (const row of unbalanced) reasons.push(`settlement entries ${row.transfer_id} sum to ${row.total}, not 0`);
  if (settled) {
    const [{ n: unsettled }] = await db('settlement_window_transfer as t').join('settlement_window as w', 'w.id', 't.settlement_window_id')
      .where('t.transfer_id', 'like', runPattern(runTag)).whereNull('t.gross_settled_at').whereNot('w.state', 'SETTLED').count({ n: '*' });
    if (Number(unsettled) > 0) reasons.push(`${unsettled} committed transfers of the run are in windows not SETTLED`);
    reasons.push(...settled.failures.map((failure) => `settlement on schedule: ${failure}`));
  }
  return { reasons };
}

/** Runs every check; `{ pass, reasons, details }`. */
export async function runGate({ db, runTag, completed, failed = 0, marksBefore, marksAfter, expectedNotificationRatio, payerRetries, duplicatesAllowed = false, settled }) {
  const transfers = await transferChecks(db, runTag, completed);
  const money = await moneyChecks(db, runTag, transfers.committedAmount);
  const settlement = await settlementChecks(db, runTag, transfers.byState.COMMITTED?.n ?? 0, settled);
  // Without high-water marks (a run made elsewhere, see main) there is nothing to compare.
  const kafka = marksAfter ? kafkaChecks(marksBefore, marksAfter, expectedNotificationRatio, payerRetries, failed, duplicatesAllowed) : { reasons: [], delta: null };
  const reasons = [...(completed > 0 ? [] : ['no transaction completed']), ...transfers.reasons, ...money.reasons, ...settlement.reasons, ...kafka.reasons];
  return { pass: reasons.length === 0, reasons, details: { states: transfers.byState, positionChanges: money.changes, kafkaDelta: kafka.delta } };
}

export function printGate(result, write = (line) => process.stdout.write(`${line}\n`)) {
  write(`GATE ${result.pass ? 'PASS' : 'FAIL'}`);
  for (const reason of result.reasons) write(`  - ${reason}`);
  write(`  states ${JSON.stringify(result.details.states)} kafka ${JSON.stringify(result.details.kafkaDelta)}`);
}


/**
 * The gate on its own, for a run made elsewhere (the chart's in-cluster load test): the
 * transfer, money and settlement checks against the database the switch's configuration
 * names (DB_* variables, as every process reads them). Kafka's counts need the high-water
 * marks from before the run, which only perf/run.js takes, so they are left out here.
 *   node perf/gate.js --run-tag 000002 --completed 120 [--failed 0] [--wait-seconds 120]
 * Exits 0 on PASS, 1 on FAIL.
 */
async function main() {
  const { parseArgs } = await import('node:util');
  const { loadConfig } = await import('../platform/config.js');
  const { createDatabase } = await import('../platform/db.js');
  const { values } = parseArgs({ options: {
    'run-tag': { type: 'string' }, completed: { type: 'string' }, failed: { type: 'string', default: '0' }, 'wait-seconds': { type: 'string', default: '120' },
  } });
  if (!/^[0-9a-f]{6}$/.test(values['run-tag'] ?? '') || !/^\d+$/.test(values.completed ?? '')) {
    process.stderr.write('usage: node perf/gate.js --run-tag <6 hex digits> --completed <n> [--failed <n>] [--wait-seconds <s>]\n');
    process.exit(2);
  }
  const config = loadConfig({ SERVICE_NAME: 'perf-gate', ...process.env });
  const db = createDatabase(config.db);
  try {
    const runTag = values['run-tag'];
    const notFinal = await waitForFinality(db, runTag, Number(values['wait-seconds']) * 1000);
    if (notFinal > 0) process.stdout.write(`${notFinal} transfers of run ${runTag} still not final\n`);
    const result = await runGate({ db, runTag, completed: Number(values.completed), failed: Number(values.failed) });
    printGate(result);
    process.exitCode = result.pass ? 0 : 1;
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
