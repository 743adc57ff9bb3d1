// The validity gate after every run: a run's numbers are only worth publishing when the
// switch really did what k6 says it did. It prints PASS or FAIL with reasons:
//   1. committed payments of the run in MySQL = k6's completed_transactions;
//   2. no payment or conversion (fx transfer) of the run left non-final after its expiry
//      (plus a grace period);
//   3. money conserved in each currency on its own: the run's position changes in it sum to
//      zero, the payers' net change and the payees' commits both equal what committed in it
//      (a conversion in its source currency, its payment in the target one), and every
//      position account's position equals the sum of its journal;
//   4. a payment and its conversion end together: every committed payment naming a
//      conversion (commitRequestId) has it COMMITTED, and every COMMITTED conversion its payment;
//   4b. a request to pay ends in its payment: as many of the run's transaction requests as k6
//      counted requests to pay completed are linked (quoting's transaction_request.quote_id
//      and transaction_id) to a quote between the same two DFSPs and to a COMMITTED transfer
//      from the payer's DFSP to the merchant's, of the amount the merchant asked;
//   5. settlement: every committed payment and conversion of the run is recorded in exactly
//      one settlement window, and every settlement's journal entries sum to zero; when the run
//      settled on a schedule, every window holding the run's transfers ended SETTLED;
//   6. Kafka high-water marks moved consistently: fulfil ≈ prepare, notification ≈ the
//      expected multiple of prepare (Mojaloop's whitepaper gate: within 2 %); in a fault run
//      (perf/chaos.js) no fewer, as redelivery may produce a record twice (never apply it
//      twice: checks 1 and 3 hold exactly).
//   6b. payments by API type pair (a run with ISO 20022 DFSPs, --iso20022-share): the run's
//      committed payments counted by the types their payer and payee are registered with; for
//      each pair with an ISO 20022 side, as many as the payers counted completed (those are
//      made by perf/simulators/iso-dfsp.js alone, the others by the FSPIOP path).
//   7. bulks (a bulk run, perf/k6/bulk.js): every bulk k6 counted completed is COMPLETED in
//      the ledger's bulk table with every item's transfer COMMITTED (as many such bulks as k6
//      counted), and no bulk of the run is left unfinished (RECEIVED, ACCEPTED, PROCESSING)
//      after its expiry; its items' transfers are the run's transfers in checks 1 to 3 and 5.
// The run's payments and conversions are recognised by their id (perf/simulators/correlator.js
// ownedId: characters 3–8 are the run tag; ownedUlid, the ISO 20022 payments' ULIDs: characters
// 11–15 are the run tag in base 32).
import Kafka from 'node-rdkafka';
import { TOPIC, topicDefinitions } from '../platform/kafka/topics.js';
import { amountFromColumn, formatAmount } from '../ledger/domain/money.js';
import { runTagInUlid } from './simulators/correlator.js';

const FINAL = ['COMMITTED', 'ABORTED_REJECTED', 'ABORTED_ERROR', 'INVALID', 'EXPIRED_PREPARED', 'EXPIRED_RESERVED'];
const EXPIRY_GRACE_MS = 5_000;

/**
 * A where-clause for rows whose `column` is an id of run `runTag`: a UUID of correlator.js
 * ownedId (characters 3–8 the run tag) or, for a payment with an ISO 20022 DFSP, a ULID of
 * ownedUlid (characters 11–15 the run tag in base 32).
 */
export const ofRun = (column, runTag) => (ids) => ids.where(column, 'like', `__${runTag}-%`).orWhere(column, 'like', `__________${runTagInUlid(runTag)}%`);

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
    const [{ n }] = await db('transfer').where(ofRun('transfer_id', runTag)).whereNotIn('state', FINAL).count({ n: '*' });
    if (Number(n) === 0 || Date.now() >= deadline) return Number(n);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const FX_TRANSFER = 'FX_TRANSFER';
const PAYMENT = 'PAYMENT';

/** Scaled BigInt sums by key, from rows of `{ key…, total }` (a SUM column, as exact decimal text). */
function sumsBy(rows, keyOf) {
  const sums = new Map();
  for (const row of rows) sums.set(keyOf(row), (sums.get(keyOf(row)) ?? 0n) + amountFromColumn(row.total ?? '0'));
  return sums;
}

/**
 * The run's payments by state (what k6 counted), the committed amount per currency of both
 * kinds (a conversion commits in its source currency, its payment in the target one), and
 * whatever was left non-final past its expiry, payments and conversions named apart.
 */
