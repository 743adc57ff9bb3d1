// The performance harness's bulk profile end to end, against a switch of its own (fresh
// database and topic prefix, the bulk handler started with it): provisioning, the FSP
// simulators (the payee answering bulk quotes and bulk transfers, the payer's bridge running
// whole bulks), k6 starting bulks at a rate (perf/k6/bulk.js), then the validity gate and the
// report. It proves every bulk completes with every item committed, that the gate counts the
// bulks and their items against the ledger, and that it fails a run whose bulks the ledger
// does not hold as k6 counted them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PROFILES, freshTarget, runPerf } from '../../perf/run.js';
import { runGate } from '../../perf/gate.js';

const BULKS = 8;
const BULK_SIZE = 25;
let target;

before(async () => {
  target = await freshTarget(PROFILES.bulk.mode, { components: ['bulk'] });
});

after(async () => {
  await target?.close();
});

test('bulk profile: every bulk completes with every item committed, the gate counts bulks and items, the report shows them', { timeout: 150_000 }, async () => {
  const lines = [];
  const result = await runPerf(target, { profile: 'bulk', bulks: BULKS, bulkSize: BULK_SIZE, bulkRate: 1 }, (line) => lines.push(line));
  const count = (name) => result.summary.metrics[name]?.values.count ?? 0;
  const bulks = count('bulk_completed');
  // On a busy machine k6 may drop a bulk (no VU free in time), which says nothing about the switch.
  assert.ok(bulks >= BULKS - 1, lines.join('\n'));
  assert.equal(count('bulk_failed'), 0, lines.join('\n'));
  assert.equal(count('bulk_items_committed'), bulks * BULK_SIZE);
  assert.equal(count('completed_transactions'), bulks * BULK_SIZE, 'the report and the gate count items');
  assert.ok(result.gate.pass, `gate: ${result.gate.reasons.join('; ')}\n${lines.join('\n')}`);
  assert.deepEqual(result.gate.details.bulkStates, { COMPLETED: bulks });
  assert.equal(result.gate.details.states.COMMITTED.n, bulks * BULK_SIZE);
  assert.equal(result.gate.details.kafkaDelta['topic-transfer-prepare'], bulks, 'one prepare record a bulk');

  const ofRun = `__${result.runTag}-%`;
  const items = await target.db('bulk_transfer_item as i').join('bulk_transfer as b', 'b.bulk_transfer_id', 'i.bulk_transfer_id')
    .join('transfer as t', 't.transfer_id', 'i.transfer_id').where('b.bulk_transfer_id', 'like', ofRun)
    .select('b.state as bulk', 'i.final_result', 't.state', 't.payer_fsp', 't.payee_fsp', 't.transfer_id');
  assert.equal(items.length, bulks * BULK_SIZE);
  assert.ok(items.every((item) => item.bulk === 'COMPLETED' && item.final_result === 'COMMITTED' && item.state === 'COMMITTED' && item.payer_fsp !== item.payee_fsp));
  assert.ok(items.every((item) => item.transfer_id.slice(2, 8) === result.runTag), 'the items\' transfers are the run\'s');
  const summary = readFileSync(`${result.dir}/summary.md`, 'utf8');
  assert.match(summary, new RegExp(`bulks of ${BULK_SIZE} items at 1/s: ${bulks} completed, 0 failed, ${bulks * BULK_SIZE} items committed`));
  assert.match(summary, /\| bulk_e2e_time \| \d+/);

  // A bulk the ledger holds unfinished past its expiry, and so not as k6 counted it, fails the gate.
  const [unfinished] = await target.db('bulk_transfer').where('bulk_transfer_id', 'like', ofRun).select('bulk_transfer_id').limit(1);
  await target.db('bulk_transfer').where({ bulk_transfer_id: unfinished.bulk_transfer_id }).update({ state: 'PROCESSING', expires_at: new Date(Date.now() - 60_000) });
  const gate = await runGate({ db: target.db, runTag: result.runTag, completed: bulks * BULK_SIZE, bulksCompleted: bulks });
  assert.equal(gate.pass, false);
  assert.deepEqual(gate.reasons, [`bulks COMPLETED with every item COMMITTED in MySQL ${bulks - 1} ≠ k6 bulk_completed ${bulks}`, '1 bulks still unfinished after their expiry']);
});
