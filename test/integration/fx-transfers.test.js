// Currency conversion end to end through the real switch (handlers/README.md, "Currency
// conversion"): a payer holding USD pays a payee holding EUR through an FXP holding both.
// The payer asks the FXP to convert (POST /fxTransfers), the FXP reserves it, the payer sends
// the payment in EUR, and the payee's fulfil commits both: payer → FXP in USD, FXP → payee in
// EUR, with the FXP PATCHed. An FXP error and a payee error each release every reservation.
// The api-adapter, every handler as its own process, real Kafka and MariaDB, DFSPs over HTTP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch, withDfsps } from '../support/switch.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';
import { ensureHub } from '../../scripts/lib/onboarding.js';

let sw;
let payer;
let fxp;
let payee;
let stop;

const FX_ENDPOINTS = (base) => [
  ['FSPIOP_CALLBACK_URL_FX_TRANSFER_POST', `${base}/fxTransfers`],
  ['FSPIOP_CALLBACK_URL_FX_TRANSFER_PUT', `${base}/fxTransfers/{{commitRequestId}}`],
  ['FSPIOP_CALLBACK_URL_FX_TRANSFER_ERROR', `${base}/fxTransfers/{{commitRequestId}}/error`],
];

async function addFxEndpoints(name, base) {
  for (const [type, value] of FX_ENDPOINTS(base)) {
    const result = await sw.admin.request('POST', `/participants/${name}/endpoints`, { type, value });
    if (result.status !== 201) throw new Error(`endpoint ${type} of ${name}: ${result.status} ${result.text}`);
  }
}

before(async () => {
  sw = await startSwitch({ components: TRANSFER_COMPONENTS });
  ({ dfsps: [payer, fxp, payee], stop } = await withDfsps(sw, async (started) => {
    await setUpHub(sw.admin.request, 'USD');
    await ensureHub(sw.admin.request, 'EUR');
    for (const name of ['payerfsp', 'fxp1', 'payeefsp']) started.push(await startTestDfsp({ name, switchUrl: sw.apiUrl }));
    const [payerDfsp, fxpDfsp, payeeDfsp] = started;
    await onboardDfsp(sw.admin.request, { name: 'payerfsp', endpointBase: payerDfsp.url, netDebitCap: '1000', fundsIn: '5000' });
    await onboardDfsp(sw.admin.request, { name: 'fxp1', endpointBase: fxpDfsp.url, netDebitCap: '1000', fundsIn: '5000' });
    await onboardDfsp(sw.admin.request, { name: 'fxp1', currency: 'EUR', netDebitCap: '1000', fundsIn: '5000', jwsPublicKey: null });
    await onboardDfsp(sw.admin.request, { name: 'payeefsp', currency: 'EUR', endpointBase: payeeDfsp.url, netDebitCap: '1000', fundsIn: '5000' });
    await addFxEndpoints('payerfsp', payerDfsp.url);
    await addFxEndpoints('fxp1', fxpDfsp.url);
    const pair = await sw.admin.request('POST', '/participants/fxp1/currencyPairs', { sourceCurrency: 'USD', targetCurrency: 'EUR' });
    if (pair.status !== 201) throw new Error(`currency pair: ${pair.status} ${pair.text}`);
  }));
});

after(() => stop?.());

const fxHeaders = (source, destination, { accept = true } = {}) => ({
  'content-type': 'application/vnd.interoperability.fxTransfers+json;version=2.0',
  ...(accept ? { accept: 'application/vnd.interoperability.fxTransfers+json;version=2' } : {}),
  date: new Date().toUTCString(),
  'fspiop-source': source,
  'fspiop-destination': destination,
});

