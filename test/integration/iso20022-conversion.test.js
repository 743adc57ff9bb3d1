// Currency conversion across API types (issue 34, "with and without conversion"), against a
// whole switch: every component as its own process, real Kafka and MariaDB, and test DFSPs over
// HTTP that sign everything they send and verify every call they receive. A payer in USD pays a
// customer of a DFSP in EUR through an FXP converting USD → EUR: an ISO 20022 payer through an
// FSPIOP FXP (the demo's, scripts/lib/demo-conversion.js, onboarded as the demo onboards it) to
// an FSPIOP payee and to an ISO 20022 one, and an FSPIOP payer through an ISO 20022 FXP. FXP
// discovery is FSPIOP whatever the payer speaks (ISO 20022 has no services); the fx quote, the
// fx transfer, the quote and the transfer are ISO 20022 at an ISO 20022 DFSP (pacs.091/092,
// pacs.009, pacs.002, pacs.081/082, pacs.008) and FSPIOP 2.0 at an FSPIOP one, converted and
// signed by the hub between them. Every DFSP must receive everything in its own type, valid
// against the ISO 20022 document when it is ISO 20022, the hub's PATCH COMMITTED must reach the
// FXP in its type, every signature must verify, and the positions must move in both currencies
// as a conversion moves them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ulid } from 'ulidx';
import { COMPONENTS, startSwitch, withDfsps } from '../support/switch.js';
import { startTestDfsp } from '../support/test-dfsp.js';
import { HUB_NAME, jwsKeyPair } from '../support/jws-keys.js';
import { assertConvertedFrom, assertReceivedInOwnType, callTo, digestOf, sendAs } from '../support/iso-dfsp-calls.js';
import { ensureDfsp, ensureHub } from '../../scripts/lib/onboarding.js';
import { registerParty } from '../../scripts/lib/demo-dfsp-calls.js';
import {
  CONVERSION_DFSPS, SOURCE_CURRENCY, TARGET_CURRENCY, checkConversion, ensureDfspInCurrencies, onboardConversion,
} from '../../scripts/lib/demo-conversion.js';
import { positionChanges, positionsOf, units } from '../../scripts/lib/demo-positions.js';
import { API_TYPE, apiTypeOfMediaType } from '../../platform/iso20022/media-types.js';

const ISO = API_TYPE.iso20022;
const FSPIOP = API_TYPE.fspiop;
const PAYER = { name: 'isopayer', msisdn: '27712000001', apiType: ISO };
const FSPIOP_PAYER = { name: 'payerfsp', msisdn: '27712000003', apiType: FSPIOP };
const FXP = { ...CONVERSION_DFSPS.find((dfsp) => dfsp.name === 'fxpbank'), apiType: FSPIOP };
// An FXP of ISO 20022 beside the demo's, at a rate of its own so that the two cannot be confused.
const ISO_FXP = { ...FXP, name: 'isofxp', fxRates: { [`${SOURCE_CURRENCY}/${TARGET_CURRENCY}`]: '0.8' }, apiType: ISO };
const FSPIOP_PAYEE = { ...CONVERSION_DFSPS.find((dfsp) => dfsp.name === 'eurobank'), apiType: FSPIOP };
const ISO_PAYEE = { name: 'isoeurobank', currencies: [TARGET_CURRENCY], netDebitCap: '10000', fundsIn: '5000', msisdn: '27712000002', customer: 'Iso Euro', apiType: ISO };
// Resources ISO 20022 does not carry: every DFSP sends and receives them as FSPIOP.
const FSPIOP_ONLY_PATHS = /^\/(participants|services)\//;

let sw;
let scene;
const dfsps = new Map();

