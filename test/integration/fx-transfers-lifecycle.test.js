// The currency-conversion lifecycle through the running switch (handlers/README.md, "The fx
// lifecycle" and its callback table), beyond the happy path and the parties' own errors
// (fx-transfers.test.js): a conversion expiring at each step, fulfilments that do not match
// their condition, duplicates of every request, and DFSPs answering what is not theirs to
// answer. Each test asserts the positions in both currencies (payer USD, FXP USD and EUR,
// payee EUR) and exactly which callbacks each DFSP received about its flow. The api-adapter,
// every handler as its own process (the timeout handler at the test switch's short interval),
// real Kafka and MariaDB, DFSPs over HTTP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { conversionPayment, fxHeaders, reservedBody, startFxScene, waitUntil } from '../support/fx-switch.js';
import { fspiopHeaders, fulfilmentFor } from '../support/test-dfsp.js';

let scene;
let payee;

before(async () => {
  scene = await startFxScene({ others: ['otherfsp'] });
  ({ payee } = scene);
});

after(() => scene?.stop());

/** Short enough for the expiry tests, long enough for a loaded machine to get a step done before it. */
const SHORT_EXPIRY_MS = 5_000;

/** `before` with `moved` added: { payer: { USD }, fxp: { USD, EUR }, payee: { EUR } }. */
function movedBy(before, { payerUsd = 0, fxpUsd = 0, fxpEur = 0, payeeEur = 0 }) {
  return {
    payer: { USD: before.payer.USD + payerUsd },
    fxp: { USD: before.fxp.USD + fxpUsd, EUR: before.fxp.EUR + fxpEur },
    payee: { EUR: before.payee.EUR + payeeEur },
  };
}

async function storedStates(flow) {
  const [rows] = await scene.sw.admin.db.raw('SELECT transfer_id, state FROM transfer WHERE transfer_id IN (?, ?)', [flow.commitRequestId, flow.transferId]);
  return Object.fromEntries(rows.map((row) => [row.transfer_id === flow.commitRequestId ? 'conversion' : 'payment', row.state]));
}

/** The payee's PUT /transfers/{ID}, sent by the test for a payee told to stay silent. */
async function fulfilAsPayee(flow) {
  const fulfilled = await scene.send(`/transfers/${flow.transferId}`, 'PUT', fspiopHeaders('payeefsp', 'payerfsp', { accept: false }), {
    fulfilment: fulfilmentFor(payee.secret, flow.payment.ilpPacket), completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED',
  });
  assert.equal(fulfilled.status, 200, fulfilled.text);
}

const errorAt = (dfsp, flow, resource = 'fxTransfers') => {
  const id = resource === 'fxTransfers' ? flow.commitRequestId : flow.transferId;
  return dfsp.waitFor((call) => call.method === 'PUT' && call.path === `/${resource}/${id}/error`, 20_000);
};

test('expiry, FXP silent: a reserved conversion the FXP never answers expires, the payer\'s USD is released and payer and FXP hear 3303', async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(payee, { expiresInMs: SHORT_EXPIRY_MS });
  await scene.postConversion(flow);
  await scene.conversionAtFxp(flow);
  assert.deepEqual(await scene.allPositions(), movedBy(before, { payerUsd: 100 }), 'the payer is reserved in USD');

  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId}/error 3303'],
    fxp: ['POST /fxTransfers', 'PUT /fxTransfers/{commitRequestId}/error 3303'],
  });
  assert.deepEqual(await scene.allPositions(), before, 'the payer\'s USD released, nothing else moved');
  assert.deepEqual(await storedStates(flow), { conversion: 'EXPIRED_RESERVED' });

  // The FXP's fulfilment after the expiry comes too late: 3303 to the FXP, nothing else.
  await scene.answerConversion(flow);
  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId}/error 3303'],
    fxp: ['POST /fxTransfers', 'PUT /fxTransfers/{commitRequestId}/error 3303', 'PUT /fxTransfers/{commitRequestId}/error 3303'],
  });
  assert.deepEqual(await scene.allPositions(), before);
  assert.deepEqual(await storedStates(flow), { conversion: 'EXPIRED_RESERVED' });
});

