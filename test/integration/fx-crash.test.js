// A stream of conversion payments (handlers/README.md, "Currency conversion") with the
// position handler SIGKILLed while some payments hold their reservations, their conversions
// fulfilled by the FXP and waiting for the payment's commit, and then restarted. Every
// conversion and payment must end final, nothing may be applied twice, each currency's
// positions must be what the committed ones say, and a payment and its conversion must end
// together. The validity gate (perf/gate.js) is run on the same database, and then shown to
// catch each FX fault it checks for when the database is spoiled on purpose.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { amountFromColumn, parseAmount } from '../../ledger/domain/money.js';
import { ownedId } from '../../perf/simulators/correlator.js';
import { printGate, runGate } from '../../perf/gate.js';
import { FXP, PAYEE, PAYER, conversionPayment, startFxScene } from '../support/fx-switch.js';

const PAYMENTS = 40;
const STARTED_EVERY_MS = 60;
// The payee answers late enough that, at any moment of the stream, several payments are
// reserved and waiting for their commit.
const PAYEE_DELAY_MS = 500;
const RESERVED_BEFORE_KILL = 3;
const DOWN_MS = 1500;
const FINAL = ['COMMITTED', 'ABORTED_ERROR', 'ABORTED_REJECTED', 'EXPIRED_PREPARED', 'EXPIRED_RESERVED', 'INVALID'];
// A payment reserved and not yet committed: waiting for the payee, or for the position handler's commit.
const HOLDING = ['RESERVED', 'RECEIVED_FULFIL'];
const RUN_TAG = randomBytes(3).toString('hex');

let scene;
let db;
const flows = [];
let committedFlows = [];

before(async () => {
  scene = await startFxScene({ netDebitCap: '1000000', fundsIn: '1000000' });
  db = scene.sw.admin.db;
  scene.payee.delayMs = PAYEE_DELAY_MS;
});

after(() => scene?.stop());

const runId = () => ownedId(1, RUN_TAG, randomBytes(16));

/** The index-th conversion payment: varied amounts with no trailing zeros, ids of the run. */
function nextFlow(index) {
  return conversionPayment(scene.payee, {
    transferId: runId(), commitRequestId: runId(), expiresInMs: 90_000,
    sourceAmount: `${10 + (index % 7)}.${1 + (index % 9)}`, targetAmount: `${9 + (index % 5)}.${1 + (index % 8)}`,
  });
}

/** Waits until enough payments hold reservations, SIGKILLs the position handler, and restarts it after DOWN_MS. */
async function killPositionMidStream() {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [{ n }] = await db('transfer').where({ kind: 'PAYMENT' }).whereIn('state', HOLDING).count({ n: '*' });
    if (Number(n) >= RESERVED_BEFORE_KILL) break;
    if (Date.now() > deadline) throw new Error('no payments were ever reserved together');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await scene.sw.kill('position', 0);
  // With the position handler gone nothing commits or reserves: what is reserved now was reserved at the kill.
  const payments = await db('transfer').where({ kind: 'PAYMENT' }).whereIn('state', HOLDING).select('state', 'commit_request_id');
  const conversions = await db('transfer').whereIn('transfer_id', payments.map((row) => row.commit_request_id)).select('state');
  await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
  await scene.sw.start('position', 0);
  const fulfilled = payments.filter((row) => row.state === 'RECEIVED_FULFIL').length;
  return { payments: payments.length, fulfilled, conversionStates: conversions.map((row) => row.state) };
}