before(async () => {
  sw = await startSwitch({
    components: Object.keys(COMPONENTS).filter((name) => name !== 'settlement-api'),
    env: { ORACLE_REGISTRY_TTL_MS: '0', PARTICIPANT_CACHE_TTL_MS: '0', JWS_VERIFICATION: 'required' },
  });
  scene = await withDfsps(sw, async (started) => {
    const urls = { transfers: sw.apiUrl, quotes: sw.urlOf('quoting'), parties: sw.urlOf('account-lookup') };
    for (const spec of [PAYER, FSPIOP_PAYER, FXP, ISO_FXP, FSPIOP_PAYEE, ISO_PAYEE]) {
      const dfsp = await startTestDfsp({ name: spec.name, urls, apiType: spec.apiType ?? FSPIOP, fxRates: spec.fxRates });
      started.push(dfsp);
      dfsps.set(spec.name, dfsp);
    }
    const { request } = sw.admin;
    const endpointBaseOf = (name) => dfsps.get(name).url;
    const jwsPublicKeyOf = (name) => jwsKeyPair(name).publicKey;
    await ensureHub(request, SOURCE_CURRENCY);
    for (const payer of [PAYER, FSPIOP_PAYER]) {
      await ensureDfsp(request, { name: payer.name, currency: SOURCE_CURRENCY, endpointBase: endpointBaseOf(payer.name), jwsPublicKey: jwsPublicKeyOf(payer.name), apiType: payer.apiType });
    }
    await onboardConversion(request, { endpointBaseOf, jwsPublicKeyOf, log: () => {} });
    for (const spec of [ISO_FXP, ISO_PAYEE]) {
      await ensureDfspInCurrencies(request, { ...spec, endpointBase: endpointBaseOf(spec.name), jwsPublicKey: jwsPublicKeyOf(spec.name) });
    }
    for (const payee of [FSPIOP_PAYEE, ISO_PAYEE]) {
      await registerParty(dfsps.get(payee.name), { msisdn: payee.msisdn, customer: payee.customer, currency: TARGET_CURRENCY, supportedCurrencies: payee.currencies });
    }
  });
});

after(async () => { await scene?.stop(); });

/** Discovery of the payee's customer and of the FXPs for USD → EUR; resolves to `fxpSpec`'s DFSP, once the hub names it. */
async function discover(payer, payeeSpec, fxpSpec, sinceMs) {
  const lookup = await sendAs(payer, { url: `${payer.urls.parties}/parties/MSISDN/${payeeSpec.msisdn}`, method: 'GET', resource: 'parties' });
  assert.equal(lookup.status, 202, lookup.answer);
  const party = (await callTo(payer, 'PUT', `/parties/MSISDN/${payeeSpec.msisdn}`, sinceMs)).body.party;
  assert.equal(party.partyIdInfo.fspId, payeeSpec.name);
  assert.ok(party.supportedCurrencies?.includes(TARGET_CURRENCY), `the payee receives in ${TARGET_CURRENCY}: ${JSON.stringify(party)}`);
  const servicesPath = `/services/FXP/${SOURCE_CURRENCY}/${TARGET_CURRENCY}`;
  const asked = await sendAs(payer, { url: `${payer.urls.parties}${servicesPath}`, method: 'GET', resource: 'services' });
  assert.equal(asked.status, 202, asked.answer);
  const services = await callTo(payer, 'PUT', servicesPath, sinceMs);
  assert.match(services.headers['content-type'], /^application\/vnd\.interoperability\.services\+json/, 'FXP discovery stays FSPIOP');
  assert.deepEqual([...services.body.providers].sort(), [FXP.name, ISO_FXP.name].sort());
  return dfsps.get(fxpSpec.name);
}

/** The fx quote from the payer to the FXP (pacs.091 → FSPIOP → pacs.092); resolves to what each side saw. */
async function quoteConversion(payer, fxp, { determiningTransferId, sourceAmount, sinceMs }) {
  const conversionRequestId = ulid();
  const conversionId = ulid();
  const sent = await sendAs(payer, {
    url: `${payer.urls.quotes}/fxQuotes`, method: 'POST', resource: 'fxQuotes', destination: fxp.name,
    body: {
      conversionRequestId,
      conversionTerms: {
        conversionId, determiningTransferId, initiatingFsp: payer.name, counterPartyFsp: fxp.name, amountType: 'SEND',
        sourceAmount: { amount: sourceAmount, currency: SOURCE_CURRENCY }, targetAmount: { currency: TARGET_CURRENCY },
        expiration: new Date(Date.now() + 60000).toISOString(),
      },
    },
  });
  assert.equal(sent.status, 202, sent.answer);
  const atFxp = await callTo(fxp, 'POST', '/fxQuotes', sinceMs);
  assert.match(atFxp.headers['content-type'], /fxQuotes\+json;version=2\.0/);
  assert.equal(atFxp.body.conversionTerms.conversionId, conversionId);
  assert.deepEqual(atFxp.body.conversionTerms.sourceAmount, { amount: sourceAmount, currency: SOURCE_CURRENCY });
  // The target amount is the FXP's to state: the 0 ISO 20022 requires in its place does not
  // reach an FSPIOP FXP (an ISO 20022 FXP reads the pacs.091 itself, placeholder and all).
  if (fxp.apiType === FSPIOP) assert.deepEqual(atFxp.body.conversionTerms.targetAmount, { currency: TARGET_CURRENCY });
  const terms = await callTo(payer, 'PUT', `/fxQuotes/${conversionRequestId}`, sinceMs);
  assert.equal(terms.body.errorInformation, undefined, JSON.stringify(terms.body));
  return { sent, atFxp, terms, conversionId };
}

