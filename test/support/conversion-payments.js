// The scene of a conversion payment (handlers/README.md, "Currency conversion") on a switch of
// its own: a payer holding USD, an FXP holding USD and EUR with the USD/EUR pair, a payee
// holding EUR, each a test DFSP with the fx endpoints; and the steps a payment through the
// FXP takes: POST /fxTransfers, the FXP's PUT RESERVED, the dependent POST /transfers.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { onboardDfsp } from './admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch, withDfsps } from './switch.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from './test-dfsp.js';
import { signedFetch } from './jws-keys.js';
import { ensureHub } from '../../scripts/lib/onboarding.js';

export const PAYER = 'payerfsp';
export const FXP = 'fxp1';
export const PAYEE = 'payeefsp';

const FX_ENDPOINTS = (base) => [
  ['FSPIOP_CALLBACK_URL_FX_TRANSFER_POST', `${base}/fxTransfers`],
  ['FSPIOP_CALLBACK_URL_FX_TRANSFER_PUT', `${base}/fxTransfers/{{commitRequestId}}`],
  ['FSPIOP_CALLBACK_URL_FX_TRANSFER_ERROR', `${base}/fxTransfers/{{commitRequestId}}/error`],
];

async function addFxEndpoints(sw, name, base) {
  for (const [type, value] of FX_ENDPOINTS(base)) {
    const result = await sw.admin.request('POST', `/participants/${name}/endpoints`, { type, value });
    if (result.status !== 201) throw new Error(`endpoint ${type} of ${name}: ${result.status} ${result.text}`);
  }
}

/** A deferred net model with no currency of its own: one settlement then nets USD and EUR together. */
async function addDefaultNetModel(sw) {
  const model = await sw.admin.request('POST', '/settlementModels', {
    name: 'DEFERREDNETDEFAULT', settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED',
    requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  });
  if (model.status !== 201) throw new Error(`settlement model: ${model.status} ${model.text}`);
}

/**
 * Starts a switch (`components`, `replicas`, `env` as startSwitch takes them) and the three
 * DFSPs, each account with `netDebitCap` and `fundsIn`. Every currency gets a deferred net
 * model of its own unless `defaultNetModel` asks for one model over both. Resolves to
 * `{ sw, payer, fxp, payee, accounts, stop }`, `accounts` the position and settlement account
 * ids by `${name} ${currency}`.
 */
export async function startConversionSwitch({
  components = TRANSFER_COMPONENTS, replicas = {}, env = {}, netDebitCap = '1000', fundsIn = '5000', defaultNetModel = false,
} = {}) {
  const sw = await startSwitch({ components, replicas, env });
  const accounts = new Map();
  const { dfsps: [payer, fxp, payee], stop } = await withDfsps(sw, async (started) => {
    if (defaultNetModel) await addDefaultNetModel(sw);
    await ensureHub(sw.admin.request, 'USD');
    await ensureHub(sw.admin.request, 'EUR');
    for (const name of [PAYER, FXP, PAYEE]) started.push(await startTestDfsp({ name, switchUrl: sw.apiUrl }));
    const [payerDfsp, fxpDfsp, payeeDfsp] = started;
    const onboard = async (name, currency, options) => {
      accounts.set(`${name} ${currency}`, await onboardDfsp(sw.admin.request, { name, currency, netDebitCap, fundsIn, ...options }));
    };
    await onboard(PAYER, 'USD', { endpointBase: payerDfsp.url });
    await onboard(FXP, 'USD', { endpointBase: fxpDfsp.url });
    await onboard(FXP, 'EUR', { jwsPublicKey: null });
    await onboard(PAYEE, 'EUR', { endpointBase: payeeDfsp.url });
    await addFxEndpoints(sw, PAYER, payerDfsp.url);
    await addFxEndpoints(sw, FXP, fxpDfsp.url);
    const pair = await sw.admin.request('POST', `/participants/${FXP}/currencyPairs`, { sourceCurrency: 'USD', targetCurrency: 'EUR' });
    if (pair.status !== 201) throw new Error(`currency pair: ${pair.status} ${pair.text}`);
  });
  return { sw, payer, fxp, payee, accounts, stop };
}

