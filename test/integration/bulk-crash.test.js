// A bulk of a few hundred transfers, more than its payer can afford, with the position
// handler SIGKILLed while it reserves them and restarted: a batch it had committed but not
// acknowledged is consumed again, and its transfers' results reach the bulk handler twice
// (those recorded before the bulk settled change nothing and tell nobody).
// Every item must end with exactly one result, each transfer reserved or refused once, the
// bulk forwarded once to its payee with exactly the reserved transfers, the payer's position
// exactly their sum; and the payee's answer must then commit exactly those.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTransferSwitch } from '../support/transfer-switch.js';
import { fulfilmentFor, quoteIlp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

const ITEMS = 400;
const ITEM_AMOUNT = 10;
// The payer's liquidity covers 250 of the 400 transfers: the rest fail with 4001.
const AFFORDABLE = 250;
const DOWN_MS = 1500;

let sw;
let payer;
let payee;
let stop;

before(async () => {
  ({ sw, dfsps: [payer, payee], stop } = await startTransferSwitch({ dfsps: [
    { name: 'crashpayer', netDebitCap: '1000000', fundsIn: String(AFFORDABLE * ITEM_AMOUNT) },
    { name: 'crashpayee', netDebitCap: '1000000', fundsIn: '100000' },
  // Batches of 20, so that the bulk's reservations take many batches and the kill lands among them.
  ], env: { KAFKA_BATCH_SIZE_MAX: '20' } }));
});

after(() => stop?.());

function bulkBody() {
  const expiration = new Date(Date.now() + 180_000).toISOString();
  return {
    bulkTransferId: randomUUID(), bulkQuoteId: randomUUID(), payerFsp: payer.name, payeeFsp: payee.name, expiration,
    individualTransfers: Array.from({ length: ITEMS }, () => {
      const transferId = randomUUID();
      const amount = String(ITEM_AMOUNT);
      const ilp = quoteIlp({ secret: payee.secret, transferId, amount, currency: 'USD', payeeAddress: `g.${payee.name}.msisdn.1`, expiration });
      return { transferId, transferAmount: { currency: 'USD', amount }, ilpPacket: ilp.ilpPacket, condition: ilp.condition };
    }),
  };
}

async function position(name) {
  const [account] = (await sw.admin.request('GET', `/participants/${name}/accounts`)).body.filter((row) => row.ledgerAccountType === 'POSITION');
  return account.value;
}

/** Waits until the position handler has reserved some of the bulk's transfers, SIGKILLs it, and restarts it after DOWN_MS. */
async function killPositionWhileReserving(transferIds) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [{ n }] = await sw.admin.db('transfer').whereIn('transfer_id', transferIds).whereNot('state', 'RECEIVED_PREPARE').count({ n: '*' });
    if (Number(n) > 0) break;
    if (Date.now() > deadline) throw new Error('the position handler never started on the bulk');
    await new Promise((resolve) => setImmediate(resolve));
  }
  await sw.kill('position', 0);
  const [{ n: decided }] = await sw.admin.db('transfer').whereIn('transfer_id', transferIds).whereNot('state', 'RECEIVED_PREPARE').count({ n: '*' });
  await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
  await sw.start('position', 0);
  return Number(decided);
}