/** The quote in the target currency from the payer to the payee (pacs.081/082 at an ISO 20022 side). */
async function quoteTransfer(payer, payeeSpec, { payerMsisdn, transactionId, amount, sinceMs }) {
  const quoteId = ulid();
  const quoted = await sendAs(payer, {
    url: `${payer.urls.quotes}/quotes`, method: 'POST', resource: 'quotes', destination: payeeSpec.name,
    body: {
      quoteId, transactionId, amountType: 'SEND', amount: { amount, currency: TARGET_CURRENCY },
      payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payeeSpec.msisdn, fspId: payeeSpec.name } },
      payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payerMsisdn, fspId: payer.name } },
      transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
    },
  });
  assert.equal(quoted.status, 202, quoted.answer);
  const terms = await callTo(payer, 'PUT', `/quotes/${quoteId}`, sinceMs);
  assert.equal(terms.body.errorInformation, undefined, JSON.stringify(terms.body));
  assert.deepEqual(terms.body.transferAmount, { amount, currency: TARGET_CURRENCY });
  return { quoted, terms };
}

/** The fx transfer under the quoted terms (pacs.009 → FSPIOP), and the FXP's RESERVED back (pacs.002). */
async function convert(payer, fxp, { conversionId, fxTerms, sinceMs }) {
  const { conversionTerms } = fxTerms.body;
  const sent = await sendAs(payer, {
    url: `${payer.urls.transfers}/fxTransfers`, method: 'POST', resource: 'fxTransfers', destination: fxp.name,
    body: {
      commitRequestId: conversionId, determiningTransferId: conversionTerms.determiningTransferId, initiatingFsp: payer.name, counterPartyFsp: fxp.name,
      sourceAmount: conversionTerms.sourceAmount, targetAmount: conversionTerms.targetAmount, condition: fxTerms.body.condition,
      expiration: new Date(Date.now() + 30000).toISOString(),
    },
  });
  assert.equal(sent.status, 202, sent.answer);
  const atFxp = await callTo(fxp, 'POST', '/fxTransfers', sinceMs);
  assert.equal(atFxp.body.condition, fxTerms.body.condition);
  const reserved = await callTo(payer, 'PUT', `/fxTransfers/${conversionId}`, sinceMs);
  assert.equal(reserved.body.conversionState, 'RESERVED', JSON.stringify(reserved.body));
  return { sent, atFxp, reserved };
}

/** The dependent transfer in the target currency, answered by the payee as `payeeBehaviour` (test-dfsp.js); resolves to what each side saw. */
async function transfer(payer, payeeSpec, { transferId, quote, payeeBehaviour, sinceMs }) {
  const payee = dfsps.get(payeeSpec.name);
  payee.setBehaviour(transferId, payeeBehaviour);
  const sent = await sendAs(payer, {
    url: `${payer.urls.transfers}/transfers`, method: 'POST', resource: 'transfers', destination: payee.name,
    body: {
      transferId, payerFsp: payer.name, payeeFsp: payee.name, amount: quote.terms.body.transferAmount,
      ilpPacket: quote.terms.body.ilpPacket, condition: quote.terms.body.condition, expiration: new Date(Date.now() + 30000).toISOString(),
    },
    context: { isoPostQuoteResponse: quote.terms.isoBody },
  });
  assert.equal(sent.status, 202, sent.answer);
  const atPayee = await callTo(payee, 'POST', '/transfers', sinceMs);
  assert.equal(atPayee.body.condition, quote.terms.body.condition);
  const result = await callTo(payer, 'PUT', `/transfers/${transferId}${payeeBehaviour === 'reject' ? '/error' : ''}`, sinceMs);
  return { sent, atPayee, result };
}

/**
 * `payerSpec`'s customer pays `sourceAmount` USD to the customer of `payeeSpec` in EUR through
 * `fxpSpec`'s FXP, each step checked, the payee answering the transfer as `payeeBehaviour`;
 * resolves to what each side received and the positions' changes (`summary`: checkConversion's
 * line, for a fulfilled payment).
 */