async function transferChecks(db, runTag, completed) {
  const reasons = [];
  const transfersOfRun = () => db('transfer').where(ofRun('transfer_id', runTag));
  const rows = await transfersOfRun().select('kind', 'state', 'currency').count({ n: '*' }).sum({ total: 'amount' }).groupBy('kind', 'state', 'currency');
  const byState = {};
  for (const row of rows.filter((candidate) => candidate.kind !== FX_TRANSFER)) {
    const state = byState[row.state] ?? { n: 0, amount: 0n };
    byState[row.state] = { n: state.n + Number(row.n), amount: state.amount + amountFromColumn(row.total) };
  }
  for (const state of Object.values(byState)) state.amount = formatAmount(state.amount);
  const committed = byState.COMMITTED?.n ?? 0;
  if (committed !== completed) reasons.push(`committed in MySQL ${committed} ≠ k6 completed ${completed}`);
  const committedRows = rows.filter((row) => row.state === 'COMMITTED');
  const stuck = await transfersOfRun().whereNotIn('state', FINAL).where('expires_at', '<', new Date(Date.now() - EXPIRY_GRACE_MS)).select('kind').count({ n: '*' }).groupBy('kind');
  for (const { kind, n } of stuck) reasons.push(`${n} ${kind === FX_TRANSFER ? 'conversions' : 'transfers'} still non-final after their expiry`);
  return {
    reasons,
    byState,
    committedByCurrency: sumsBy(committedRows, (row) => row.currency),
    committedRecords: committedRows.reduce((sum, row) => sum + Number(row.n), 0),
  };
}

// What a payer's reservation and its release move (a payment's payer account, or a
// conversion's source account), and what a commit credits (payee, or the FXP's source).
const RESERVATION_REASONS = ['PREPARE', 'ABORT', 'TIMEOUT', 'FX_PREPARE', 'FX_ABORT', 'FX_TIMEOUT'];
const COMMIT_REASONS = ['COMMIT', 'FX_COMMIT'];

/**
 * Money is conserved in each currency on its own: the run's position changes in it sum to
 * zero, the reservations left standing equal what committed in it, and so do the commits'
 * credits. Every position account's position equals the sum of its journal.
 */
export async function moneyChecks(db, runTag, committedByCurrency) {
  const reasons = [];
  const rows = await db('position_change as c').join('account as a', 'a.id', 'c.account_id').where(ofRun('c.transfer_id', runTag))
    .select('a.currency', 'c.reason').sum({ total: 'c.change' }).groupBy('a.currency', 'c.reason');
  const byCurrency = sumsBy(rows, (row) => row.currency);
  const reserved = sumsBy(rows.filter((row) => RESERVATION_REASONS.includes(row.reason)), (row) => row.currency);
  const credited = sumsBy(rows.filter((row) => COMMIT_REASONS.includes(row.reason)), (row) => row.currency);
  for (const currency of new Set([...byCurrency.keys(), ...committedByCurrency.keys()])) {
    const expected = committedByCurrency.get(currency) ?? 0n;
    const total = byCurrency.get(currency) ?? 0n;
    const payerNet = reserved.get(currency) ?? 0n;
    const payeeNet = -(credited.get(currency) ?? 0n);
    if (total !== 0n) reasons.push(`${currency}: the run's position changes sum to ${formatAmount(total)}, not 0`);
    if (payerNet !== expected) reasons.push(`${currency}: payers' net position change ${formatAmount(payerNet)} ≠ committed amount ${formatAmount(expected)}`);
    if (payeeNet !== expected) reasons.push(`${currency}: payees' commits ${formatAmount(payeeNet)} ≠ committed amount ${formatAmount(expected)}`);
  }
  const drift = await db('position as p')
    .leftJoin(db('position_change').select('account_id').sum({ journal: 'change' }).groupBy('account_id').as('j'), 'j.account_id', 'p.account_id')
    .whereRaw('p.value <> COALESCE(j.journal, 0)').select('p.account_id', 'p.value', 'j.journal');
  for (const row of drift) reasons.push(`account ${row.account_id}: position ${row.value} ≠ journal ${row.journal ?? 0}`);
  const changes = Object.fromEntries(rows.map((row) => [`${row.currency} ${row.reason}`, formatAmount(amountFromColumn(row.total))]));
  return { reasons, changes };
}

/**
 * A payment and its conversion end together: every committed payment of the run that names
 * a conversion has it COMMITTED, and every COMMITTED conversion of the run has its payment
 * (the one naming it) COMMITTED.
 */
