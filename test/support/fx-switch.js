// The scene of the currency-conversion tests: a switch of its own with the transfer
// components, a payer holding USD, an FXP holding USD and EUR (converting USD to EUR) and a
// payee holding EUR, each a test DFSP over HTTP, plus any other DFSPs a test needs (holding
// USD). It builds a conversion and the payment it is for, sends what a DFSP sends (signed, over
// its client certificate), reads positions from the admin API, and summarises the callbacks a
// DFSP received about one flow so that a test can assert exactly which arrived.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { onboardDfsp, setUpHub } from './admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch, withDfsps } from './switch.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from './test-dfsp.js';
import { signedFetch } from './jws-keys.js';
import { ensureHub } from '../../scripts/lib/onboarding.js';

const fxMedia = (version) => `application/vnd.interoperability.fxTransfers+json;version=${version}`;

/** A DFSP's headers for /fxTransfers, which exists only in API v2.0. */
export function fxHeaders(source, destination, { accept = true } = {}) {
  return {
    'content-type': fxMedia('2.0'),
    ...(accept ? { accept: fxMedia('2') } : {}),
    date: new Date().toUTCString(),
    'fspiop-source': source,
    'fspiop-destination': destination,
  };
}

export async function waitUntil(condition, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await sleep(100);
  }
  throw new Error('condition not met in time');
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Onboards the payer, the FXP (both currencies, the USD → EUR pair), the payee and `others`. */
async function onboard(sw, started, others) {
  await setUpHub(sw.admin.request, 'USD');
  await ensureHub(sw.admin.request, 'EUR');
  const names = ['payerfsp', 'fxp1', 'payeefsp', ...others];
  for (const name of names) started.push(await startTestDfsp({ name, switchUrl: sw.apiUrl }));
  const urlOf = (name) => started[names.indexOf(name)].url;
  const account = { netDebitCap: '1000', fundsIn: '5000' };
  await onboardDfsp(sw.admin.request, { name: 'payerfsp', endpointBase: urlOf('payerfsp'), ...account });
  await onboardDfsp(sw.admin.request, { name: 'fxp1', endpointBase: urlOf('fxp1'), ...account });
  await onboardDfsp(sw.admin.request, { name: 'fxp1', currency: 'EUR', ...account, jwsPublicKey: null });
  await onboardDfsp(sw.admin.request, { name: 'payeefsp', currency: 'EUR', endpointBase: urlOf('payeefsp'), ...account });
  for (const name of others) await onboardDfsp(sw.admin.request, { name, endpointBase: urlOf(name), ...account });
  const pair = await sw.admin.request('POST', '/participants/fxp1/currencyPairs', { sourceCurrency: 'USD', targetCurrency: 'EUR' });
  if (pair.status !== 201) throw new Error(`currency pair: ${pair.status} ${pair.text}`);
}

/**
 * Starts the scene: `{ sw, payer, fxp, payee, others, stop, … }` with the helpers below bound
 * to this switch. `others`: names of further DFSPs, onboarded in USD with every endpoint.
 */
export async function startFxScene({ others = [] } = {}) {
  const sw = await startSwitch({ components: TRANSFER_COMPONENTS });
  const { dfsps, stop } = await withDfsps(sw, (started) => onboard(sw, started, others));
  const [payer, fxp, payee, ...rest] = dfsps;
  const scene = { sw, payer, fxp, payee, others: rest, stop };
  return Object.assign(scene, sceneHelpers(scene));
}

