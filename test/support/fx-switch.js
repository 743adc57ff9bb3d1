// The scene of the currency-conversion tests (handlers/README.md, "Currency conversion"): a
// switch of its own, a payer holding USD, an FXP holding USD and EUR (converting USD to EUR)
// and a payee holding EUR, each a test DFSP over HTTP onboarded with every endpoint (the fx
// ones included: scripts/lib/onboarding.js), plus any other DFSPs a test needs (holding USD).
// It builds a conversion and the payment it is for, sends what a DFSP sends (signed, over its
// client certificate), takes a payment through the FXP step by step or whole, reads positions
// from the admin API, and summarises the callbacks a DFSP received about one flow so that a
// test can assert exactly which arrived.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { onboardDfsp } from './admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch, withDfsps } from './switch.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from './test-dfsp.js';
import { signedFetch } from './jws-keys.js';
import { ensureHub } from '../../scripts/lib/onboarding.js';

export const PAYER = 'payerfsp';
export const FXP = 'fxp1';
export const PAYEE = 'payeefsp';

/** How long a step of a flow is waited for, unless a test gives its own `timeoutMs`. */
const STEP_TIMEOUT_MS = 15_000;

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

/** Resolves once `condition()` (which may be async) is true; fails after `timeoutMs`. */
export async function waitUntil(condition, timeoutMs = STEP_TIMEOUT_MS) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await sleep(100);
  }
  throw new Error('condition not met in time');
}

/** A deferred net model with no currency of its own: one settlement then nets USD and EUR together. */
async function addDefaultNetModel(request) {
  const model = await request('POST', '/settlementModels', {
    name: 'DEFERREDNETDEFAULT', settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED',
    requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  });
  if (model.status !== 201) throw new Error(`settlement model: ${model.status} ${model.text}`);
}

/**
 * Onboards the payer, the FXP (both currencies, the USD → EUR pair), the payee and `others`,
 * and resolves to their position and settlement account ids by `${name} ${currency}`. The hub
 * gets a deferred net model per currency, unless `defaultNetModel` asks for one over both.
 */
async function onboard(sw, started, { others, netDebitCap, fundsIn, defaultNetModel }) {
  const { request } = sw.admin;
  if (defaultNetModel) await addDefaultNetModel(request);
  await ensureHub(request, 'USD');
  await ensureHub(request, 'EUR');
  const names = [PAYER, FXP, PAYEE, ...others];
  for (const name of names) started.push(await startTestDfsp({ name, switchUrl: sw.apiUrl }));
  const accounts = new Map();
  const account = async (name, currency, options) => {
    accounts.set(`${name} ${currency}`, await onboardDfsp(request, { name, currency, netDebitCap, fundsIn, ...options }));
  };
  const endpointBase = (name) => started[names.indexOf(name)].url;
  await account(PAYER, 'USD', { endpointBase: endpointBase(PAYER) });
  await account(FXP, 'USD', { endpointBase: endpointBase(FXP) });
  await account(FXP, 'EUR', { jwsPublicKey: null });
  await account(PAYEE, 'EUR', { endpointBase: endpointBase(PAYEE) });
  for (const name of others) await account(name, 'USD', { endpointBase: endpointBase(name) });
  const pair = await request('POST', `/participants/${FXP}/currencyPairs`, { sourceCurrency: 'USD', targetCurrency: 'EUR' });
  if (pair.status !== 201) throw new Error(`currency pair: ${pair.status} ${pair.text}`);
  return accounts;
}

/**
 * Starts the scene: a switch of `components` (`replicas` and `env` as startSwitch takes them),
 * each DFSP account with `netDebitCap` and `fundsIn`; `others` names further DFSPs, onboarded
 * in USD with every endpoint. Resolves to `{ sw, payer, fxp, payee, others, accounts, stop, … }`
 * with the helpers below bound to this switch, `accounts` as onboard gives them.
 */
export async function startFxScene({
  components = TRANSFER_COMPONENTS, replicas = {}, env = {}, netDebitCap = '1000', fundsIn = '5000', defaultNetModel = false, others = [],
} = {}) {
  const sw = await startSwitch({ components, replicas, env });
  let accounts;
  const { dfsps, stop } = await withDfsps(sw, async (started) => {
    accounts = await onboard(sw, started, { others, netDebitCap, fundsIn, defaultNetModel });
  });
  const [payer, fxp, payee, ...rest] = dfsps;
  const scene = { sw, payer, fxp, payee, others: rest, accounts, stop };
  return Object.assign(scene, sceneHelpers(scene));
}

