// Bulk transfers through the real switch, up to the payee (the first half of the flow): the
// api-adapter, the prepare, position and bulk handlers and the notification handler as their
// own processes, real Kafka and MariaDB, test DFSPs over real HTTP that verify every signature.
// A bulk's individual transfers are prepared and reserved as single transfers, linked to their
// bulk; those the payer cannot afford fail on their own with their own error; the payee gets
// one POST /bulkTransfers with exactly the reserved transfers; a bulk none of whose transfers
// reserved is rejected to the payer with every transfer's error.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTransferSwitch } from '../support/transfer-switch.js';
import { fulfilmentFor, quoteIlp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

const ITEM_AMOUNT = '10';
const PAYER_LIQUIDITY = '5000';

let sw;
let payer;
let payee;
let poor;
let resender;
let fulfiller;
let stop;

before(async () => {
  ({ sw, dfsps: [payer, payee, poor, resender, fulfiller], stop } = await startTransferSwitch({ dfsps: [
    // The net debit cap is far above the liquidity, so the liquidity cover is what runs out.
    { name: 'payerfsp', netDebitCap: '1000000', fundsIn: PAYER_LIQUIDITY }, { name: 'payeefsp', netDebitCap: '1000', fundsIn: '5000' },
    { name: 'poorfsp', netDebitCap: '1000', fundsIn: '5' },
    // A payer of its own, whatever the bulk of 1,000 left of the first one's liquidity.
    { name: 'resendfsp', netDebitCap: '1000', fundsIn: '5000' },
    // The payer of the bulks the payee answers.
    { name: 'fulfilfsp', netDebitCap: '10000', fundsIn: '10000' },
  ] }));
});

after(async () => {
  if (process.env.BULK_TEST_OUTPUT) for (const [name, child] of sw?.processes ?? []) console.log(`--- ${name}\n${child.output.slice(-3000)}`);
  await stop?.();
});

function bulkBody({ items, from = 'payerfsp', to = 'payeefsp', amount = ITEM_AMOUNT, expiresInMs = 60_000 }) {
  const expiration = new Date(Date.now() + expiresInMs).toISOString();
  return {
    bulkTransferId: randomUUID(),
    bulkQuoteId: randomUUID(),
    payerFsp: from,
    payeeFsp: to,
    individualTransfers: Array.from({ length: items }, () => {
      const transferId = randomUUID();
      const ilp = quoteIlp({ secret: payee.secret, transferId, amount, currency: 'USD', payeeAddress: `g.${to}.msisdn.1`, expiration });
      return { transferId, transferAmount: { currency: 'USD', amount }, ilpPacket: ilp.ilpPacket, condition: ilp.condition };
    }),
    expiration,
  };
}

async function postBulk(raw, from = 'payerfsp', to = 'payeefsp') {
  const response = await signedFetch(`${sw.apiUrl}/bulkTransfers`, { method: 'POST', headers: dfspHeaders('bulkTransfers', from, to), body: raw });
  assert.equal(response.status, 202, await response.text());
}

async function position(name) {
  const [account] = (await sw.admin.request('GET', `/participants/${name}/accounts`)).body.filter((row) => row.ledgerAccountType === 'POSITION');
  return account.value;
}

/** The bulk's individual transfers as stored, in the bulk's order, with their item rows. */
async function storedItems(bulkTransferId) {
  return sw.admin.db('bulk_transfer_item')
    .leftJoin('transfer', 'transfer.transfer_id', 'bulk_transfer_item.transfer_id')
    .where('bulk_transfer_item.bulk_transfer_id', bulkTransferId)
    .orderBy('item_index')
    .select('bulk_transfer_item.transfer_id', 'item_index', 'prepare_result', 'bulk_transfer_item.failure_code as item_failure', 'transfer.state', 'transfer.failure_code', 'transfer.payer_fsp', 'transfer.payee_fsp');
}

async function bulkState(bulkTransferId) {
  const [row] = await sw.admin.db('bulk_transfer').where({ bulk_transfer_id: bulkTransferId }).select('state');
  return row?.state;
}

async function journal(transferId) {
  return (await sw.admin.db('transfer_state_change').where({ transfer_id: transferId }).orderBy('id').select('state')).map((row) => row.state);
}

/** The payee's PUT /bulkTransfers/{ID} (or …/error), signed by the payee. */
async function answerBulk(bulkTransferId, body, { to = 'fulfilfsp', error = false, from = 'payeefsp' } = {}) {
  const url = `${sw.apiUrl}/bulkTransfers/${bulkTransferId}${error ? '/error' : ''}`;
  const response = await signedFetch(url, { method: 'PUT', headers: dfspHeaders('bulkTransfers', from, to, { accept: false }), body: JSON.stringify(body) });
  assert.equal(response.status, 200, await response.text());
}

/** Posts a bulk from fulfilfsp and waits until the payee has it. */
async function preparedBulk(items, options = {}) {
  const body = bulkBody({ items, from: 'fulfilfsp', ...options });
  await postBulk(JSON.stringify(body), 'fulfilfsp');
  await payee.waitFor((call) => call.method === 'POST' && call.path === '/bulkTransfers' && call.body?.bulkTransferId === body.bulkTransferId, 30_000);
  return body;
}

async function until(check, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const finalAnswers = (dfsp, bulkTransferId) => dfsp.received.filter((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${bulkTransferId}`);

test('a bulk the payer can afford: every transfer RECEIVED_PREPARE → RESERVED, linked to its bulk; the payee gets the payer\'s signed bytes', async () => {
  const body = bulkBody({ items: 5 });
  const raw = JSON.stringify(body, null, 1);
  const before = await position('payerfsp');
  await postBulk(raw);
  const forwarded = await payee.waitFor((call) => call.method === 'POST' && call.path === '/bulkTransfers' && call.body?.bulkTransferId === body.bulkTransferId, 30_000);
  assert.equal(forwarded.rawBody, raw, 'the payer\'s bytes reach the payee unchanged');
  assert.equal(forwarded.headers['fspiop-source'], 'payerfsp');
  assert.equal(forwarded.signatureProblem, null, 'the payer\'s signature verifies at the payee');
  assert.match(forwarded.headers['content-type'], /bulkTransfers\+json;version=1\.1/);
  const items = await storedItems(body.bulkTransferId);
  assert.deepEqual(items.map((row) => row.transfer_id), body.individualTransfers.map((item) => item.transferId));
  for (const row of items) {
    assert.equal(row.state, 'RESERVED');
    assert.equal(row.prepare_result, 'RESERVED');
    assert.deepEqual([row.payer_fsp, row.payee_fsp], ['payerfsp', 'payeefsp']);
    assert.deepEqual(await journal(row.transfer_id), ['RECEIVED_PREPARE', 'RESERVED']);
  }
  assert.equal(await bulkState(body.bulkTransferId), 'ACCEPTED');
  assert.equal(await position('payerfsp'), before + 5 * Number(ITEM_AMOUNT));
  assert.equal(payer.received.filter((call) => call.path.includes(body.bulkTransferId)).length, 0, 'the payer is told nothing yet');
  assert.equal(payee.received.filter((call) => call.path.startsWith('/transfers')).length, 0, 'no single transfer reaches the payee');
});

test('a bulk of 1,000 over the payer\'s liquidity: those over it fail with 4001 alone, the payee gets exactly the reserved ones', { timeout: 180_000 }, async () => {
  const before = await position('payerfsp');
  const headroom = Number(PAYER_LIQUIDITY) - before;
  const affordable = Math.floor(headroom / Number(ITEM_AMOUNT));
  assert.ok(affordable > 0 && affordable < 1000, `the payer can afford ${affordable} of 1,000`);
  const body = bulkBody({ items: 1000 });
  await postBulk(JSON.stringify(body));
  const forwarded = await payee.waitFor((call) => call.method === 'POST' && call.path === '/bulkTransfers' && call.body?.bulkTransferId === body.bulkTransferId, 150_000);
  const items = await storedItems(body.bulkTransferId);
  const reserved = items.filter((row) => row.state === 'RESERVED');
  const refused = items.filter((row) => row.state !== 'RESERVED');
  assert.equal(reserved.length, affordable);
  assert.deepEqual(reserved.map((row) => row.item_index), [...Array(affordable).keys()], 'reserved in the bulk\'s order: the first ones the liquidity covers');
  for (const row of refused) {
    assert.equal(row.state, 'ABORTED_REJECTED');
    assert.equal(row.failure_code, 'INSUFFICIENT_LIQUIDITY', 'a 4001: the payer\'s liquidity');
    assert.deepEqual([row.prepare_result, row.item_failure], ['FAILED', 'INSUFFICIENT_LIQUIDITY']);
  }
  assert.ok(reserved.every((row) => row.prepare_result === 'RESERVED'));
  assert.deepEqual(forwarded.body.individualTransfers.map((item) => item.transferId).sort(), reserved.map((row) => row.transfer_id).sort());
  const sent = new Map(body.individualTransfers.map((item) => [item.transferId, item]));
  for (const item of forwarded.body.individualTransfers) assert.deepEqual(item, sent.get(item.transferId), 'each reserved item as the payer sent it');
  assert.deepEqual({ ...forwarded.body, individualTransfers: [] }, { ...body, individualTransfers: [] });
  assert.equal(forwarded.headers['fspiop-source'], 'Hub', 'a body with fewer items than the payer signed is the hub\'s');
  assert.equal(forwarded.signatureProblem, null, 'signed by the hub');
  assert.equal(await bulkState(body.bulkTransferId), 'ACCEPTED');
  assert.equal(await position('payerfsp'), before + affordable * Number(ITEM_AMOUNT));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(payee.received.filter((call) => call.path === '/bulkTransfers' && call.body?.bulkTransferId === body.bulkTransferId).length, 1, 'one POST');
  assert.equal(payer.received.filter((call) => call.path.startsWith('/transfers')).length, 0, 'no single transfer callback to the payer');
});

test('a bulk none of whose transfers reserve is REJECTED to the payer with every transfer\'s error, and the payee hears nothing', async () => {
  const body = bulkBody({ items: 3, from: 'poorfsp' });
  await postBulk(JSON.stringify(body), 'poorfsp');
  const rejected = await poor.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`, 30_000);
  assert.equal(rejected.body.bulkTransferState, 'REJECTED');
  assert.equal(rejected.headers['fspiop-source'], 'Hub');
  assert.equal(rejected.signatureProblem, null);
  assert.deepEqual(rejected.body.individualTransferResults.map((result) => result.transferId), body.individualTransfers.map((item) => item.transferId));
  for (const result of rejected.body.individualTransferResults) assert.equal(result.errorInformation.errorCode, '4001');
  assert.equal(await bulkState(body.bulkTransferId), 'REJECTED');
  assert.equal(await position('poorfsp'), 0);
  assert.equal(payee.received.filter((call) => call.body?.bulkTransferId === body.bulkTransferId).length, 0);
});

test('the same bulk again changes nothing and its payer hears its state; the same id with other content is 3106 to the payer', async () => {
  const body = bulkBody({ items: 2, from: 'resendfsp' });
  const raw = JSON.stringify(body);
  await postBulk(raw, 'resendfsp');
  await payee.waitFor((call) => call.method === 'POST' && call.body?.bulkTransferId === body.bulkTransferId, 30_000);
  const before = await position('resendfsp');
  assert.equal(before, 2 * Number(ITEM_AMOUNT));
  await postBulk(raw, 'resendfsp');
  const state = await resender.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`, 30_000);
  assert.equal(state.body.bulkTransferState, 'ACCEPTED', 'the payer that sent it again hears its current state');
  assert.deepEqual(state.body.individualTransferResults.map((result) => result.transferId).sort(), body.individualTransfers.map((item) => item.transferId).sort());
  assert.equal(state.headers['fspiop-source'], 'Hub');
  assert.equal(state.signatureProblem, null);
  const modified = { ...body, expiration: new Date(Date.now() + 90_000).toISOString() };
  await postBulk(JSON.stringify(modified), 'resendfsp');
  const refused = await resender.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}/error`, 30_000);
  assert.equal(refused.body.errorInformation.errorCode, '3106');
  assert.equal(await position('resendfsp'), before);
  assert.equal(payee.received.filter((call) => call.body?.bulkTransferId === body.bulkTransferId).length, 1, 'forwarded once');
  assert.equal((await sw.admin.db('bulk_transfer_item').where({ bulk_transfer_id: body.bulkTransferId })).length, 2);
  for (const item of body.individualTransfers) assert.deepEqual(await journal(item.transferId), ['RECEIVED_PREPARE', 'RESERVED']);
});