test('SIGKILL of the position handler while it reserves a bulk: each item one result, forwarded once with exactly the reserved ones, positions exact; the answer commits them', { timeout: 240_000 }, async (t) => {
  const payerBefore = await position(payer.name);
  const payeeBefore = await position(payee.name);
  const body = bulkBody();
  const ids = body.individualTransfers.map((item) => item.transferId);
  const killed = killPositionWhileReserving(ids);
  const response = await signedFetch(`${sw.apiUrl}/bulkTransfers`, { method: 'POST', headers: dfspHeaders('bulkTransfers', payer.name, payee.name), body: JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
  const decidedAtKill = await killed;
  t.diagnostic(`${decidedAtKill} of ${ITEMS} transfers decided when the position handler was killed`);
  assert.ok(decidedAtKill < ITEMS, 'killed while the bulk was being reserved');

  const isForward = (call) => call.method === 'POST' && call.path === '/bulkTransfers' && call.body?.bulkTransferId === body.bulkTransferId;
  const forwarded = await payee.waitFor(isForward, 150_000);
  const items = await sw.admin.db('bulk_transfer_item').leftJoin('transfer', 'transfer.transfer_id', 'bulk_transfer_item.transfer_id')
    .where('bulk_transfer_item.bulk_transfer_id', body.bulkTransferId).orderBy('item_index')
    .select('bulk_transfer_item.transfer_id', 'item_index', 'prepare_result', 'bulk_transfer_item.failure_code as item_failure', 'transfer.state');
  assert.equal(items.length, ITEMS);
  const reserved = items.filter((row) => row.prepare_result === 'RESERVED');
  assert.equal(reserved.length, AFFORDABLE, 'exactly what the liquidity covers');
  assert.deepEqual(reserved.map((row) => row.item_index), [...Array(AFFORDABLE).keys()], 'reserved in the bulk\'s order');
  for (const row of items) {
    const expected = row.prepare_result === 'RESERVED' ? ['RESERVED', null, 'RESERVED'] : ['FAILED', 'INSUFFICIENT_LIQUIDITY', 'ABORTED_REJECTED'];
    assert.deepEqual([row.prepare_result, row.item_failure, row.state], expected, `item ${row.item_index}`);
  }
  const journals = await sw.admin.db('transfer_state_change').whereIn('transfer_id', ids).groupBy('transfer_id', 'state').select('transfer_id', 'state').count({ n: '*' });
  assert.deepEqual(journals.filter((row) => Number(row.n) !== 1), [], 'no transfer entered a state twice');
  assert.equal(journals.length, 2 * ITEMS, 'each transfer RECEIVED_PREPARE and then RESERVED or ABORTED_REJECTED');
  assert.deepEqual(forwarded.body.individualTransfers.map((item) => item.transferId), reserved.map((row) => row.transfer_id), 'the payee gets exactly the reserved transfers');
  assert.equal(await position(payer.name), payerBefore + AFFORDABLE * ITEM_AMOUNT, 'the payer\'s position is exactly the reserved sum');
  const stored = await sw.admin.db('bulk_transfer').where({ bulk_transfer_id: body.bulkTransferId }).first('state', 'changed_at');
  assert.equal(stored.state, 'ACCEPTED');
  // The results recorded with the bulk's settling carry its time: only their redelivery may bring the forward back.
  const settledWith = await sw.admin.db('bulk_transfer_item').where({ bulk_transfer_id: body.bulkTransferId, changed_at: stored.changed_at }).count({ n: '*' });
  assert.ok(Number(settledWith[0].n) >= 1 && Number(settledWith[0].n) < ITEMS, `${settledWith[0].n} items recorded with the settling`);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(payee.received.filter(isForward).length, 1, 'forwarded once');
  assert.equal(payer.received.filter((call) => call.path.includes(body.bulkTransferId)).length, 0, 'the payer is told nothing yet');

  const results = forwarded.body.individualTransfers.map((item) => ({ transferId: item.transferId, fulfilment: fulfilmentFor(payee.secret, item.ilpPacket) }));
  const answered = await signedFetch(`${sw.apiUrl}/bulkTransfers/${body.bulkTransferId}`, {
    method: 'PUT', headers: dfspHeaders('bulkTransfers', payee.name, payer.name, { accept: false }),
    body: JSON.stringify({ bulkTransferState: 'COMPLETED', completedTimestamp: new Date().toISOString(), individualTransferResults: results }),
  });
  assert.equal(answered.status, 200, await answered.text());
  const answer = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`, 60_000);
  assert.equal(answer.body.bulkTransferState, 'COMPLETED');
  assert.deepEqual(answer.body.individualTransferResults.map((result) => result.transferId), ids, 'every item, in the bulk\'s order');
  const outcomes = answer.body.individualTransferResults.map((result) => (result.fulfilment ? 'fulfilled' : result.errorInformation.errorCode));
  assert.deepEqual(outcomes, [...Array(AFFORDABLE).fill('fulfilled'), ...Array(ITEMS - AFFORDABLE).fill('4001')]);
  const committed = await sw.admin.db('transfer').whereIn('transfer_id', ids).where('state', 'COMMITTED').count({ n: '*' });
  assert.equal(Number(committed[0].n), AFFORDABLE);
  assert.equal(await position(payer.name), payerBefore + AFFORDABLE * ITEM_AMOUNT, 'the payer\'s position: the committed sum');
  assert.equal(await position(payee.name), payeeBefore - AFFORDABLE * ITEM_AMOUNT, 'the payee\'s position: credited the committed sum once');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(payer.received.filter((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`).length, 1, 'one aggregated answer');
});