test('expiry, no payment: a conversion its FXP fulfilled expires without a payment, the payer hears 3303 and the FXP is PATCHed ABORTED', async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(payee, { expiresInMs: SHORT_EXPIRY_MS });
  await scene.reservedConversion(flow);
  assert.deepEqual(await scene.allPositions(), movedBy(before, { payerUsd: 100 }));

  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /fxTransfers/{commitRequestId}/error 3303'],
    fxp: ['POST /fxTransfers', 'PATCH /fxTransfers/{commitRequestId} ABORTED'],
  });
  const patched = scene.fxp.received.find((call) => call.method === 'PATCH' && call.path === `/fxTransfers/${flow.commitRequestId}`);
  assert.equal(patched.headers['fspiop-source'], 'Hub');
  assert.equal(patched.body.extensionList?.extension?.some((entry) => entry.value.includes('3303')), true, `the PATCH names the expiry: ${patched.rawBody}`);
  assert.deepEqual(await scene.allPositions(), before);
  assert.deepEqual(await storedStates(flow), { conversion: 'EXPIRED_RESERVED' });

  // The payment, sent after its conversion expired, is refused and moves nothing.
  await scene.postPayment(flow);
  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /fxTransfers/{commitRequestId}/error 3303', 'PUT /transfers/{transferId}/error 3100'],
    fxp: ['POST /fxTransfers', 'PATCH /fxTransfers/{commitRequestId} ABORTED'],
  });
  assert.deepEqual(await scene.allPositions(), before);
  assert.deepEqual(await storedStates(flow), { conversion: 'EXPIRED_RESERVED', payment: 'INVALID' });
});

test('expiry, payee silent: a payment reserved against the FXP\'s EUR expires, both reservations are released, the FXP is PATCHed ABORTED and payer and payee hear 3303', async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(payee, { payeeBehaviour: 'late', expiresInMs: SHORT_EXPIRY_MS + 2_000 });
  await scene.reservedConversion(flow);
  await scene.postPayment(flow);
  await payee.waitFor((call) => call.method === 'POST' && call.path === '/transfers' && call.body?.transferId === flow.transferId);
  assert.deepEqual(await scene.allPositions(), movedBy(before, { payerUsd: 100, fxpEur: 90 }), 'the payer reserved in USD, the FXP in EUR');

  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /transfers/{transferId}/error 3303'],
    fxp: ['POST /fxTransfers', 'PATCH /fxTransfers/{commitRequestId} ABORTED'],
    payee: ['POST /transfers', 'PUT /transfers/{transferId}/error 3303'],
  });
  assert.deepEqual(await scene.allPositions(), before, 'the FXP\'s EUR and the payer\'s USD released');
  assert.deepEqual(await storedStates(flow), { conversion: 'ABORTED_ERROR', payment: 'EXPIRED_RESERVED' });
});

test('a payment refused at prepare releases the conversion waiting for it at once: the payer\'s USD, with the FXP PATCHed ABORTED', async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(payee);
  await scene.reservedConversion(flow);
  await scene.postPayment(flow, { body: { ...flow.payment, amount: { amount: '91', currency: 'EUR' } } });

  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /transfers/{transferId}/error 3100'],
    fxp: ['POST /fxTransfers', 'PATCH /fxTransfers/{commitRequestId} ABORTED'],
  });
  assert.deepEqual(await scene.allPositions(), before, 'the payer\'s USD released; the FXP\'s EUR never reserved');
  assert.deepEqual(await storedStates(flow), { conversion: 'ABORTED_ERROR', payment: 'INVALID' });
});