function sceneHelpers(scene) {
  const { sw, payer, fxp } = scene;

  /** A signed FSPIOP request to the switch's transfers edge: `{ status, text }`. */
  async function send(path, method, headers, body) {
    const response = await signedFetch(`${sw.apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, text: await response.text() };
  }

  /** A DFSP's positions by currency, as the admin API answers them. */
  async function positions(name) {
    const rows = (await sw.admin.request('GET', `/participants/${name}/positions`)).body;
    return Object.fromEntries(rows.map((row) => [row.currency, row.value]));
  }

  const allPositions = async () => ({ payer: await positions(PAYER), fxp: await positions(FXP), payee: await positions(PAYEE) });

  /** The payer's POST /fxTransfers (or `body`), accepted by the edge. */
  async function postConversion(flow, { from = PAYER, body = flow.conversion } = {}) {
    const posted = await send('/fxTransfers', 'POST', fxHeaders(from, FXP), body);
    assert.equal(posted.status, 202, posted.text);
  }

  /** The FXP's (or `from`'s) PUT /fxTransfers/{ID}: RESERVED with its fulfilment unless `body` is given. */
  async function answerConversion(flow, { from = FXP, body = reservedBody(flow.fxFulfilment) } = {}) {
    const answered = await send(`/fxTransfers/${flow.commitRequestId}`, 'PUT', fxHeaders(from, PAYER, { accept: false }), body);
    assert.equal(answered.status, 200, answered.text);
  }

  const conversionAtFxp = (flow, { timeoutMs = STEP_TIMEOUT_MS } = {}) => fxp.waitFor(
    (call) => call.method === 'POST' && call.path === '/fxTransfers' && call.body?.commitRequestId === flow.commitRequestId, timeoutMs,
  );

  /** The payer's conversion, reserved by the FXP and forwarded to the payer; `timeoutMs` bounds each wait. */
  async function reservedConversion(flow, { timeoutMs = STEP_TIMEOUT_MS } = {}) {
    await postConversion(flow);
    const atFxp = await conversionAtFxp(flow, { timeoutMs });
    assert.equal(atFxp.headers['fspiop-source'], PAYER, 'the payer\'s request is forwarded as it sent it');
    await answerConversion(flow);
    const atPayer = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/fxTransfers/${flow.commitRequestId}`, timeoutMs);
    assert.equal(atPayer.body.conversionState, 'RESERVED');
    assert.equal(atPayer.headers['fspiop-source'], FXP, 'the FXP\'s answer is forwarded as it sent it');
  }

  /** The payer's (or `from`'s) POST /transfers for the payment. */
  async function postPayment(flow, { from = PAYER, body = flow.payment } = {}) {
    const posted = await send('/transfers', 'POST', fspiopHeaders(from, PAYEE), body);
    assert.equal(posted.status, 202, posted.text);
  }

  /**
   * A whole conversion payment: reserved, paid, and the payer told the payment's outcome.
   * Resolves to that callback (PUT /transfers/{ID} or …/error); `timeoutMs` bounds each wait.
   */
  async function payThroughFxp(flow, { timeoutMs = STEP_TIMEOUT_MS } = {}) {
    await reservedConversion(flow, { timeoutMs });
    await postPayment(flow);
    return payer.waitFor((call) => call.method === 'PUT' && call.path.startsWith(`/transfers/${flow.transferId}`), timeoutMs);
  }

  return {
    send, positions, allPositions, postConversion, answerConversion, conversionAtFxp, reservedConversion, postPayment, payThroughFxp,
    expectCalls: (flow, expected, options) => expectCalls(scene, flow, expected, options),
  };
}

/**
 * Waits until each DFSP of `scene` named in `expected` ({ payer: [...], fxp: [...], … }, the
 * others by name; summaries as callSummaries gives them) has received at least as many calls
 * about `flow` as listed, then `settleMs` longer for anything unexpected, and asserts that each
 * received exactly those, every one signed by its sender.
 */
async function expectCalls(scene, flow, expected, { settleMs = 1500 } = {}) {
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
 * A conversion and the payment it is for: `sourceAmount` USD from the payer becomes
 * `targetAmount` EUR for the payee, who answers by `payeeBehaviour` (test-dfsp.js). Ids are
 * random unless given (a run's ids may carry its tag for the validity gate); both the
 * conversion and the payment expire `expiresInMs` from now.
 */
export function conversionPayment(payee, {
  payeeBehaviour = 'fulfil', sourceAmount = '100', targetAmount = '90', transferId = randomUUID(), commitRequestId = randomUUID(),
  expiresInMs = 30_000,
} = {}) {
  const expiration = new Date(Date.now() + expiresInMs).toISOString();
  payee.setBehaviour(transferId, payeeBehaviour);
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount: targetAmount, currency: 'EUR', payeeAddress: `g.${PAYEE}.msisdn.123`, expiration });
  // The FXP's condition is the SHA-256 of a fulfilment only the FXP knows until it answers.
  const fxFulfilment = randomBytes(32).toString('base64url');
  const fxCondition = createHash('sha256').update(Buffer.from(fxFulfilment, 'base64url')).digest('base64url');
  return {
    transferId,
    commitRequestId,
    fxFulfilment,
    conversion: {
      commitRequestId, determiningTransferId: transferId, initiatingFsp: PAYER, counterPartyFsp: FXP, sourceAmount: { currency: 'USD', amount: sourceAmount },
      targetAmount: { currency: 'EUR', amount: targetAmount }, condition: fxCondition, expiration,
    },
    payment: {
      transferId, payerFsp: PAYER, payeeFsp: PAYEE, amount: { amount: targetAmount, currency: 'EUR' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration,
    },
  };
}
