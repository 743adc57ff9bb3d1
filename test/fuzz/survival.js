// What must hold after a fuzz run, whatever the fuzzer sent: every process is still the one
// that was started, every component answers /health, a normal transfer still goes prepare →
// fulfil → commit with its callbacks and a quote still reaches its payer (so every handler
// is still consuming), and the validity gate passes: the liveness transfers all committed,
// money conserved, every position equal to its journal; beyond the gate, over everything the
// fuzzer made: no transfer left open past its expiry, and the journal sums to zero apart from
// operator-set initial positions.
import { randomBytes } from 'node:crypto';
import { ownedId } from '../../perf/simulators/correlator.js';
import { runGate, topicHighWaterMarks, waitForFinality } from '../../perf/gate.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';
import { signedFetch } from '../support/jws-keys.js';
import { probeFetch } from '../support/scheme-tls.js';
import { quoteIlp } from '../support/test-dfsp.js';
import { quoteRequestBody } from '../support/quote-dfsp.js';
import { testConfig } from '../support/environment.js';

const LIVENESS_TRANSFERS = 5;
const CALLBACK_WAIT_MS = 10_000;
const SETTLE_MS = 3_000;
const EXPIRY_GRACE_MS = 5_000;
// Transfers are final in these states; the rest are still open.
const FINAL = ['COMMITTED', 'ABORTED_REJECTED', 'ABORTED_ERROR', 'INVALID', 'EXPIRED_PREPARED', 'EXPIRED_RESERVED'];

function processReasons(sw, pids) {
  const reasons = [];
  for (const [key, pid] of pids) {
    const child = sw.processes.get(key);
    if (child.pid !== pid) reasons.push(`${key} was restarted (pid ${pid} → ${child.pid})`);
    else if (child.exitCode !== null || child.signalCode !== null) reasons.push(`${key} exited (${child.exitCode ?? child.signalCode}): ${child.output.slice(-500)}`);
  }
  return reasons;
}

async function healthReasons(sw) {
  const reasons = [];
  for (const key of sw.ports.keys()) {
    const [, name, index] = /^(.+)-(\d+)$/.exec(key);
    const response = await probeFetch(`${sw.urlOf(name, Number(index))}/health`).catch((error) => ({ status: error.message }));
    if (response.status !== 200) reasons.push(`${key} /health answered ${response.status}`);
  }
  return reasons;
}

/** Prepares one transfer of the gate's run and waits for the payer's COMMITTED callback. */
async function livenessTransfer({ sw, dfsps, runTag, index }) {
  const { livepayer: payer, livepayee: payee } = dfsps;
  const transferId = ownedId(index, runTag, randomBytes(16));
  const expiration = new Date(Date.now() + 30_000).toISOString();
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount: '10', currency: 'USD', payeeAddress: 'g.livepayee.msisdn.1', expiration });
  const body = { transferId, payerFsp: 'livepayer', payeeFsp: 'livepayee', amount: { amount: '10', currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: dfspHeaders('transfers', 'livepayer', 'livepayee'), body: JSON.stringify(body) });
  if (response.status !== 202) return `liveness transfer ${transferId}: HTTP ${response.status} ${await response.text()}`;
  try {
    const callback = await payer.waitFor((call) => call.method === 'PUT' && call.path.startsWith(`/transfers/${transferId}`), CALLBACK_WAIT_MS);
    return callback.body?.transferState === 'COMMITTED' ? null : `liveness transfer ${transferId}: the payer was told ${JSON.stringify(callback.body)}`;
  } catch {
    return `liveness transfer ${transferId}: no callback to the payer within ${CALLBACK_WAIT_MS} ms`;
  }
}

async function livenessQuote({ dfsps, quotingUrl }) {
  const body = quoteRequestBody({ amount: '10', payer: 'livepayer', payee: 'livepayee' });
  const response = await signedFetch(`${quotingUrl}/quotes`, { method: 'POST', headers: dfspHeaders('quotes', 'livepayer', 'livepayee'), body: JSON.stringify(body) });
  if (response.status !== 202) return `liveness quote: HTTP ${response.status} ${await response.text()}`;
  try {
    await dfsps.livepayer.waitFor((call) => call.method === 'PUT' && call.path === `/quotes/${body.quoteId}`, CALLBACK_WAIT_MS);
    return null;
  } catch {
    return `liveness quote ${body.quoteId}: no answer reached the payer within ${CALLBACK_WAIT_MS} ms`;
  }
}

/** Checks over every row the fuzzer made, beyond the gate's checks of one run. */
async function ledgerReasons(db) {
  const reasons = [];
  const [open] = await db('transfer').whereNotIn('state', FINAL).where('expires_at', '<', new Date(Date.now() - EXPIRY_GRACE_MS)).count({ n: '*' });
  if (Number(open.n) > 0) reasons.push(`${open.n} transfers still open after their expiry`);
  // An operator's initial position has no counterpart; every other change is one side of a pair.
  const [{ total }] = await db('position_change').whereNot('reason', 'INITIAL_POSITION').sum({ total: 'change' });
  if (total !== null && Number(total) !== 0) reasons.push(`the position journal (without initial positions) sums to ${total}, not 0`);
  return reasons;
}

/** `{ reasons, gate }`: what failed after the fuzz run (empty when the switch survived). */
export async function checkAfterFuzz({ sw, dfsps, pids }) {
  // In-flight fuzz messages finish before the gate's Kafka marks are taken.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const reasons = [...processReasons(sw, pids), ...await healthReasons(sw)];
  const runTag = randomBytes(3).toString('hex');
  const kafka = { brokers: testConfig().kafka.brokers, prefix: sw.prefix };
  const marksBefore = await topicHighWaterMarks(kafka);
  const outcomes = [];
  for (let index = 0; index < LIVENESS_TRANSFERS; index += 1) outcomes.push(await livenessTransfer({ sw, dfsps, runTag, index }));
  outcomes.push(await livenessQuote({ dfsps, quotingUrl: sw.urlOf('quoting') }));
  reasons.push(...outcomes.filter(Boolean));
  await waitForFinality(sw.admin.db, runTag, CALLBACK_WAIT_MS);
  const completed = outcomes.slice(0, LIVENESS_TRANSFERS).filter((outcome) => outcome === null).length;
  const gate = await runGate({ db: sw.admin.db, runTag, completed, marksBefore, marksAfter: await topicHighWaterMarks(kafka) });
  reasons.push(...gate.reasons.map((reason) => `gate: ${reason}`), ...await ledgerReasons(sw.admin.db));
  return { reasons, gate: { pass: gate.pass, states: gate.details.states }, runTag };
}