function sceneHelpers(scene) {
  const { sw, payer, fxp } = scene;

  async function send(path, method, headers, body) {
    const response = await signedFetch(`${sw.apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, text: await response.text() };
  }

  async function positions(name) {
    const rows = (await sw.admin.request('GET', `/participants/${name}/positions`)).body;
    return Object.fromEntries(rows.map((row) => [row.currency, row.value]));
  }

  const allPositions = async () => ({ payer: await positions('payerfsp'), fxp: await positions('fxp1'), payee: await positions('payeefsp') });

  /** The payer's POST /fxTransfers (or `body`), accepted by the edge. */
  async function postConversion(flow, { from = 'payerfsp', body = flow.conversion } = {}) {
    const posted = await send('/fxTransfers', 'POST', fxHeaders(from, 'fxp1'), body);
    assert.equal(posted.status, 202, posted.text);
  }

  /** The FXP's (or `from`'s) PUT /fxTransfers/{ID}: RESERVED with its fulfilment unless `body` is given. */
  async function answerConversion(flow, { from = 'fxp1', body = reservedBody(flow.fxFulfilment) } = {}) {
    const answered = await send(`/fxTransfers/${flow.commitRequestId}`, 'PUT', fxHeaders(from, 'payerfsp', { accept: false }), body);
    assert.equal(answered.status, 200, answered.text);
  }

  const conversionAtFxp = (flow) => fxp.waitFor((call) => call.method === 'POST' && call.path === '/fxTransfers' && call.body?.commitRequestId === flow.commitRequestId);

  /** The payer's conversion, reserved by the FXP and forwarded to the payer. */
  async function reservedConversion(flow) {
    await postConversion(flow);
    const atFxp = await conversionAtFxp(flow);
    assert.equal(atFxp.headers['fspiop-source'], 'payerfsp', 'the payer\'s request is forwarded as it sent it');
    await answerConversion(flow);
    const atPayer = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/fxTransfers/${flow.commitRequestId}`);
    assert.equal(atPayer.body.conversionState, 'RESERVED');
    assert.equal(atPayer.headers['fspiop-source'], 'fxp1', 'the FXP\'s answer is forwarded as it sent it');
  }

  /** The payer's (or `from`'s) POST /transfers for the payment. */
  async function postPayment(flow, { from = 'payerfsp', body = flow.payment } = {}) {
    const posted = await send('/transfers', 'POST', fspiopHeaders(from, 'payeefsp'), body);
    assert.equal(posted.status, 202, posted.text);
  }

  /**
   * Waits until each DFSP named in `expected` ({ payer: [...], fxp: [...], … }, summaries as
   * callSummaries gives them) has received at least as many calls about `flow` as listed, then
   * a while longer for anything unexpected, and asserts that each received exactly those.
   */
  async function expectCalls(flow, expected, { settleMs = 1500 } = {}) {
    const dfsps = { payer: scene.payer, fxp: scene.fxp, payee: scene.payee, ...Object.fromEntries(scene.others.map((dfsp) => [dfsp.name, dfsp])) };
    const received = () => Object.fromEntries(Object.keys(dfsps).map((role) => [role, callSummaries(dfsps[role], flow)]));
    await waitUntil(() => Object.entries(received()).every(([role, calls]) => calls.length >= (expected[role] ?? []).length), 20_000)
      .catch(() => assert.fail(`callbacks did not arrive: ${JSON.stringify(received())}`));
    await sleep(settleMs);
    const all = received();
    for (const role of Object.keys(dfsps)) assert.deepEqual(all[role], [...(expected[role] ?? [])].sort(), `the calls ${role} received`);
    const unsigned = Object.values(dfsps).flatMap((dfsp) => callsAbout(dfsp, flow).filter((call) => call.signatureProblem)
      .map((call) => `${dfsp.name}: ${call.method} ${call.path} from ${call.headers['fspiop-source']}: ${call.signatureProblem}`));
    assert.deepEqual(unsigned, [], 'every call verifies with its sender\'s key');
  }

  return { send, positions, allPositions, postConversion, answerConversion, conversionAtFxp, reservedConversion, postPayment, expectCalls };
}

export function reservedBody(fulfilment) {
  return { conversionState: 'RESERVED', fulfilment, completedTimestamp: new Date().toISOString() };
}

/** The calls `dfsp` received about the conversion or the payment of a flow. */
function callsAbout(dfsp, { commitRequestId, transferId }) {
  return dfsp.received.filter((call) => call.path.includes(commitRequestId) || call.path.includes(transferId)
    || call.body?.commitRequestId === commitRequestId || call.body?.transferId === transferId);
}

/**
 * What `dfsp` received about `flow`, sorted, one line a call: method, path with the ids
 * written {commitRequestId} and {transferId}, then the error code or the state it carried.
 */
export function callSummaries(dfsp, { commitRequestId, transferId }) {
  return callsAbout(dfsp, { commitRequestId, transferId }).map((call) => {
    const path = call.path.replace(commitRequestId, '{commitRequestId}').replace(transferId, '{transferId}');
    const carried = call.body?.errorInformation?.errorCode ?? call.body?.conversionState ?? call.body?.transferState;
    return carried ? `${call.method} ${path} ${carried}` : `${call.method} ${path}`;
  }).sort();
}

/**
 * A conversion and the payment it is for: USD 100 from the payer becomes EUR 90 for the payee.
 * `expiresInMs` sets both expirations (the payment's, and the conversion's unless
 * `fxExpiresInMs` is given); `payeeBehaviour` how the payee answers (test-dfsp.js).
 */
export function conversionPayment(payee, { payeeBehaviour = 'fulfil', expiresInMs = 30_000, fxExpiresInMs = expiresInMs } = {}) {
  const transferId = randomUUID();
  const commitRequestId = randomUUID();
  const expiration = new Date(Date.now() + expiresInMs).toISOString();
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
      commitRequestId, determiningTransferId: transferId, initiatingFsp: 'payerfsp', counterPartyFsp: 'fxp1', sourceAmount: { currency: 'USD', amount: '100' },
      targetAmount: { currency: 'EUR', amount: '90' }, condition: fxCondition, expiration: new Date(Date.now() + fxExpiresInMs).toISOString(),
    },
    payment: {
      transferId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '90', currency: 'EUR' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration,
    },
  };
}
