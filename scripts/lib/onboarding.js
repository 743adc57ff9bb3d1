// Onboarding through the admin API, in central-ledger's sequence and with its request
// bodies: hub accounts → settlement model → participant → initialPositionAndLimits →
// endpoints → JWS public key → funds in. Every step is idempotent, so provisioning can be run again: what
// exists already is left as it is, and the funds-in uses a transfer id derived from the
// DFSP, so a second run is a duplicate rather than a second deposit.
import { createHash } from 'node:crypto';
import { operatorHeaders } from './operator-auth.js';

/** A tiny JSON client of the admin API (or the ALS admin API), sending `token` as its bearer token. */
export function adminClient(baseUrl, { token } = {}) {
  return async function request(method, path, body) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...operatorHeaders(token), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
  };
}

/** The callback endpoints a DFSP registers, with Mojaloop's URL templates. */
export function standardEndpoints(base) {
  return [
    ['FSPIOP_CALLBACK_URL_TRANSFER_POST', `${base}/transfers`],
    ['FSPIOP_CALLBACK_URL_TRANSFER_PUT', `${base}/transfers/{{transferId}}`],
    ['FSPIOP_CALLBACK_URL_TRANSFER_ERROR', `${base}/transfers/{{transferId}}/error`],
    ['FSPIOP_CALLBACK_URL_PARTIES_GET', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}`],
    ['FSPIOP_CALLBACK_URL_PARTIES_PUT', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}`],
    ['FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/error`],
    ['FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}`],
    ['FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}`],
    ['FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}/error`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_PUT', `${base}/participants/{{partyIdType}}/{{partyIdentifier}}`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR', `${base}/participants/{{partyIdType}}/{{partyIdentifier}}/error`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT', `${base}/participants/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT_ERROR', `${base}/participants/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}/error`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT', `${base}/participants/{{requestId}}`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR', `${base}/participants/{{requestId}}/error`],
    ['FSPIOP_CALLBACK_URL_QUOTES', base],
    // Request to pay: transaction requests and authorizations go to base URLs, as quotes do.
    ['FSPIOP_CALLBACK_URL_TRX_REQ_SERVICE', base],
    ['FSPIOP_CALLBACK_URL_AUTHORIZATIONS', base],
    ['FSPIOP_CALLBACK_URL_BULK_QUOTES', base],
    ...conversionEndpoints(base),
    ...bulkTransferEndpoints(base),
  ];
}

/** The endpoints of bulk transfers, with central-ledger's URL templates. */
export function bulkTransferEndpoints(base) {
  return [
    ['FSPIOP_CALLBACK_URL_BULK_TRANSFER_POST', `${base}/bulkTransfers`],
    ['FSPIOP_CALLBACK_URL_BULK_TRANSFER_PUT', `${base}/bulkTransfers/{{bulkTransferId}}`],
    ['FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR', `${base}/bulkTransfers/{{bulkTransferId}}/error`],
  ];
}

/**
 * The endpoints API v2.0's currency conversion adds: fx quotes and FXP discovery answers go to
 * base URLs (the resource path is appended, as for quotes), fx transfers to Mojaloop's templates.
 */
export function conversionEndpoints(base) {
  return [
    ['FSPIOP_CALLBACK_URL_FX_QUOTES', base],
    ['FSPIOP_CALLBACK_URL_FX_TRANSFER_POST', `${base}/fxTransfers`],
    ['FSPIOP_CALLBACK_URL_FX_TRANSFER_PUT', `${base}/fxTransfers/{{commitRequestId}}`],
    ['FSPIOP_CALLBACK_URL_FX_TRANSFER_ERROR', `${base}/fxTransfers/{{commitRequestId}}/error`],
    ['FSPIOP_CALLBACK_URL_SERVICES', base],
  ];
}

function expect(result, statuses, step) {
  if (!statuses.includes(result.status)) throw new Error(`${step}: HTTP ${result.status} ${result.text}`);
  return result;
}

/** True when the answer says the thing already exists (central-ledger's 3000/3003). */
function alreadyThere(result) {
  return result.status === 400 && ['3000', '3003'].includes(result.body?.errorInformation?.errorCode)
    && /already/i.test(result.body.errorInformation.errorDescription);
}

/** A stable UUID for a DFSP's initial deposit, so re-running onboarding deposits once. */
export function depositTransferId(name, currency) {
  const hex = createHash('sha256').update(`initial-deposit:${name}:${currency}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export async function ensureHub(request, currency) {
  for (const type of ['HUB_MULTILATERAL_SETTLEMENT', 'HUB_RECONCILIATION']) {
    const result = await request('POST', '/participants/Hub/accounts', { type, currency });
    if (!alreadyThere(result)) expect(result, [201], `hub account ${type}`);
  }
  const models = expect(await request('GET', '/settlementModels'), [200], 'settlement models').body;
  if (models.some((model) => model.currency === currency || model.currency === null)) return;
  expect(await request('POST', '/settlementModels', {
    name: `DEFERREDNET${currency}`, settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL',
    settlementDelay: 'DEFERRED', currency, requireLiquidityCheck: true, ledgerAccountType: 'POSITION',
    settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  }), [201], 'settlement model');
}

/**
 * Registers the public key (PEM) a DFSP signs its FSPIOP messages with, as its whole set:
 * the switch refuses a DFSP's signed messages until this step (JWS_VERIFICATION=required).
 */
export async function registerJwsKey(request, name, publicKey) {
  expect(await request('PUT', `/participants/${name}/jwsKeys`, { keys: [publicKey] }), [200], `JWS key of ${name}`);
}

/**
 * Onboards one DFSP; returns its POSITION and SETTLEMENT account ids. `apiType` (FSPIOP or
 * ISO20022, optional) is the API the DFSP receives its messages in: given, it is registered
 * on creation and set again on a re-run, so provisioning can change it.
 */
export async function ensureDfsp(request, {
  name, currency = 'USD', netDebitCap = '10000', fundsIn = '5000', endpointBase, jwsPublicKey, apiType,
}) {
  const created = await request('POST', '/participants', { name, currency, ...(apiType ? { apiType } : {}) });
  if (!alreadyThere(created)) expect(created, [201], `participant ${name}`);
  if (apiType && created.status !== 201) expect(await request('PUT', `/participants/${name}`, { apiType }), [200], `API type of ${name}`);
  const limits = await request('POST', `/participants/${name}/initialPositionAndLimits`, {
    currency, limit: { type: 'NET_DEBIT_CAP', value: netDebitCap }, initialPosition: '0',
  });
  if (!alreadyThere(limits)) expect(limits, [201], `initial position and limits of ${name}`);
  for (const [type, value] of endpointBase ? standardEndpoints(endpointBase) : []) {
    expect(await request('POST', `/participants/${name}/endpoints`, { type, value }), [201], `endpoint ${type} of ${name}`);
  }
  if (jwsPublicKey) await registerJwsKey(request, name, jwsPublicKey);
  const accounts = expect(await request('GET', `/participants/${name}/accounts?currency=${currency}`), [200], `accounts of ${name}`).body;
  const accountId = (type) => accounts.find((account) => account.ledgerAccountType === type).id;
  if (fundsIn) {
    expect(await request('POST', `/participants/${name}/accounts/${accountId('SETTLEMENT')}`, {
      transferId: depositTransferId(name, currency), externalReference: `${name}-initial-deposit`,
      action: 'recordFundsIn', reason: 'Initial deposit', amount: { amount: fundsIn, currency },
    }), [202], `funds in for ${name}`);
  }
  return { positionAccountId: accountId('POSITION'), settlementAccountId: accountId('SETTLEMENT') };
}

/**
 * Registers a currency pair an FXP converts (source → target), as POST /participants/{name}/
 * currencyPairs does; a pair already registered is left as it is. The FXP must hold accounts
 * in both currencies first.
 */
export async function ensureCurrencyPair(request, name, [sourceCurrency, targetCurrency]) {
  const result = await request('POST', `/participants/${name}/currencyPairs`, { sourceCurrency, targetCurrency });
  if (!alreadyThere(result)) expect(result, [201], `currency pair ${sourceCurrency}/${targetCurrency} of ${name}`);
}