async function payWithConversion({ payerSpec, fxpSpec, payeeSpec }, sourceAmount, { payeeBehaviour = 'fulfil' } = {}) {
  const payer = dfsps.get(payerSpec.name);
  const sinceMs = Date.now();
  const fxp = await discover(payer, payeeSpec, fxpSpec, sinceMs);
  const transferId = ulid();
  const fxQuote = await quoteConversion(payer, fxp, { determiningTransferId: transferId, sourceAmount, sinceMs });
  const names = [payer.name, fxp.name, payeeSpec.name];
  const before = await positionsOf(sw.admin.request, names);
  const targetAmount = fxQuote.terms.body.conversionTerms.targetAmount.amount;
  const quote = await quoteTransfer(payer, payeeSpec, { payerMsisdn: payerSpec.msisdn, transactionId: transferId, amount: targetAmount, sinceMs });
  const fxTransfer = await convert(payer, fxp, { conversionId: fxQuote.conversionId, fxTerms: fxQuote.terms, sinceMs });
  const paid = await transfer(payer, payeeSpec, { transferId, quote, payeeBehaviour, sinceMs });
  const patch = await callTo(fxp, 'PATCH', `/fxTransfers/${fxQuote.conversionId}`, sinceMs);
  const positions = positionChanges(before, await positionsOf(sw.admin.request, names));
  const summary = payeeBehaviour !== 'fulfil' ? undefined : checkConversion({
    transferState: paid.result.body.transferState, conversionState: patch.body.conversionState, positions,
    fxp: fxp.name, payeeFsp: payeeSpec.name, sourceAmount, targetAmount, payerName: payer.name,
  });
  return { payer, fxp, sinceMs, fxQuote, quote, fxTransfer, paid, patch, positions, summary, targetAmount };
}

/** Every call `dfsp` received since `sinceMs` came in its own type (FSPIOP for what ISO 20022 does not carry), whole and verified. */
function assertEverythingInOwnType(dfsp, sinceMs) {
  const calls = dfsp.received.filter((call) => call.at >= sinceMs);
  assert.ok(calls.length > 0, `${dfsp.name} received nothing`);
  for (const call of calls) assertReceivedInOwnType(call, FSPIOP_ONLY_PATHS.test(call.path) ? FSPIOP : dfsp.apiType);
}

/** An answer `sender` sent in its own type that reached the other type, converted and signed by the hub. */
function assertAnswerConverted(call, sender) {
  const sent = sender.sent.find((each) => new URL(each.url).pathname === call.path);
  assert.ok(sent, `${sender.name} sent ${call.path}`);
  assert.equal(call.headers['fspiop-switch-signer'], HUB_NAME);
  assert.equal(call.headers['fspiop-switch-original-source'], sender.name);
  assert.equal(call.headers['fspiop-switch-original-digest'], digestOf(sent.text));
  assert.equal(apiTypeOfMediaType(call.headers['fspiop-switch-original-content-type']), sender.apiType);
}

/** The ISO 20022 body of a call, which a DFSP of ISO 20022 received and a DFSP of FSPIOP did not. */
function isoBodyAt(dfsp, call) {
  assert.equal(call.isoBody !== undefined, dfsp.apiType === ISO, `${dfsp.name} ${call.method} ${call.path}`);
  return call.isoBody;
}

/**
 * What the payer and the FXP, of different types, saw of the conversion: each request and
 * answer converted and signed by the hub, the ISO 20022 side's messages the ones the document
 * names (pacs.091/092, pacs.009, pacs.002), and the hub's PATCH COMMITTED to the FXP in its type.
 */
