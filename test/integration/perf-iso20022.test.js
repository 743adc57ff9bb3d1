// The performance harness with ISO 20022 DFSPs (issue 34), against a switch of its own (fresh
// database and topic prefix): provisioning registers half of the DFSPs as ISO 20022 DFSPs
// through the admin API, the multi-process FSP simulators make them speak ISO 20022 (through
// Mojaloop's mapping library, perf/simulators/iso-dfsp.js), and k6 pays between every pair for
// ~15 s, so the payments mix the four type pairs (ISO 20022 → ISO 20022, ISO 20022 → FSPIOP,
// FSPIOP → ISO 20022, FSPIOP → FSPIOP). It proves every payment completes, that payments of
// each type pair committed (with ULID ids whenever an ISO 20022 DFSP is on either side), and
// that the gate passes on them all.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isValid } from 'ulidx';
import { freshTarget, runPerf } from '../../perf/run.js';
import { adminClient } from '../../scripts/lib/onboarding.js';
import { dfspNames, ensureApiType } from '../../perf/provision.js';
import { ofRun } from '../../perf/gate.js';

const SHARE = 0.5;
const TYPE_PAIRS = ['FSPIOP→FSPIOP', 'FSPIOP→ISO20022', 'ISO20022→FSPIOP', 'ISO20022→ISO20022'];
// PERF_ISO20022_MODE (perf/run.js modes): 'full', the default, or 'quote-transfer' or
// 'transfer', where the bridge answers discovery (and the quotes) itself.
const MODE = process.env.PERF_ISO20022_MODE ?? 'full';
let target;

before(async () => {
  target = await freshTarget(MODE);
});

after(async () => {
  await target?.close();
});

test('an ISO 20022 share: payments of every type pair complete, commit with ULIDs where ISO 20022 is on a side, and pass the gate', { timeout: 240_000 }, async (t) => {
  const lines = [];
  const result = await runPerf(target, { profile: 'smoke', mode: MODE, transfers: 150, iso20022Share: SHARE }, (line) => lines.push(line));
  const count = (name) => result.summary.metrics[name]?.values.count ?? 0;
  const completed = count('completed_transactions');
  const byTypePair = result.gate.details.paymentsByTypePair ?? {};
  t.diagnostic(`mode ${MODE}, completed ${completed}, by type pair ${JSON.stringify(byTypePair)}`);
  // Every iteration k6 started completes; on a busy machine k6 may drop some (no VU free in
  // time: dropped_iterations), which says nothing about the switch.
  assert.equal(count('failed_transactions'), 0, lines.join('\n'));
  assert.equal(result.payerRetries.isoUnreadable, 0, 'every ISO 20022 message the simulated DFSPs received was read');
  assert.ok(completed + count('dropped_iterations') >= result.run.transfers - 1, lines.join('\n'));
  assert.ok(result.gate.pass, `gate: ${result.gate.reasons.join('; ')}\n${lines.join('\n')}`);
  assert.deepEqual(result.run.isoDfsps, ['perffsp1', 'perffsp2']);

  // Payments of each type pair committed, and the gate's count of each agrees with the payers'.
  for (const typePair of TYPE_PAIRS) assert.ok(byTypePair[typePair] > 0, `${typePair}: ${JSON.stringify(byTypePair)}`);
  assert.equal(TYPE_PAIRS.reduce((sum, typePair) => sum + byTypePair[typePair], 0), result.gate.details.states.COMMITTED.n);
  for (const typePair of TYPE_PAIRS.slice(1)) assert.equal(result.payerRetries.isoPayments[typePair], byTypePair[typePair], typePair);
  assert.match(lines.join('\n'), /iso20022_share=0\.5/, 'the summary line says the share');
  assert.match(readFileSync(`${result.dir}/summary.md`, 'utf8'), new RegExp(`ISO 20022 DFSPs \\(a share of 0\\.5: perffsp1, perffsp2\\).*FSPIOP→FSPIOP ${byTypePair['FSPIOP→FSPIOP']}, `
    + `FSPIOP→ISO20022 ${byTypePair['FSPIOP→ISO20022']}, ISO20022→FSPIOP ${byTypePair['ISO20022→FSPIOP']}, ISO20022→ISO20022 ${byTypePair['ISO20022→ISO20022']}`), 'the report shows them');

  // A payment with an ISO 20022 DFSP on either side has a ULID id; one between FSPIOP DFSPs a UUID.
  const iso = new Set(result.run.isoDfsps);
  const rows = await target.db('transfer').where(ofRun('transfer_id', result.runTag)).where({ state: 'COMMITTED' }).select('transfer_id', 'payer_fsp', 'payee_fsp');
  assert.equal(rows.length, result.gate.details.states.COMMITTED.n);
  for (const row of rows) {
    const withIso = iso.has(row.payer_fsp) || iso.has(row.payee_fsp);
    assert.equal(isValid(row.transfer_id), withIso, `${row.transfer_id} from ${row.payer_fsp} to ${row.payee_fsp}`);
  }

  // The admin API shows what provisioning registered, and provisioning again changes nothing.
  const request = adminClient(target.adminUrl, { token: target.adminToken });
  for (const name of dfspNames(result.run.dfsps)) {
    const expected = iso.has(name) ? 'ISO20022' : 'FSPIOP';
    assert.equal((await request('GET', `/participants/${name}`)).body.apiType, expected, name);
    assert.equal(await ensureApiType(request, name, expected), false, name);
  }
});