async function waitAllFinal(ids, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await db('transfer').whereIn('transfer_id', ids).select('transfer_id', 'kind', 'state');
    const pending = ids.length - rows.filter((row) => FINAL.includes(row.state)).length;
    if (pending === 0) return new Map(rows.map((row) => [row.transfer_id, row]));
    if (Date.now() > deadline) throw new Error(`${pending} of ${ids.length} payments and conversions are not final`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Each position account's value, as scaled BigInt, by `${participant} ${currency}`. */
async function positionValues() {
  const rows = await db('position as p').join('account as a', 'a.id', 'p.account_id').join('participant as pt', 'pt.id', 'a.participant_id')
    .where('a.type', 'POSITION').select('pt.name', 'a.currency', 'p.value');
  return new Map(rows.map((row) => [`${row.name} ${row.currency}`, amountFromColumn(row.value)]));
}

test('SIGKILL of the position handler between the reservations and the commits of conversion payments: all final, nothing applied twice, each currency conserved, each payment ends with its conversion', { timeout: 240_000 }, async (t) => {
  const outcomes = [];
  const killed = killPositionMidStream();
  for (let index = 0; index < PAYMENTS; index += 1) {
    const flow = nextFlow(index);
    flows.push(flow);
    outcomes.push(scene.payThroughFxp(flow, { timeoutMs: 90_000 }));
    await new Promise((resolve) => setTimeout(resolve, STARTED_EVERY_MS));
  }
  const atKill = await killed;
  assert.ok(atKill.payments > 0, 'the kill came while payments were reserved and not committed');
  assert.ok(atKill.conversionStates.every((state) => state === 'RECEIVED_FULFIL_DEPENDENT'), `their conversions wait for them: ${atKill.conversionStates.join(', ')}`);
  await Promise.all(outcomes);
  t.diagnostic(`at the kill ${atKill.payments} payments held reservations, ${atKill.fulfilled} of them fulfilled by the payee and waiting for their commit`);

  const rows = await waitAllFinal(flows.flatMap((flow) => [flow.transferId, flow.commitRequestId]), 90_000);
  const committed = flows.filter((flow) => rows.get(flow.transferId).state === 'COMMITTED');
  committedFlows = committed;
  t.diagnostic(`${committed.length} of ${PAYMENTS} conversion payments committed`);
  assert.ok(committed.length >= PAYMENTS * 0.95, `most payments commit (${committed.length} of ${PAYMENTS})`);
  for (const flow of flows) {
    const [payment, conversion] = [rows.get(flow.transferId), rows.get(flow.commitRequestId)];
    assert.deepEqual([payment.kind, conversion.kind], ['PAYMENT', 'FX_TRANSFER']);
    assert.equal(payment.state === 'COMMITTED', conversion.state === 'COMMITTED', `payment ${payment.state}, its conversion ${conversion.state}`);
  }

  const [duplicates] = await db.raw('SELECT transfer_id, account_id, reason, COUNT(*) AS n FROM position_change GROUP BY transfer_id, account_id, reason HAVING n > 1');
  assert.deepEqual(duplicates, [], 'no position change was applied twice');
  const sum = (amounts) => amounts.reduce((total, amount) => total + parseAmount(amount), 0n);
  const source = sum(committed.map((flow) => flow.conversion.sourceAmount.amount));
  const target = sum(committed.map((flow) => flow.payment.amount.amount));
  assert.deepEqual(Object.fromEntries(await positionValues()), {
    [`${PAYER} USD`]: source, [`${FXP} USD`]: -source, [`${FXP} EUR`]: target, [`${PAYEE} EUR`]: -target,
  }, 'payer → FXP in USD, FXP → payee in EUR, each committed conversion payment once');

  const gate = await runGate({ db, runTag: RUN_TAG, completed: committed.length });
  const printed = [];
  printGate(gate, (line) => printed.push(line));
  assert.deepEqual(gate.reasons, []);
  assert.equal(printed[0], 'GATE PASS');
});

test('the validity gate fails a conversion that did not end with its payment, a conversion left past its expiry, and money lost in one currency', async () => {
  assert.ok(committedFlows.length >= 3, 'the previous test\'s committed conversion payments');
  const [lostConversion, lostPayment, stuck] = committedFlows;
  await db('transfer').where({ transfer_id: lostConversion.commitRequestId }).update({ state: 'ABORTED_ERROR' });
  await db('transfer').where({ transfer_id: lostPayment.transferId }).update({ state: 'ABORTED_ERROR' });
  await db('transfer').where({ transfer_id: stuck.commitRequestId }).update({ state: 'RECEIVED_FULFIL_DEPENDENT', expires_at: new Date(Date.now() - 60_000) });
  const [{ n: committedPayments }] = await db('transfer').where({ kind: 'PAYMENT', state: 'COMMITTED' }).where('transfer_id', 'like', `__${RUN_TAG}-%`).count({ n: '*' });

  const gate = await runGate({ db, runTag: RUN_TAG, completed: Number(committedPayments) });
  const printed = [];
  printGate(gate, (line) => printed.push(line));
  assert.equal(printed[0], 'GATE FAIL');
  const has = (reason) => assert.ok(gate.reasons.includes(reason), `${reason}\n  in ${gate.reasons.join('\n  ')}`);
  has(`payment ${lostConversion.transferId} is COMMITTED but its conversion ${lostConversion.commitRequestId} is ABORTED_ERROR`);
  has(`conversion ${lostPayment.commitRequestId} is COMMITTED but its payment ${lostPayment.transferId} is ABORTED_ERROR`);
  has(`payment ${stuck.transferId} is COMMITTED but its conversion ${stuck.commitRequestId} is RECEIVED_FULFIL_DEPENDENT`);
  has('1 conversions still non-final after their expiry');
  // Two conversions and one payment no longer count as committed: the USD and the EUR books
  // each miss what those moved, each named on its own.
  assert.ok(gate.reasons.some((reason) => reason.startsWith('USD: payers\' net position change')), gate.reasons.join('\n'));
  assert.ok(gate.reasons.some((reason) => reason.startsWith('EUR: payers\' net position change')), gate.reasons.join('\n'));
  assert.ok(!gate.reasons.some((reason) => /position changes sum to/.test(reason)), 'the journal itself still balances in each currency');
});