test('an FXP fulfilment that does not match the conversion\'s condition: payer and FXP hear 3100 and the payer is released', async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(payee);
  await scene.postConversion(flow);
  await scene.conversionAtFxp(flow);
  const wrongAnswer = reservedBody(randomBytes(32).toString('base64url'));
  await scene.answerConversion(flow, { body: wrongAnswer });

  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId}/error 3100'],
    fxp: ['POST /fxTransfers', 'PUT /fxTransfers/{commitRequestId}/error 3100'],
  });
  assert.deepEqual(await scene.allPositions(), before);
  assert.deepEqual(await storedStates(flow), { conversion: 'ABORTED_ERROR' });

  // Once released, the same answer again is told the final state, and the right fulfilment
  // after a wrong one is a changed answer (3106): the payer is neither told nor reserved again.
  await scene.answerConversion(flow, { body: wrongAnswer });
  await scene.answerConversion(flow);
  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId}/error 3100'],
    fxp: ['POST /fxTransfers', 'PUT /fxTransfers/{commitRequestId}/error 3100', 'PUT /fxTransfers/{commitRequestId} ABORTED', 'PUT /fxTransfers/{commitRequestId}/error 3106'],
  });
  assert.deepEqual(await scene.allPositions(), before);
});

test('a payee fulfilment that does not match: every reservation is released and the FXP is PATCHed ABORTED', async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(payee, { payeeBehaviour: 'wrong-fulfilment' });
  await scene.reservedConversion(flow);
  await scene.postPayment(flow);

  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /transfers/{transferId}/error 3100'],
    fxp: ['POST /fxTransfers', 'PATCH /fxTransfers/{commitRequestId} ABORTED'],
    payee: ['POST /transfers', 'PUT /transfers/{transferId}/error 3100'],
  });
  assert.deepEqual(await scene.allPositions(), before, 'the FXP\'s EUR and the payer\'s USD released');
  assert.deepEqual(await storedStates(flow), { conversion: 'ABORTED_ERROR', payment: 'ABORTED_ERROR' });
});

test('duplicates: each request again is answered from the hub\'s state, a changed one is 3106, and nothing is applied twice', async () => {
  const before = await scene.allPositions();
  const flow = conversionPayment(payee, { payeeBehaviour: 'late' });
  await scene.postConversion(flow);
  await scene.conversionAtFxp(flow);
  await waitUntil(async () => (await storedStates(flow)).conversion === 'RESERVED');
  // In flight (reserved, the FXP not yet answered): the same request is ignored.
  await scene.postConversion(flow);
  // Changed: refused, whatever state the conversion is in.
  await scene.postConversion(flow, { body: { ...flow.conversion, sourceAmount: { currency: 'USD', amount: '101' } } });
  await errorAt(scene.payer, flow);

  // The FXP's same answer twice is forwarded twice; a changed answer is 3106 to the FXP.
  const answer = reservedBody(flow.fxFulfilment);
  await scene.answerConversion(flow, { body: answer });
  await scene.answerConversion(flow, { body: answer });
  await scene.answerConversion(flow, { body: { ...answer, completedTimestamp: new Date(Date.now() + 1000).toISOString() } });
  await errorAt(scene.fxp, flow);
  assert.deepEqual(await scene.allPositions(), movedBy(before, { payerUsd: 100 }), 'the payer reserved once');

  // The payment, and the same payment again while its payee has not answered.
  await scene.postPayment(flow);
  await payee.waitFor((call) => call.method === 'POST' && call.path === '/transfers' && call.body?.transferId === flow.transferId);
  await waitUntil(async () => (await storedStates(flow)).payment === 'RESERVED');
  await scene.postPayment(flow);
  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /fxTransfers/{commitRequestId}/error 3106'],
    fxp: ['POST /fxTransfers', 'PUT /fxTransfers/{commitRequestId}/error 3106'],
    payee: ['POST /transfers'],
  });
  assert.deepEqual(await scene.allPositions(), movedBy(before, { payerUsd: 100, fxpEur: 90 }), 'the FXP reserved once');

  // The payee commits; then the conversion and the payment again, each answered with its final state.
  await fulfilAsPayee(flow);
  await scene.fxp.waitFor((call) => call.method === 'PATCH' && call.path === `/fxTransfers/${flow.commitRequestId}`);
  await scene.postConversion(flow);
  await scene.postPayment(flow);
  await scene.postConversion(flow, { body: { ...flow.conversion, targetAmount: { currency: 'EUR', amount: '91' } } });
  await scene.expectCalls(flow, {
    payer: [
      'PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /fxTransfers/{commitRequestId}/error 3106',
      'PUT /transfers/{transferId} COMMITTED', 'PUT /fxTransfers/{commitRequestId} COMMITTED', 'PUT /transfers/{transferId} COMMITTED',
      'PUT /fxTransfers/{commitRequestId}/error 3106',
    ],
    fxp: ['POST /fxTransfers', 'PUT /fxTransfers/{commitRequestId}/error 3106', 'PATCH /fxTransfers/{commitRequestId} COMMITTED'],
    payee: ['POST /transfers'],
  });
  const hubAnswers = scene.payer.received.filter((call) => call.headers['fspiop-source'] === 'Hub' && call.method === 'PUT' && !call.path.endsWith('/error')
    && [`/fxTransfers/${flow.commitRequestId}`, `/transfers/${flow.transferId}`].includes(call.path));
  assert.deepEqual(hubAnswers.map((call) => call.path).sort(), [`/fxTransfers/${flow.commitRequestId}`, `/transfers/${flow.transferId}`].sort(), 'the duplicates after the end are answered by the hub');
  assert.equal(hubAnswers.find((call) => call.path.startsWith('/fxTransfers')).body.fulfilment, flow.fxFulfilment);
  assert.deepEqual(await scene.allPositions(), movedBy(before, { payerUsd: 100, fxpUsd: -100, fxpEur: 90, payeeEur: -90 }), 'payer → FXP in USD, FXP → payee in EUR, once');
  assert.deepEqual(await storedStates(flow), { conversion: 'COMMITTED', payment: 'COMMITTED' });
});