function assertConversionAcrossTypes({ payer, fxp, fxQuote, fxTransfer, paid, patch, targetAmount, sinceMs }) {
  assert.notEqual(payer.apiType, fxp.apiType);
  assertConvertedFrom(fxQuote.atFxp, payer, fxQuote.sent);
  assertConvertedFrom(fxTransfer.atFxp, payer, fxTransfer.sent);
  assertAnswerConverted(fxQuote.terms, fxp);
  assertAnswerConverted(fxTransfer.reserved, fxp);
  const [iso, isoCalls] = payer.apiType === ISO ? [payer, [fxQuote.terms, fxTransfer.reserved, paid.result]] : [fxp, [fxQuote.atFxp, fxTransfer.atFxp, patch]];
  const [fxQuoteMessage, fxTransferMessage, lastStatus] = isoCalls.map((call) => isoBodyAt(iso, call));
  assert.equal(fxQuoteMessage.CdtTrfTxInf.UndrlygCstmrCdtTrf.InstdAmt.Ccy, SOURCE_CURRENCY);
  assert.equal(fxQuoteMessage.CdtTrfTxInf.IntrBkSttlmAmt.Ccy, TARGET_CURRENCY);
  if (iso === payer) {
    assert.equal(fxQuoteMessage.CdtTrfTxInf.IntrBkSttlmAmt.ActiveCurrencyAndAmount, targetAmount);
    assert.equal(fxQuoteMessage.CdtTrfTxInf.VrfctnOfTerms.Sh256Sgntr, fxQuote.terms.body.condition);
    assert.equal(fxTransferMessage.TxInfAndSts.TxSts, 'RESV');
  } else {
    assert.equal(fxTransferMessage.CdtTrfTxInf.VrfctnOfTerms.Sh256Sgntr, fxQuote.terms.body.condition);
    assert.equal(fxTransferMessage.CdtTrfTxInf.IntrBkSttlmAmt.ActiveCurrencyAndAmount, targetAmount);
  }
  assert.equal(lastStatus.TxInfAndSts.TxSts, 'COMM');
  assert.equal(paid.result.body.transferState, 'COMMITTED');
  assert.equal(patch.body.conversionState, 'COMMITTED');
  assert.match(patch.headers['content-type'], /fxTransfers\+json;version=2\.0$/);
  for (const dfsp of [payer, fxp]) assertEverythingInOwnType(dfsp, sinceMs);
}

test('an ISO 20022 payer in USD pays an FSPIOP payee in EUR through an FSPIOP FXP', async () => {
  const seen = await payWithConversion({ payerSpec: PAYER, fxpSpec: FXP, payeeSpec: FSPIOP_PAYEE }, '50');
  assert.equal(seen.targetAmount, '45', '50 USD at the FXP\'s rate of 0.9');
  assertConversionAcrossTypes(seen);
  assertAnswerConverted(seen.quote.terms, dfsps.get(FSPIOP_PAYEE.name));
  assertConvertedFrom(seen.paid.atPayee, seen.payer, seen.paid.sent);
  assertEverythingInOwnType(dfsps.get(FSPIOP_PAYEE.name), seen.sinceMs);
  assert.match(seen.summary, /^50 USD from isopayer became 45 EUR for eurobank through fxpbank, both COMMITTED; positions moved isopayer USD \+50, fxpbank USD -50, fxpbank EUR \+45, eurobank EUR -45$/);
});

test('an ISO 20022 payer in USD pays an ISO 20022 payee in EUR through an FSPIOP FXP: the payee receives the payer\'s own bytes', async () => {
  const seen = await payWithConversion({ payerSpec: PAYER, fxpSpec: FXP, payeeSpec: ISO_PAYEE }, '20');
  assert.equal(seen.targetAmount, '18');
  assertConversionAcrossTypes(seen);
  assert.equal(seen.paid.atPayee.rawBody, seen.paid.sent.text);
  assert.equal(seen.paid.atPayee.headers['fspiop-signature'], seen.paid.sent.headers['fspiop-signature']);
  assert.equal(seen.paid.atPayee.headers['fspiop-switch-signer'], undefined);
  assertEverythingInOwnType(dfsps.get(ISO_PAYEE.name), seen.sinceMs);
  assert.match(seen.summary, /positions moved isopayer USD \+20, fxpbank USD -20, fxpbank EUR \+18, isoeurobank EUR -18$/);
});

test('an FSPIOP payer in USD pays an FSPIOP payee in EUR through an ISO 20022 FXP', async () => {
  const seen = await payWithConversion({ payerSpec: FSPIOP_PAYER, fxpSpec: ISO_FXP, payeeSpec: FSPIOP_PAYEE }, '10');
  assert.equal(seen.targetAmount, '8', '10 USD at the ISO 20022 FXP\'s rate of 0.8');
  assertConversionAcrossTypes(seen);
  // The transfer itself stays between FSPIOP DFSPs: the payer's own bytes reach the payee.
  assert.equal(seen.paid.atPayee.rawBody, seen.paid.sent.text);
  assertEverythingInOwnType(dfsps.get(FSPIOP_PAYEE.name), seen.sinceMs);
  assert.match(seen.summary, /positions moved payerfsp USD \+10, isofxp USD -10, isofxp EUR \+8, eurobank EUR -8$/);
});