export async function conversionChecks(db, runTag) {
  const reasons = [];
  const payments = await db('transfer as p').leftJoin('transfer as c', 'c.transfer_id', 'p.commit_request_id')
    .where(ofRun('p.transfer_id', runTag)).where({ 'p.kind': PAYMENT, 'p.state': 'COMMITTED' }).whereNotNull('p.commit_request_id')
    .where((unmatched) => unmatched.whereNull('c.state').orWhereNot('c.state', 'COMMITTED')).select('p.transfer_id', 'p.commit_request_id', 'c.state');
  for (const row of payments) reasons.push(`payment ${row.transfer_id} is COMMITTED but its conversion ${row.commit_request_id} is ${row.state ?? 'missing'}`);
  const conversions = await db('transfer as c').leftJoin('transfer as p', function byConversion() {
    this.on('p.commit_request_id', 'c.transfer_id').andOnVal('p.kind', PAYMENT);
  }).where(ofRun('c.transfer_id', runTag)).where({ 'c.kind': FX_TRANSFER, 'c.state': 'COMMITTED' })
    .where((unmatched) => unmatched.whereNull('p.state').orWhereNot('p.state', 'COMMITTED')).select('c.transfer_id', 'c.determining_transfer_id', 'p.state');
  for (const row of conversions) reasons.push(`conversion ${row.transfer_id} is COMMITTED but its payment ${row.determining_transfer_id} is ${row.state ?? 'missing'}`);
  return { reasons };
}

// A few mismatches are named one by one; the rest are counted.
const NAMED_MISMATCHES_MAX = 5;

/** Why a transaction request whose transfer COMMITTED is not linked to it as it should be, or null. */
function requestToPayMismatch(row) {
  if (row.transfer_payer !== row.payer_fsp || row.transfer_payee !== row.payee_fsp) {
    return `its transfer ${row.transaction_id} went from ${row.transfer_payer} to ${row.transfer_payee}, not from ${row.payer_fsp} to ${row.payee_fsp}`;
  }
  if (row.quote_payer === null) return `its quote ${row.quote_id} is missing`;
  if (row.quote_payer !== row.payer_fsp || row.quote_payee !== row.payee_fsp) return `its quote ${row.quote_id} is between ${row.quote_payer} and ${row.quote_payee}`;
  // The quote's transactionId is kept only with QUOTES_PERSIST=true; the request's amount too.
  if (row.quote_transaction_id !== null && row.quote_transaction_id !== row.transaction_id) return `its quote ${row.quote_id} is for transaction ${row.quote_transaction_id}`;
  if (row.amount !== null && amountFromColumn(row.amount) !== amountFromColumn(row.transfer_amount)) return `it asked ${row.amount}, its transfer moved ${row.transfer_amount}`;
  return null;
}

/**
 * Every request to pay k6 counted completed (`requestsToPay`, the warm-up's included) is one of
 * the run's transaction requests linked to its quote and to its COMMITTED transfer, with the
 * same DFSPs and amount.
 */