export const fxHeaders = (source, destination, { accept = true } = {}) => ({
  'content-type': 'application/vnd.interoperability.fxTransfers+json;version=2.0',
  ...(accept ? { accept: 'application/vnd.interoperability.fxTransfers+json;version=2' } : {}),
  date: new Date().toUTCString(),
  'fspiop-source': source,
  'fspiop-destination': destination,
});

/** A signed FSPIOP request to the switch's transfers edge: `{ status, text }`. */
export async function sendToSwitch(sw, path, method, headers, body) {
  const response = await signedFetch(`${sw.apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, text };
}

/**
 * A conversion and the payment it is for: `sourceAmount` USD from the payer becomes
 * `targetAmount` EUR for the payee, who answers by `payeeBehaviour` (test-dfsp.js). Ids are
 * random unless given (a run's ids carry its tag for the validity gate).
 */
export function conversionPayment(payee, {
  payeeBehaviour = 'fulfil', sourceAmount = '100', targetAmount = '90', transferId = randomUUID(), commitRequestId = randomUUID(), expiresInMs = 30_000,
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
      commitRequestId, determiningTransferId: transferId, initiatingFsp: PAYER, counterPartyFsp: FXP,
      sourceAmount: { currency: 'USD', amount: sourceAmount }, targetAmount: { currency: 'EUR', amount: targetAmount }, condition: fxCondition, expiration,
    },
    payment: {
      transferId, payerFsp: PAYER, payeeFsp: PAYEE, amount: { amount: targetAmount, currency: 'EUR' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration,
    },
  };
}

/**
 * The payer's conversion, reserved by the FXP and forwarded to the payer. Resolves to the
 * calls the FXP and the payer received (`{ atFxp, atPayer }`); `timeoutMs` bounds each wait.
 */
export async function reserveConversion({ sw, payer, fxp }, flow, { timeoutMs = 15_000 } = {}) {
  const posted = await sendToSwitch(sw, '/fxTransfers', 'POST', fxHeaders(PAYER, FXP), flow.conversion);
  assert.equal(posted.status, 202, posted.text);
  const atFxp = await fxp.waitFor((call) => call.method === 'POST' && call.path === '/fxTransfers' && call.body?.commitRequestId === flow.commitRequestId, timeoutMs);
  const reserved = { conversionState: 'RESERVED', fulfilment: flow.fxFulfilment, completedTimestamp: new Date().toISOString() };
  const answered = await sendToSwitch(sw, `/fxTransfers/${flow.commitRequestId}`, 'PUT', fxHeaders(FXP, PAYER, { accept: false }), reserved);
  assert.equal(answered.status, 200, answered.text);
  const atPayer = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/fxTransfers/${flow.commitRequestId}`, timeoutMs);
  return { atFxp, atPayer };
}

/** The dependent payment, sent by the payer once its conversion is reserved. */
export async function postPayment(sw, flow) {
  const posted = await sendToSwitch(sw, '/transfers', 'POST', fspiopHeaders(PAYER, PAYEE), flow.payment);
  assert.equal(posted.status, 202, posted.text);
}

/**
 * A whole conversion payment: reserved, paid, and the payer told the payment's outcome.
 * Resolves to that callback (PUT /transfers/{ID} or …/error).
 */
export async function payThroughFxp(scene, flow, { timeoutMs = 15_000 } = {}) {
  await reserveConversion(scene, flow, { timeoutMs });
  await postPayment(scene.sw, flow);
  return scene.payer.waitFor((call) => call.method === 'PUT' && call.path.startsWith(`/transfers/${flow.transferId}`), timeoutMs);
}

/** A DFSP's positions by currency, as the admin API answers them. */
export async function positionsOf(sw, name) {
  const rows = (await sw.admin.request('GET', `/participants/${name}/positions`)).body;
  return Object.fromEntries(rows.map((row) => [row.currency, row.value]));
}