async function send(path, method, headers, body) {
  const response = await signedFetch(`${sw.apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, text };
}

/** The conversion and the payment it is for: USD 100 from the payer becomes EUR 90 for the payee. */
function conversionPayment({ payeeBehaviour = 'fulfil' } = {}) {
  const transferId = randomUUID();
  const commitRequestId = randomUUID();
  const expiration = new Date(Date.now() + 30_000).toISOString();
  payee.setBehaviour(transferId, payeeBehaviour);
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount: '90', currency: 'EUR', payeeAddress: 'g.payeefsp.msisdn.123', expiration });
  // The FXP's condition is the SHA-256 of a fulfilment only the FXP knows until it answers.
  const fxFulfilment = randomBytes(32).toString('base64url');
  const fxCondition = createHash('sha256').update(Buffer.from(fxFulfilment, 'base64url')).digest('base64url');
  return {
    transferId,
    commitRequestId,
    fxFulfilment,
    conversion: {
      commitRequestId, determiningTransferId: transferId, initiatingFsp: 'payerfsp', counterPartyFsp: 'fxp1',
      sourceAmount: { currency: 'USD', amount: '100' }, targetAmount: { currency: 'EUR', amount: '90' }, condition: fxCondition, expiration,
    },
    payment: {
      transferId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '90', currency: 'EUR' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration,
    },
  };
}

async function positions(name) {
  const rows = (await sw.admin.request('GET', `/participants/${name}/positions`)).body;
  return Object.fromEntries(rows.map((row) => [row.currency, row.value]));
}

async function allPositions() {
  return { payer: await positions('payerfsp'), fxp: await positions('fxp1'), payee: await positions('payeefsp') };
}

const callTo = (dfsp, method, path) => dfsp.waitFor((call) => call.method === method && call.path === path);

/** The payer's conversion, reserved by the FXP and forwarded to the payer. */
async function reservedConversion(flow) {
  const posted = await send('/fxTransfers', 'POST', fxHeaders('payerfsp', 'fxp1'), flow.conversion);
  assert.equal(posted.status, 202, posted.text);
  const atFxp = await fxp.waitFor((call) => call.method === 'POST' && call.path === '/fxTransfers' && call.body?.commitRequestId === flow.commitRequestId);
  assert.equal(atFxp.headers['fspiop-source'], 'payerfsp', 'the payer\'s request is forwarded as it sent it');
  const reserved = { conversionState: 'RESERVED', fulfilment: flow.fxFulfilment, completedTimestamp: new Date().toISOString() };
  const answered = await send(`/fxTransfers/${flow.commitRequestId}`, 'PUT', fxHeaders('fxp1', 'payerfsp', { accept: false }), reserved);
  assert.equal(answered.status, 200, answered.text);
  const atPayer = await callTo(payer, 'PUT', `/fxTransfers/${flow.commitRequestId}`);
  assert.equal(atPayer.body.conversionState, 'RESERVED');
  assert.equal(atPayer.headers['fspiop-source'], 'fxp1', 'the FXP\'s answer is forwarded as it sent it');
}

async function postPayment(flow) {
  const posted = await send('/transfers', 'POST', fspiopHeaders('payerfsp', 'payeefsp'), flow.payment);
  assert.equal(posted.status, 202, posted.text);
}

test('a conversion payment: the FXP reserves, the payee commits, both currencies move exactly and the FXP is PATCHed COMMITTED', async () => {
  const before = await allPositions();
  const flow = conversionPayment();
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
  const [rows] = await sw.admin.db.raw('SELECT transfer_id, state FROM transfer WHERE transfer_id IN (?, ?)', [flow.transferId, flow.commitRequestId]);
  assert.deepEqual(rows.map((row) => row.state), ['COMMITTED', 'COMMITTED']);
});

test('the FXP\'s error releases the payer\'s reservation and reaches the payer', async () => {
  const before = await allPositions();
  const flow = conversionPayment();
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
  const flow = conversionPayment({ payeeBehaviour: 'reject' });
  await reservedConversion(flow);
  await postPayment(flow);
  const rejected = await callTo(payer, 'PUT', `/transfers/${flow.transferId}/error`);
  assert.equal(rejected.body.errorInformation.errorCode, '5104');
  const patched = await callTo(fxp, 'PATCH', `/fxTransfers/${flow.commitRequestId}`);
  assert.equal(patched.body.conversionState, 'ABORTED');
  assert.deepEqual(await allPositions(), before, 'every reservation released, in both currencies');
});

async function waitUntil(condition, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('condition not met in time');
}