test('a dependent transfer its payee refuses aborts the conversion: the FXP is PATCHed ABORTED in its own type, and no position moves', async () => {
  const scenarios = [{ payerSpec: PAYER, fxpSpec: FXP, payeeSpec: FSPIOP_PAYEE }, { payerSpec: FSPIOP_PAYER, fxpSpec: ISO_FXP, payeeSpec: ISO_PAYEE }];
  for (const scenario of scenarios) {
    const seen = await payWithConversion(scenario, '5', { payeeBehaviour: 'reject' });
    assert.equal(seen.paid.result.body.errorInformation.errorCode, '5104');
    assert.equal(seen.patch.body.conversionState, 'ABORTED');
    if (seen.payer.apiType === ISO) assert.equal(seen.paid.result.isoBody.TxInfAndSts.StsRsnInf.Rsn.Prtry, '5104');
    if (seen.fxp.apiType === ISO) assert.equal(seen.patch.isoBody.TxInfAndSts.TxSts, 'ABOR');
    assert.deepEqual(seen.positions.filter((row) => units(row.change) !== 0n), [], 'the reservations are released');
    for (const name of [scenario.payerSpec.name, scenario.fxpSpec.name, scenario.payeeSpec.name]) assertEverythingInOwnType(dfsps.get(name), seen.sinceMs);
  }
});

/**
 * An fx quote for a RECEIVE amount, which the test FXPs do not quote: the FXP's 5100 must reach
 * the payer of the other type in its own type, converted and signed by the hub.
 */
async function refusedConversion(payerSpec, fxpSpec) {
  const payer = dfsps.get(payerSpec.name);
  const fxp = dfsps.get(fxpSpec.name);
  const sinceMs = Date.now();
  const conversionRequestId = ulid();
  const sent = await sendAs(payer, {
    url: `${payer.urls.quotes}/fxQuotes`, method: 'POST', resource: 'fxQuotes', destination: fxp.name,
    body: {
      conversionRequestId,
      conversionTerms: {
        conversionId: ulid(), determiningTransferId: ulid(), initiatingFsp: payer.name, counterPartyFsp: fxp.name, amountType: 'RECEIVE',
        sourceAmount: { currency: SOURCE_CURRENCY }, targetAmount: { amount: '9', currency: TARGET_CURRENCY }, expiration: new Date(Date.now() + 60000).toISOString(),
      },
    },
  });
  assert.equal(sent.status, 202, sent.answer);
  const atFxp = await callTo(fxp, 'POST', '/fxQuotes', sinceMs);
  assertConvertedFrom(atFxp, payer, sent);
  const refusal = await callTo(payer, 'PUT', `/fxQuotes/${conversionRequestId}/error`, sinceMs);
  assertAnswerConverted(refusal, fxp);
  assert.equal(refusal.body.errorInformation.errorCode, '5100');
  for (const dfsp of [payer, fxp]) assertEverythingInOwnType(dfsp, sinceMs);
  return { atFxp, refusal };
}

test('an FXP\'s refusal reaches the payer of the other type in its own type: a pacs.002 at an ISO 20022 payer, FSPIOP at an FSPIOP one', async () => {
  const atIsoPayer = await refusedConversion(PAYER, FXP);
  assert.equal(atIsoPayer.refusal.isoBody.TxInfAndSts.StsRsnInf.Rsn.Prtry, '5100');
  // The source amount is the FXP's to state for a RECEIVE: the 0 ISO 20022 requires in its place does not reach it.
  assert.deepEqual(atIsoPayer.atFxp.body.conversionTerms.sourceAmount, { currency: SOURCE_CURRENCY });
  assert.deepEqual(atIsoPayer.atFxp.body.conversionTerms.targetAmount, { amount: '9', currency: TARGET_CURRENCY });
  const atFspiopPayer = await refusedConversion(FSPIOP_PAYER, ISO_FXP);
  assert.equal(atFspiopPayer.atFxp.isoBody.CdtTrfTxInf.InstrForCdtrAgt.InstrInf, 'RECEIVE');
  assert.match(atFspiopPayer.refusal.headers['content-type'], /^application\/vnd\.interoperability\.fxQuotes\+json;version=2\.0$/);
});

test('every call every DFSP received verified with its signer\'s key', () => {
  for (const dfsp of dfsps.values()) assert.deepEqual(dfsp.signatureFailures, [], dfsp.name);
});
