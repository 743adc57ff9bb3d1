// Currency conversion end to end through the real switch (handlers/README.md, "Currency
// conversion"): a payer holding USD pays a payee holding EUR through an FXP holding both.
// The payer asks the FXP to convert (POST /fxTransfers), the FXP reserves it, the payer sends
// the payment in EUR, and the payee's fulfil commits both: payer → FXP in USD, FXP → payee in
// EUR, with the FXP PATCHed. An FXP error and a payee error each release every reservation.
// The api-adapter, every handler as its own process, real Kafka and MariaDB, DFSPs over HTTP
// (the scene: test/support/fx-switch.js).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { conversionPayment, fxHeaders, startFxScene, waitUntil } from '../support/fx-switch.js';

let scene;
let payer;
let fxp;
let payee;

before(async () => {
  scene = await startFxScene();
  ({ payer, fxp, payee } = scene);
});

after(() => scene?.stop());

const send = (...args) => scene.send(...args);
const positions = (name) => scene.positions(name);
const allPositions = () => scene.allPositions();
const reservedConversion = (flow) => scene.reservedConversion(flow);
const postPayment = (flow) => scene.postPayment(flow);
const callTo = (dfsp, method, path) => dfsp.waitFor((call) => call.method === method && call.path === path);

test('a conversion payment: the FXP reserves, the payee commits, both currencies move exactly and the FXP is PATCHed COMMITTED', async () => {
  const before = await allPositions();
  const flow = conversionPayment(payee);
  await reservedConversion(flow);
  assert.deepEqual((await positions('payerfsp')).USD, before.payer.USD + 100, 'the payer is reserved in the source currency');
  await postPayment(flow);
  await payee.waitFor((call) => call.method === 'POST' && call.path === '/transfers' && call.body?.transferId === flow.transferId);
  const committed = await callTo(payer, 'PUT', `/transfers/${flow.transferId}`);
  assert.equal(committed.body.transferState, 'COMMITTED');
  const patched = await callTo(fxp, 'PATCH', `/fxTransfers/${flow.commitRequestId}`);
  assert.equal(patched.body.conversionState, 'COMMITTED');
  assert.equal(patched.headers['fspiop-source'], 'Hub');

  const after = await allPositions();
  assert.deepEqual(after, {
    payer: { USD: before.payer.USD + 100 },
    fxp: { USD: before.fxp.USD - 100, EUR: before.fxp.EUR + 90 },
    payee: { EUR: before.payee.EUR - 90 },
  }, 'payer → FXP in USD, FXP → payee in EUR');
  const [rows] = await scene.sw.admin.db.raw('SELECT transfer_id, state FROM transfer WHERE transfer_id IN (?, ?)', [flow.transferId, flow.commitRequestId]);
  assert.deepEqual(rows.map((row) => row.state), ['COMMITTED', 'COMMITTED']);
});

test('the FXP\'s error releases the payer\'s reservation and reaches the payer', async () => {
  const before = await allPositions();
  const flow = conversionPayment(payee);
  const posted = await send('/fxTransfers', 'POST', fxHeaders('payerfsp', 'fxp1'), flow.conversion);
  assert.equal(posted.status, 202, posted.text);
  await fxp.waitFor((call) => call.method === 'POST' && call.body?.commitRequestId === flow.commitRequestId);
  const error = { errorInformation: { errorCode: '5100', errorDescription: 'cannot convert now' } };
  const answered = await send(`/fxTransfers/${flow.commitRequestId}/error`, 'PUT', fxHeaders('fxp1', 'payerfsp', { accept: false }), error);
  assert.equal(answered.status, 200, answered.text);
  const atPayer = await callTo(payer, 'PUT', `/fxTransfers/${flow.commitRequestId}/error`);
  assert.deepEqual(atPayer.body.errorInformation, error.errorInformation);
  await waitUntil(async () => (await positions('payerfsp')).USD === before.payer.USD);
  assert.deepEqual(await allPositions(), before, 'every reservation released');
});

test('the payee\'s error releases the FXP\'s target and the payer\'s source reservations, and the FXP is PATCHed ABORTED', async () => {
  const before = await allPositions();
  const flow = conversionPayment(payee, { payeeBehaviour: 'reject' });
  await reservedConversion(flow);
  await postPayment(flow);
  const rejected = await callTo(payer, 'PUT', `/transfers/${flow.transferId}/error`);
  assert.equal(rejected.body.errorInformation.errorCode, '5104');
  const patched = await callTo(fxp, 'PATCH', `/fxTransfers/${flow.commitRequestId}`);
  assert.equal(patched.body.conversionState, 'ABORTED');
  assert.deepEqual(await allPositions(), before, 'every reservation released, in both currencies');
});