test('the payee fulfils a bulk of 20 with one bad fulfilment: that transfer aborts alone, the rest commit, the payer gets one aggregated PUT', async () => {
  const payerBefore = await position('fulfilfsp');
  const payeeBefore = await position('payeefsp');
  const body = await preparedBulk(20);
  assert.equal(await position('fulfilfsp'), payerBefore + 20 * Number(ITEM_AMOUNT));
  const bad = body.individualTransfers[7].transferId;
  const results = body.individualTransfers.map((item) => ({
    transferId: item.transferId,
    fulfilment: item.transferId === bad ? fulfilmentFor('not-the-payee-secret', item.ilpPacket) : fulfilmentFor(payee.secret, item.ilpPacket),
  }));
  await answerBulk(body.bulkTransferId, { bulkTransferState: 'COMPLETED', completedTimestamp: new Date().toISOString(), individualTransferResults: results });
  const answer = await fulfiller.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`, 30_000);
  assert.equal(answer.body.bulkTransferState, 'COMPLETED');
  assert.equal(answer.headers['fspiop-source'], 'Hub');
  assert.equal(answer.signatureProblem, null);
  assert.deepEqual(answer.body.individualTransferResults.map((result) => result.transferId), body.individualTransfers.map((item) => item.transferId), 'every item, in the bulk\'s order');
  for (const [index, result] of answer.body.individualTransferResults.entries()) {
    if (result.transferId === bad) {
      assert.equal(result.errorInformation.errorCode, '3100', 'the bad fulfilment is a validation error of that item alone');
      assert.equal(result.fulfilment, undefined);
    } else {
      assert.equal(result.fulfilment, results[index].fulfilment);
      assert.equal(result.errorInformation, undefined);
    }
  }
  const items = await storedItems(body.bulkTransferId);
  for (const row of items) {
    const expected = row.transfer_id === bad ? ['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_ERROR', 'ABORTED_ERROR'] : ['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED'];
    assert.deepEqual(await journal(row.transfer_id), expected);
  }
  assert.equal(await bulkState(body.bulkTransferId), 'COMPLETED');
  assert.equal(await position('fulfilfsp'), payerBefore + 19 * Number(ITEM_AMOUNT), 'the bad item\'s reservation is released, the rest committed');
  assert.equal(await position('payeefsp'), payeeBefore - 19 * Number(ITEM_AMOUNT));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(finalAnswers(fulfiller, body.bulkTransferId).length, 1, 'exactly one aggregated answer');
  const ids = new Set(body.individualTransfers.map((item) => item.transferId));
  assert.equal(fulfiller.received.filter((call) => call.path.startsWith('/transfers/') && ids.has(call.path.split('/')[2])).length, 0, 'no single transfer callback to the payer');
  assert.equal(payee.received.filter((call) => call.path.startsWith('/transfers/') && ids.has(call.path.split('/')[2])).length, 0, 'nor to the payee');
});

test('a payee item with errorInformation aborts that item alone; the payee\'s PUT …/error aborts every reserved one', async () => {
  const payerBefore = await position('fulfilfsp');
  const mixed = await preparedBulk(3);
  const [first, second, third] = mixed.individualTransfers;
  await answerBulk(mixed.bulkTransferId, {
    bulkTransferState: 'COMPLETED',
    individualTransferResults: [
      { transferId: first.transferId, fulfilment: fulfilmentFor(payee.secret, first.ilpPacket) },
      { transferId: second.transferId, errorInformation: { errorCode: '5101', errorDescription: 'Payee transaction limit reached' } },
      { transferId: third.transferId, fulfilment: fulfilmentFor(payee.secret, third.ilpPacket) },
    ],
  });
  const answer = await fulfiller.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${mixed.bulkTransferId}`, 30_000);
  assert.deepEqual(answer.body.individualTransferResults.map((result) => result.errorInformation?.errorCode ?? 'fulfilled'), ['fulfilled', '5101', 'fulfilled']);
  assert.equal(await position('fulfilfsp'), payerBefore + 2 * Number(ITEM_AMOUNT));

  const refused = await preparedBulk(4);
  await answerBulk(refused.bulkTransferId, { errorInformation: { errorCode: '5104', errorDescription: 'Payee rejected the bulk' } }, { error: true });
  const rejected = await fulfiller.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${refused.bulkTransferId}`, 30_000);
  assert.equal(rejected.body.bulkTransferState, 'COMPLETED');
  assert.equal(rejected.body.individualTransferResults.length, 4);
  for (const result of rejected.body.individualTransferResults) assert.equal(result.errorInformation.errorCode, '5104');
  for (const item of refused.individualTransfers) assert.deepEqual(await journal(item.transferId), ['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_ERROR', 'ABORTED_ERROR']);
  assert.equal(await position('fulfilfsp'), payerBefore + 2 * Number(ITEM_AMOUNT), 'every reservation of the refused bulk released');
});

test('an answer from another DFSP than the payee, or naming a transfer not of the bulk, is refused whole and moves nothing', async () => {
  const body = await preparedBulk(2);
  const before = await position('fulfilfsp');
  const good = body.individualTransfers.map((item) => ({ transferId: item.transferId, fulfilment: fulfilmentFor(payee.secret, item.ilpPacket) }));
  await answerBulk(body.bulkTransferId, { bulkTransferState: 'COMPLETED', individualTransferResults: good }, { from: 'resendfsp', to: 'fulfilfsp' });
  const notPayee = await resender.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}/error`, 30_000);
  assert.equal(notPayee.body.errorInformation.errorCode, '3100');
  const foreign = [...good, { transferId: randomUUID(), fulfilment: good[0].fulfilment }];
  await answerBulk(body.bulkTransferId, { bulkTransferState: 'COMPLETED', individualTransferResults: foreign });
  const notOfBulk = await payee.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}/error`, 30_000);
  assert.equal(notOfBulk.body.errorInformation.errorCode, '3100');
  for (const item of body.individualTransfers) assert.deepEqual(await journal(item.transferId), ['RECEIVED_PREPARE', 'RESERVED']);
  assert.equal(await position('fulfilfsp'), before);
  assert.equal(await bulkState(body.bulkTransferId), 'ACCEPTED');
  // The payee's own answer still completes it.
  await answerBulk(body.bulkTransferId, { bulkTransferState: 'COMPLETED', individualTransferResults: good });
  const answer = await fulfiller.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`, 30_000);
  assert.equal(answer.body.bulkTransferState, 'COMPLETED');
  const got = await signedFetch(`${sw.apiUrl}/bulkTransfers/${body.bulkTransferId}`, { headers: dfspHeaders('bulkTransfers', 'fulfilfsp', 'payeefsp') });
  assert.equal(got.status, 202);
  const state = await fulfiller.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}` && call !== answer, 30_000);
  assert.equal(state.body.bulkTransferState, 'COMPLETED');
  assert.deepEqual(state.body.individualTransferResults.map((result) => result.fulfilment), good.map((result) => result.fulfilment));
});

test('a bulk the payee answers for some transfers only expires whole: the rest are released, the payer told once (REJECTED, every item) and the payee once (3303)', async () => {
  const payerBefore = await position('fulfilfsp');
  const body = await preparedBulk(3, { expiresInMs: 4000 });
  const [first] = body.individualTransfers;
  await answerBulk(body.bulkTransferId, {
    bulkTransferState: 'PROCESSING', individualTransferResults: [{ transferId: first.transferId, fulfilment: fulfilmentFor(payee.secret, first.ilpPacket) }],
  });
  const expired = await fulfiller.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`, 30_000);
  assert.equal(expired.body.bulkTransferState, 'REJECTED');
  assert.deepEqual(expired.body.individualTransferResults.map((result) => result.fulfilment ? 'fulfilled' : result.errorInformation.errorCode), ['fulfilled', '3303', '3303']);
  const told = await payee.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}/error`, 30_000);
  assert.equal(told.body.errorInformation.errorCode, '3303');
  assert.equal(told.signatureProblem, null);
  assert.equal(await bulkState(body.bulkTransferId), 'EXPIRED');
  assert.deepEqual(await journal(first.transferId), ['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED']);
  for (const item of body.individualTransfers.slice(1)) assert.deepEqual(await journal(item.transferId), ['RECEIVED_PREPARE', 'RESERVED', 'RESERVED_TIMEOUT', 'EXPIRED_RESERVED']);
  assert.equal(await position('fulfilfsp'), payerBefore + Number(ITEM_AMOUNT), 'only the committed transfer stays on the payer\'s position');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(finalAnswers(fulfiller, body.bulkTransferId).length, 1, 'the payer is told once');
  assert.equal(payee.received.filter((call) => call.path === `/bulkTransfers/${body.bulkTransferId}/error`).length, 1, 'the payee is told once');
  const ids = new Set(body.individualTransfers.map((item) => item.transferId));
  assert.equal([...fulfiller.received, ...payee.received].filter((call) => call.path.startsWith('/transfers/') && ids.has(call.path.split('/')[2])).length, 0, 'no single transfer callback');
});

test('GET of a bulk by a DFSP that is neither its payer nor its payee, or of an unknown bulk, is 3210 to the asker alike', async () => {
  const body = await preparedBulk(2);
  const askAbout = async (bulkTransferId, from) => {
    const response = await signedFetch(`${sw.apiUrl}/bulkTransfers/${bulkTransferId}`, { headers: dfspHeaders('bulkTransfers', from, 'payeefsp') });
    assert.equal(response.status, 202, await response.text());
  };
  await askAbout(body.bulkTransferId, 'resendfsp');
  const stranger = await resender.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}/error`, 30_000);
  const unknownId = randomUUID();
  await askAbout(unknownId, 'resendfsp');
  const unknown = await resender.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${unknownId}/error`, 30_000);
  for (const answer of [stranger, unknown]) {
    assert.equal(answer.body.errorInformation.errorCode, '3210');
    assert.equal(answer.headers['fspiop-source'], 'Hub');
    assert.equal(answer.signatureProblem, null);
  }
  assert.equal(stranger.body.errorInformation.errorDescription.replace(body.bulkTransferId, 'ID'), unknown.body.errorInformation.errorDescription.replace(unknownId, 'ID'),
    'a stranger cannot tell a bulk that exists from one that does not');
  assert.equal(resender.received.filter((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`).length, 0, 'the stranger is not told the bulk\'s state');
  // The bulk's own parties are still answered with its state.
  await askAbout(body.bulkTransferId, 'fulfilfsp');
  const state = await fulfiller.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`, 30_000);
  assert.equal(state.body.bulkTransferState, 'ACCEPTED');
  assert.equal(await bulkState(body.bulkTransferId), 'ACCEPTED');
});

test('the items of a payee\'s answer the single fulfil decisions refuse are one PUT /bulkTransfers/{ID}/error to the payee, each item named; the rest commit', async () => {
  const payerBefore = await position('fulfilfsp');
  const body = await preparedBulk(3);
  const [first, second, third] = body.individualTransfers;
  const fulfilled = (item) => ({ transferId: item.transferId, fulfilment: fulfilmentFor(payee.secret, item.ilpPacket) });
  await answerBulk(body.bulkTransferId, { bulkTransferState: 'PROCESSING', individualTransferResults: [fulfilled(first), fulfilled(second)] });
  await until(async () => (await journal(second.transferId)).at(-1) === 'COMMITTED' && (await journal(first.transferId)).at(-1) === 'COMMITTED', 'the first two committed');
  // The first two again, now with errors: completed with other content (3106); the third commits.
  const refusedError = { errorCode: '5101', errorDescription: 'Payee transaction limit reached' };
  await answerBulk(body.bulkTransferId, {
    bulkTransferState: 'COMPLETED',
    individualTransferResults: [{ transferId: first.transferId, errorInformation: refusedError }, { transferId: second.transferId, errorInformation: refusedError }, fulfilled(third)],
  });
  const refused = await payee.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}/error`, 30_000);
  assert.equal(refused.body.errorInformation.errorCode, '3106');
  assert.deepEqual(refused.body.errorInformation.extensionList.extension, [{ key: '3106', value: first.transferId }, { key: '3106', value: second.transferId }]);
  assert.equal(refused.headers['fspiop-source'], 'Hub');
  assert.equal(refused.signatureProblem, null);
  const answer = await fulfiller.waitFor((call) => call.method === 'PUT' && call.path === `/bulkTransfers/${body.bulkTransferId}`, 30_000);
  assert.equal(answer.body.bulkTransferState, 'COMPLETED');
  assert.deepEqual(answer.body.individualTransferResults.map((result) => (result.fulfilment ? 'fulfilled' : result.errorInformation.errorCode)), ['fulfilled', 'fulfilled', 'fulfilled']);
  for (const item of body.individualTransfers) assert.deepEqual(await journal(item.transferId), ['RECEIVED_PREPARE', 'RESERVED', 'RECEIVED_FULFIL', 'COMMITTED']);
  assert.equal(await position('fulfilfsp'), payerBefore + 3 * Number(ITEM_AMOUNT));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.equal(payee.received.filter((call) => call.path === `/bulkTransfers/${body.bulkTransferId}/error`).length, 1, 'one gathered refusal');
  const ids = new Set(body.individualTransfers.map((item) => item.transferId));
  assert.equal(payee.received.filter((call) => call.path.startsWith('/transfers/') && ids.has(call.path.split('/')[2])).length, 0, 'no single transfer callback to the payee');
});