test('duplicates at once: the same POST /fxTransfers and the same POST /transfers sent twice together each reserve once', async () => {
  const before = await scene.allPositions();
  // The payee answers once, whatever it is sent: a second answer would be a changed one (3106).
  const flow = conversionPayment(payee, { payeeBehaviour: 'late' });
  await Promise.all([scene.postConversion(flow), scene.postConversion(flow)]);
  await scene.conversionAtFxp(flow);
  await waitUntil(async () => (await storedStates(flow)).conversion === 'RESERVED');
  await scene.answerConversion(flow);
  await scene.payer.waitFor((call) => call.method === 'PUT' && call.path === `/fxTransfers/${flow.commitRequestId}`);
  await Promise.all([scene.postPayment(flow), scene.postPayment(flow)]);
  await payee.waitFor((call) => call.method === 'POST' && call.path === '/transfers' && call.body?.transferId === flow.transferId);
  await waitUntil(async () => (await storedStates(flow)).payment === 'RESERVED');
  await fulfilAsPayee(flow);
  await scene.fxp.waitFor((call) => call.method === 'PATCH' && call.path === `/fxTransfers/${flow.commitRequestId}`);
  await scene.payer.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${flow.transferId}`);

  // A duplicate caught while its first is still on its way to the position handler is
  // decided there again, which forwards the request again: the FXP and the payee may each
  // see theirs twice, identical, and nothing else.
  const forwarded = (dfsp, path) => dfsp.received.filter((call) => call.method === 'POST' && call.path === path
    && (call.body.commitRequestId === flow.commitRequestId || call.body.transferId === flow.transferId));
  for (const [dfsp, path] of [[scene.fxp, '/fxTransfers'], [payee, '/transfers']]) {
    const calls = forwarded(dfsp, path);
    assert.ok(calls.length >= 1 && calls.length <= 2 && calls.every((call) => call.rawBody === calls[0].rawBody), `${dfsp.name}: ${calls.length} forwards`);
  }
  const posts = (dfsp, path) => Array(forwarded(dfsp, path).length).fill(`POST ${path}`);
  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /transfers/{transferId} COMMITTED'],
    fxp: [...posts(scene.fxp, '/fxTransfers'), 'PATCH /fxTransfers/{commitRequestId} COMMITTED'],
    payee: [...posts(payee, '/transfers')],
  });
  assert.deepEqual(await scene.allPositions(), movedBy(before, { payerUsd: 100, fxpUsd: -100, fxpEur: 90, payeeEur: -90 }), 'each currency moved once');
  assert.deepEqual(await storedStates(flow), { conversion: 'COMMITTED', payment: 'COMMITTED' });
});

test('impostors: only the FXP answers a conversion and only its payer sends the payment; the real parties carry on afterwards', async () => {
  const [other] = scene.others;
  const before = await scene.allPositions();
  const otherBefore = await scene.positions('otherfsp');
  const flow = conversionPayment(payee);
  await scene.postConversion(flow);
  await scene.conversionAtFxp(flow);
  await waitUntil(async () => (await storedStates(flow)).conversion === 'RESERVED');

  // A third DFSP, then the payee, answer with the right fulfilment: each is refused (3100).
  await scene.answerConversion(flow, { from: 'otherfsp' });
  const toOther = await errorAt(other, flow);
  await scene.answerConversion(flow, { from: 'payeefsp' });
  const toPayee = await errorAt(payee, flow);
  for (const refused of [toOther, toPayee]) {
    assert.match(refused.body.errorInformation.errorDescription, /not the counterparty FSP/, 'refused as not the conversion\'s FXP');
  }
  // Nor may the third DFSP end it with an error or read it, and a conversion is no transfer:
  // the FXP's PUT /transfers under its id finds nothing (3208).
  const error = { errorInformation: { errorCode: '5100', errorDescription: 'not mine to refuse' } };
  const aborted = await scene.send(`/fxTransfers/${flow.commitRequestId}/error`, 'PUT', fxHeaders('otherfsp', 'payerfsp', { accept: false }), error);
  assert.equal(aborted.status, 200, aborted.text);
  const read = await scene.send(`/fxTransfers/${flow.commitRequestId}`, 'GET', fxHeaders('otherfsp', 'fxp1'));
  assert.equal(read.status, 202, read.text);
  const asTransfer = await scene.send(`/transfers/${flow.commitRequestId}`, 'PUT', fspiopHeaders('fxp1', 'payerfsp', { accept: false }), {
    fulfilment: flow.fxFulfilment, completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED',
  });
  assert.equal(asTransfer.status, 200, asTransfer.text);
  await scene.fxp.waitFor((call) => call.path === `/transfers/${flow.commitRequestId}/error`);
  assert.deepEqual(await storedStates(flow), { conversion: 'RESERVED' }, 'nothing changed');

  // The real FXP still answers; a payment under the determining id from another DFSP is refused and not stored.
  await scene.answerConversion(flow);
  await scene.payer.waitFor((call) => call.method === 'PUT' && call.path === `/fxTransfers/${flow.commitRequestId}`);
  const foreign = { ...flow.payment, payerFsp: 'otherfsp' };
  const posted = await scene.send('/transfers', 'POST', fspiopHeaders('otherfsp', 'payeefsp'), foreign);
  assert.equal(posted.status, 202, posted.text);
  await errorAt(other, flow, 'transfers');
  assert.deepEqual(await storedStates(flow), { conversion: 'RECEIVED_FULFIL_DEPENDENT' }, 'the foreign payment is not stored');

  // The payer's own payment then commits.
  await scene.postPayment(flow);
  await scene.expectCalls(flow, {
    payer: ['PUT /fxTransfers/{commitRequestId} RESERVED', 'PUT /transfers/{transferId} COMMITTED'],
    fxp: ['POST /fxTransfers', 'PUT /transfers/{commitRequestId}/error 3208', 'PATCH /fxTransfers/{commitRequestId} COMMITTED'],
    payee: ['POST /transfers', 'PUT /fxTransfers/{commitRequestId}/error 3100'],
    otherfsp: [
      'PUT /fxTransfers/{commitRequestId}/error 3100', 'PUT /fxTransfers/{commitRequestId}/error 3100', 'PUT /fxTransfers/{commitRequestId}/error 3208',
      'PUT /transfers/{transferId}/error 3100',
    ],
  });
  assert.deepEqual(await scene.allPositions(), movedBy(before, { payerUsd: 100, fxpUsd: -100, fxpEur: 90, payeeEur: -90 }));
  assert.deepEqual(await scene.positions('otherfsp'), otherBefore, 'the impostor moved nothing');
  assert.deepEqual(await storedStates(flow), { conversion: 'COMMITTED', payment: 'COMMITTED' });
});