export async function requestToPayChecks(db, runTag, requestsToPay) {
  const rows = await db('transaction_request as r').join('transfer as t', 't.transfer_id', 'r.transaction_id').leftJoin('quote as q', 'q.quote_id', 'r.quote_id')
    .where(ofRun('r.transaction_request_id', runTag)).where('t.state', 'COMMITTED')
    .select('r.transaction_request_id', 'r.payer_fsp', 'r.payee_fsp', 'r.amount', 'r.quote_id', 'r.transaction_id', 't.payer_fsp as transfer_payer',
      't.payee_fsp as transfer_payee', 't.amount as transfer_amount', 'q.payer_fsp as quote_payer', 'q.payee_fsp as quote_payee', 'q.transaction_id as quote_transaction_id');
  const mismatches = rows.map((row) => [row.transaction_request_id, requestToPayMismatch(row)]).filter(([, mismatch]) => mismatch);
  const reasons = mismatches.slice(0, NAMED_MISMATCHES_MAX).map(([id, mismatch]) => `request to pay ${id}: ${mismatch}`);
  if (mismatches.length > NAMED_MISMATCHES_MAX) reasons.push(`${mismatches.length - NAMED_MISMATCHES_MAX} more requests to pay are linked wrongly`);
  const linked = rows.length - mismatches.length;
  if (linked !== requestsToPay) reasons.push(`requests to pay linked to a COMMITTED transfer ${linked} ≠ k6 completed ${requestsToPay}`);
  return { reasons, linked };
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

const FSPIOP_PAIR = 'FSPIOP→FSPIOP';

/**
 * The run's committed payments (conversions' own records apart) by API type pair, `isoDfsps`
 * the DFSPs registered as ISO 20022; each type pair with an ISO 20022 side must have as many as
 * the payers counted completed (`isoPayments`, by the same keys).
 */
export async function typePairChecks(db, runTag, isoDfsps, isoPayments = {}) {
  const rows = await db('transfer').where(ofRun('transfer_id', runTag)).where({ kind: PAYMENT, state: 'COMMITTED' })
    .select('payer_fsp', 'payee_fsp').count({ n: '*' }).groupBy('payer_fsp', 'payee_fsp');
  const typeOf = (name) => (isoDfsps.includes(name) ? 'ISO20022' : 'FSPIOP');
  const byTypePair = {};
  for (const row of rows) {
    const typePair = `${typeOf(row.payer_fsp)}→${typeOf(row.payee_fsp)}`;
    byTypePair[typePair] = (byTypePair[typePair] ?? 0) + Number(row.n);
  }
  const reasons = [];
  for (const typePair of new Set([...Object.keys(byTypePair), ...Object.keys(isoPayments)])) {
    if (typePair === FSPIOP_PAIR) continue;
    const committed = byTypePair[typePair] ?? 0;
    if (committed !== (isoPayments[typePair] ?? 0)) reasons.push(`${typePair}: committed in MySQL ${committed} ≠ payers' completed ${isoPayments[typePair] ?? 0}`);
  }
  return { reasons, byTypePair };
}

const FINAL_BULK_STATES = ['COMPLETED', 'REJECTED', 'EXPIRED'];

/**
 * A bulk run's bulks (their ids are the run's, as its transfers' are): as many bulks COMPLETED
 * with every item's transfer COMMITTED as k6 counted completed, and none left unfinished past
 * its expiry (plus the grace).
 */
export async function bulkChecks(db, runTag, bulksCompleted) {
  const reasons = [];
  const bulksOfRun = () => db('bulk_transfer').where(ofRun('bulk_transfer_id', runTag));
  const byState = Object.fromEntries((await bulksOfRun().select('state').count({ n: '*' }).groupBy('state')).map((row) => [row.state, Number(row.n)]));
  // An item with no transfer of its own (its id another transfer's) counts as not committed.
  const [{ n: whole }] = await bulksOfRun().where('state', 'COMPLETED').whereNotExists(db('bulk_transfer_item as i').leftJoin('transfer as t', 't.transfer_id', 'i.transfer_id')
    .whereRaw('i.bulk_transfer_id = bulk_transfer.bulk_transfer_id').where((uncommitted) => uncommitted.whereNull('t.state').orWhereNot('t.state', 'COMMITTED')).select(db.raw('1')))
    .count({ n: '*' });
  if (Number(whole) !== bulksCompleted) reasons.push(`bulks COMPLETED with every item COMMITTED in MySQL ${whole} ≠ k6 bulk_completed ${bulksCompleted}`);
  const [{ n: unfinished }] = await bulksOfRun().whereNotIn('state', FINAL_BULK_STATES).where('expires_at', '<', new Date(Date.now() - EXPIRY_GRACE_MS)).count({ n: '*' });
  if (Number(unfinished) > 0) reasons.push(`${unfinished} bulks still unfinished after their expiry`);
  return { reasons, byState };
}

async function settlementChecks(db, runTag, committed, settled) {
  const reasons = [];
  const [{ n: recorded }] = await db('settlement_window_transfer').where(ofRun('transfer_id', runTag)).count({ n: '*' });
  if (Number(recorded) !== committed) reasons.push(`${recorded} of the run's ${committed} committed payments and conversions are recorded in a settlement window`);
  const unbalanced = await db('position_change').whereIn('reason', ['SETTLEMENT_POSITION', 'SETTLEMENT_FUNDS', 'GROSS_SETTLEMENT']).select('transfer_id').sum({ total: 'change' })
    .groupBy('transfer_id').havingRaw('SUM(`change`) <> 0');
  for (const row of unbalanced) reasons.push(`settlement entries ${row.transfer_id} sum to ${row.total}, not 0`);
  if (settled) {
    const [{ n: unsettled }] = await db('settlement_window_transfer as t').join('settlement_window as w', 'w.id', 't.settlement_window_id')
      .where(ofRun('t.transfer_id', runTag)).whereNull('t.gross_settled_at').whereNot('w.state', 'SETTLED').count({ n: '*' });
    if (Number(unsettled) > 0) reasons.push(`${unsettled} committed transfers of the run are in windows not SETTLED`);
    reasons.push(...settled.failures.map((failure) => `settlement on schedule: ${failure}`));
  }
  return { reasons };
}

/** Runs every check; `{ pass, reasons, details }`. */
export async function runGate({
  db, runTag, completed, requestsToPay = 0, failed = 0, marksBefore, marksAfter, expectedNotificationRatio, payerRetries, duplicatesAllowed = false, settled, bulksCompleted,
  isoDfsps = [], isoPayments,
}) {
  const transfers = await transferChecks(db, runTag, completed);
  const bulks = bulksCompleted === undefined ? { reasons: [] } : await bulkChecks(db, runTag, bulksCompleted);
  const money = await moneyChecks(db, runTag, transfers.committedByCurrency);
  const conversions = await conversionChecks(db, runTag);
  const requests = await requestToPayChecks(db, runTag, requestsToPay);
  const settlement = await settlementChecks(db, runTag, transfers.committedRecords, settled);
  const typePairs = isoDfsps.length > 0 ? await typePairChecks(db, runTag, isoDfsps, isoPayments) : { reasons: [] };
  // Without high-water marks (a run made elsewhere, see main) there is nothing to compare.
  const kafka = marksAfter ? kafkaChecks(marksBefore, marksAfter, expectedNotificationRatio, payerRetries, failed, duplicatesAllowed) : { reasons: [], delta: null };
  const reasons = [
    ...(completed > 0 ? [] : ['no transaction completed']), ...transfers.reasons, ...money.reasons, ...conversions.reasons, ...requests.reasons, ...settlement.reasons, ...typePairs.reasons, ...kafka.reasons,
    ...bulks.reasons,
  ];
  const details = { states: transfers.byState, positionChanges: money.changes, kafkaDelta: kafka.delta, requestsToPayLinked: requests.linked, ...(bulks.byState ? { bulkStates: bulks.byState } : {}),
    ...(typePairs.byTypePair ? { paymentsByTypePair: typePairs.byTypePair } : {}),
  };
  return { pass: reasons.length === 0, reasons, details };
}

export function printGate(result, write = (line) => process.stdout.write(`${line}\n`)) {
  write(`GATE ${result.pass ? 'PASS' : 'FAIL'}`);
  for (const reason of result.reasons) write(`  - ${reason}`);
  write(`  states ${JSON.stringify(result.details.states)} kafka ${JSON.stringify(result.details.kafkaDelta)}`);
  if (result.details.bulkStates) write(`  bulks ${JSON.stringify(result.details.bulkStates)}`);
  if (result.details.paymentsByTypePair) write(`  payments by API type pair ${JSON.stringify(result.details.paymentsByTypePair)}`);
}


/**
 * The gate on its own, for a run made elsewhere (the chart's in-cluster load test): the
 * transfer, money and settlement checks against the database the switch's configuration
 * names (DB_* variables, as every process reads them). Kafka's counts need the high-water
 * marks from before the run, which only perf/run.js takes, so they are left out here.
 *   node perf/gate.js --run-tag 000002 --completed 120 [--requests-to-pay 0] [--bulks-completed 0] [--failed 0] [--wait-seconds 120]
 * (--completed counts a bulk's committed items as transfers; --bulks-completed the bulks k6
 * counted completed, which adds the bulk checks.)
 * Exits 0 on PASS, 1 on FAIL.
 */
async function main() {
  const { parseArgs } = await import('node:util');
  const { loadConfig } = await import('../platform/config.js');
  const { createDatabase } = await import('../platform/db.js');
  const { values } = parseArgs({ options: {
    'run-tag': { type: 'string' }, completed: { type: 'string' }, 'requests-to-pay': { type: 'string', default: '0' }, 'bulks-completed': { type: 'string' }, failed: { type: 'string', default: '0' }, 'wait-seconds': { type: 'string', default: '120' },
  } });
  if (!/^[0-9a-f]{6}$/.test(values['run-tag'] ?? '') || !/^\d+$/.test(values.completed ?? '')) {
    process.stderr.write('usage: node perf/gate.js --run-tag <6 hex digits> --completed <n> [--requests-to-pay <n>] [--bulks-completed <n>] [--failed <n>] [--wait-seconds <s>]\n');
    process.exit(2);
  }
  const config = loadConfig({ SERVICE_NAME: 'perf-gate', ...process.env });
  const db = createDatabase(config.db);
  try {
    const runTag = values['run-tag'];
    const notFinal = await waitForFinality(db, runTag, Number(values['wait-seconds']) * 1000);
    if (notFinal > 0) process.stdout.write(`${notFinal} transfers of run ${runTag} still not final\n`);
    const result = await runGate({ db, runTag, completed: Number(values.completed), requestsToPay: Number(values['requests-to-pay']), failed: Number(values.failed),
      bulksCompleted: values['bulks-completed'] === undefined ? undefined : Number(values['bulks-completed']),
    });
    printGate(result);
    process.exitCode = result.pass ? 0 : 1;
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
