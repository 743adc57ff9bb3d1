// The performance harness with request to pay, against a switch of its own (fresh database and
// topic prefix): k6 makes a share of its iterations merchant-initiated (the merchant's bridge:
// discovery, POST /transactionRequests, RECEIVED, then the customer's DFSP's quote naming the
// request, the OTP asked of the merchant for half of them, and the transfer, which the merchant
// answers RESERVED and learns the end of from the switch's PATCH) beside plain payments. It
// proves they complete, that the quoting tables link each to its quote and COMMITTED transfer,
// that those approved by OTP left their authorization answered, and that the gate passes and
// would fail on a request to pay it cannot account for.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { freshTarget, runPerf } from '../../perf/run.js';
import { requestToPayChecks } from '../../perf/gate.js';

const SHARE = 0.4;
let target;

before(async () => {
  target = await freshTarget('full');
});

after(async () => {
  await target?.close();
});

test('a request-to-pay share: merchant-initiated payments complete beside plain ones, linked to their quotes and COMMITTED transfers', { timeout: 180_000 }, async (t) => {
  const lines = [];
  const result = await runPerf(target, { profile: 'smoke', transfers: 120, rtpShare: SHARE, rtpOtpShare: 0.5 }, (line) => lines.push(line));
  const metrics = result.summary.metrics;
  const count = (name) => metrics[name]?.values.count ?? 0;
  const requestsToPay = count('rtp_completed');
  const plain = count('completed_transactions');
  t.diagnostic(`plain ${plain}, requests to pay ${requestsToPay} (${result.payerRetries.requestsToPayWithOtpCompleted} by OTP)`);
  assert.equal(count('failed_transactions') + count('rtp_failed'), 0, lines.join('\n'));
  assert.ok(plain + requestsToPay + count('dropped_iterations') >= result.run.transfers - 1, lines.join('\n'));
  assert.ok(requestsToPay >= result.run.transfers * SHARE * 0.3, `${requestsToPay} requests to pay of ${result.run.transfers}\n${lines.join('\n')}`);
  assert.ok(metrics.rtp_e2e_time?.values['p(95)'] > 0 && metrics.transaction_request_time?.values['p(95)'] > 0, 'the requests to pay are timed');
  assert.match(lines.join('\n'), new RegExp(`completed=${plain} .* rtp_completed=${requestsToPay} rtp_failed=0 `), 'the summary line counts them apart');
  assert.match(readFileSync(`${result.dir}/summary.md`, 'utf8'), new RegExp(`${requestsToPay} completed, 0 failed[^]*\\| rtp_e2e_time \\| \\d+`), 'the report shows them');
  assert.equal(result.payerRetries.requestsToPayCompleted, requestsToPay, 'the merchants were told of as many commits as k6 counted');
  const withOtp = result.payerRetries.requestsToPayWithOtpCompleted;
  assert.ok(withOtp > 0 && withOtp < requestsToPay, `${withOtp} of ${requestsToPay} approved by OTP`);

  assert.ok(result.gate.pass, `gate: ${result.gate.reasons.join('; ')}`);
  assert.equal(result.gate.details.requestsToPayLinked, requestsToPay);
  assert.equal(result.gate.details.states.COMMITTED?.n, plain + requestsToPay, 'the gate counts both kinds as payments');

  const runIds = `__${result.runTag}-%`;
  const requests = await target.db('transaction_request').where('transaction_request_id', 'like', runIds).select('state').count({ n: '*' }).groupBy('state');
  assert.deepEqual(requests.map((row) => [row.state, Number(row.n)]), [['ANSWERED', requestsToPay]], 'every transaction request was answered (RECEIVED)');
  const authorizations = await target.db('authorization').where('transaction_request_id', 'like', runIds).select('state', 'authentication_type', 'retries_left').count({ n: '*' })
    .groupBy('state', 'authentication_type', 'retries_left');
  assert.equal(authorizations.length, 1, JSON.stringify(authorizations));
  assert.equal(Number(authorizations[0].n), withOtp, 'one authorization per request approved by OTP, answered at the first ask');
  assert.equal(authorizations[0].state, 'ANSWERED');

  // The gate's check can fail: a request to pay more than the database holds, or one whose
  // link names another payer, is reported.
  assert.match((await requestToPayChecks(target.db, result.runTag, requestsToPay + 1)).reasons.join(), new RegExp(`${requestsToPay} ≠ k6 completed ${requestsToPay + 1}`));
  const [one] = await target.db('transaction_request').where('transaction_request_id', 'like', runIds).limit(1).select('transaction_request_id', 'payer_fsp');
  await target.db('transaction_request').where('transaction_request_id', one.transaction_request_id).update({ payer_fsp: 'perffsp9' });
  const tampered = await requestToPayChecks(target.db, result.runTag, requestsToPay);
  assert.match(tampered.reasons.join('\n'), new RegExp(`request to pay ${one.transaction_request_id}: its transfer .* not from perffsp9`));
  assert.equal(tampered.linked, requestsToPay - 1);
});
