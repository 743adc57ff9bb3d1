// ISO 20022 and FSPIOP DFSPs on one switch (issue 34), from discovery to a committed transfer,
// against a whole switch: every component as its own process, real Kafka and MariaDB, and test
// DFSPs over HTTP that sign everything they send and verify every call they receive. Two of
// them are registered as ISO 20022 DFSPs through the admin API and speak only ISO 20022 on the
// five resources it carries; they check every message they receive against the ISO 20022
// document. Each DFSP must receive everything in its own type: a message between two DFSPs of
// one type with its sender's bytes and signature, a message across types converted and signed by
// the hub, naming the original sender, signature and digest in the switch's headers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ulid } from 'ulidx';
import { COMPONENTS, startSwitch, withDfsps } from '../support/switch.js';
import { startTestDfsp, wireMessage } from '../support/test-dfsp.js';
import { assertConvertedFrom, assertReceivedInOwnType, callTo, sendAs } from '../support/iso-dfsp-calls.js';
import { jwsKeyPair, HUB_NAME } from '../support/jws-keys.js';
import { ensureDfsp, ensureHub } from '../../scripts/lib/onboarding.js';
import { registerParty } from '../../scripts/lib/demo-dfsp-calls.js';
import { dfspHeaders, fetchSigned } from '../../scripts/lib/fspiop-headers.js';
import { API_TYPE } from '../../platform/iso20022/media-types.js';

const ISO = API_TYPE.iso20022;
const DFSPS = [
  { name: 'isopayer', apiType: ISO, msisdn: '27711000001' },
  { name: 'isopayee', apiType: ISO, msisdn: '27711000002' },
  { name: 'payerfsp', apiType: API_TYPE.fspiop, msisdn: '27711000003' },
  { name: 'payeefsp', apiType: API_TYPE.fspiop, msisdn: '27711000004' },
];

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
    const { request } = sw.admin;
    await ensureHub(request, 'USD');
    for (const spec of DFSPS) {
      const dfsp = await startTestDfsp({ name: spec.name, urls, apiType: spec.apiType });
      started.push(dfsp);
      dfsps.set(spec.name, dfsp);
      await ensureDfsp(request, { name: spec.name, currency: 'USD', endpointBase: dfsp.url, jwsPublicKey: jwsKeyPair(spec.name).publicKey, fundsIn: '5000', netDebitCap: '1000' });
      if (spec.apiType === ISO) {
        const changed = await request('PUT', `/participants/${spec.name}`, { apiType: ISO });
        assert.equal(changed.status, 200, changed.text);
      }
      await registerParty(dfsp, { msisdn: spec.msisdn, customer: `Customer of ${spec.name}`, currency: 'USD' });
    }
  });
});

after(async () => { await scene?.stop(); });

async function position(name) {
  const [account] = (await sw.admin.request('GET', `/participants/${name}/accounts`)).body.filter((row) => row.ledgerAccountType === 'POSITION' && row.currency === 'USD');
  return account.value;
}

/** Discovery, quote and transfer from `payer` to `payee`, each step's calls checked; resolves to what each side received. */
async function pay(payer, payee, amount) {
  const payeeSpec = DFSPS.find((spec) => spec.name === payee.name);
  const payerSpec = DFSPS.find((spec) => spec.name === payer.name);
  const sinceMs = Date.now();
  // Discovery.
  const lookup = await sendAs(payer, { url: `${payer.urls.parties}/parties/MSISDN/${payeeSpec.msisdn}`, method: 'GET', resource: 'parties' });
  assert.equal(lookup.status, 202, lookup.answer);
  const partyAnswer = await callTo(payer, 'PUT', `/parties/MSISDN/${payeeSpec.msisdn}`, sinceMs);
  assertReceivedInOwnType(partyAnswer, payer.apiType);
  assert.equal(partyAnswer.body.party.partyIdInfo.fspId, payee.name);
  // Quote.
  const quoteId = ulid();
  const transactionId = ulid();
  const quote = {
    quoteId, transactionId, amountType: 'SEND', amount: { amount, currency: 'USD' },
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payeeSpec.msisdn, fspId: payee.name } },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payerSpec.msisdn, fspId: payer.name } },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
  };
  const quoted = await sendAs(payer, { url: `${payer.urls.quotes}/quotes`, method: 'POST', resource: 'quotes', destination: payee.name, body: quote });
  assert.equal(quoted.status, 202, quoted.answer);
  const quoteAtPayee = await callTo(payee, 'POST', '/quotes', sinceMs);
  assertReceivedInOwnType(quoteAtPayee, payee.apiType);
  assert.equal(quoteAtPayee.body.quoteId, quoteId);
  const terms = await callTo(payer, 'PUT', `/quotes/${quoteId}`, sinceMs);
  assertReceivedInOwnType(terms, payer.apiType);
  // Transfer.
  const before = { payer: await position(payer.name), payee: await position(payee.name) };
  const prepare = {
    transferId: transactionId, payerFsp: payer.name, payeeFsp: payee.name, amount: terms.body.transferAmount,
    ilpPacket: terms.body.ilpPacket, condition: terms.body.condition, expiration: new Date(Date.now() + 30000).toISOString(),
  };
  const prepared = await sendAs(payer, {
    url: `${sw.apiUrl}/transfers`, method: 'POST', resource: 'transfers', destination: payee.name, body: prepare, context: { isoPostQuoteResponse: terms.isoBody },
  });
  assert.equal(prepared.status, 202, prepared.answer);
  const prepareAtPayee = await callTo(payee, 'POST', '/transfers', sinceMs);
  assertReceivedInOwnType(prepareAtPayee, payee.apiType);
  assert.equal(prepareAtPayee.body.condition, terms.body.condition);
  const result = await callTo(payer, 'PUT', `/transfers/${transactionId}`, sinceMs);
  assertReceivedInOwnType(result, payer.apiType);
  assert.equal(result.body.transferState, 'COMMITTED');
  assert.equal(Number(await position(payer.name)) - Number(before.payer), Number(amount));
  assert.equal(Number(before.payee) - Number(await position(payee.name)), Number(amount));
  return { quoted, quoteAtPayee, terms, prepared, prepareAtPayee, result, partyAnswer };
}

test('an ISO 20022 payer pays an FSPIOP payee: each side receives its own type, converted and signed by the hub', async () => {
  const payer = dfsps.get('isopayer');
  const payee = dfsps.get('payeefsp');
  const seen = await pay(payer, payee, '12.5');
  assertConvertedFrom(seen.quoteAtPayee, payer, seen.quoted);
  assertConvertedFrom(seen.prepareAtPayee, payer, seen.prepared);
  assert.equal(seen.result.isoBody.TxInfAndSts.TxSts, 'COMM');
  assert.equal(seen.terms.isoBody.CdtTrfTxInf.IntrBkSttlmAmt.ActiveCurrencyAndAmount, '12.5');
});

test('an FSPIOP payer pays an ISO 20022 payee', async () => {
  const payer = dfsps.get('payerfsp');
  const payee = dfsps.get('isopayee');
  const seen = await pay(payer, payee, '7');
  assertConvertedFrom(seen.quoteAtPayee, payer, seen.quoted);
  assertConvertedFrom(seen.prepareAtPayee, payer, seen.prepared);
  assert.equal(seen.prepareAtPayee.isoBody.CdtTrfTxInf.PmtId.TxId, seen.prepareAtPayee.body.transferId);
});

test('an ISO 20022 payer pays an ISO 20022 payee: the payee receives the payer\'s own bytes and signature', async () => {
  const payer = dfsps.get('isopayer');
  const payee = dfsps.get('isopayee');
  const seen = await pay(payer, payee, '3.25');
  for (const [sent, received] of [[seen.quoted, seen.quoteAtPayee], [seen.prepared, seen.prepareAtPayee]]) {
    assert.equal(received.rawBody, sent.text);
    assert.equal(received.headers['fspiop-signature'], sent.headers['fspiop-signature']);
    assert.equal(received.headers['fspiop-switch-signer'], undefined);
  }
});

test('what the hub originates reaches an ISO 20022 DFSP as ISO 20022: a refused transfer (4xxx) and a GET answer', async () => {
  const payer = dfsps.get('isopayer');
  const payee = dfsps.get('payeefsp');
  const sinceMs = Date.now();
  const transferId = ulid();
  const { quoteIlp } = await import('../support/test-dfsp.js');
  const expiration = new Date(Date.now() + 30000).toISOString();
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount: '999999', currency: 'USD', payeeAddress: 'g.payeefsp', expiration });
  const prepare = { transferId, payerFsp: payer.name, payeeFsp: payee.name, amount: { amount: '999999', currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
  const context = { isoPostQuoteResponse: { CdtTrfTxInf: { ChrgBr: 'SHAR', Dbtr: { Id: { OrgId: { Othr: { Id: payer.name } } } }, Cdtr: { Id: { OrgId: { Othr: { Id: payee.name } } } } } } };
  const prepared = await sendAs(payer, { url: `${sw.apiUrl}/transfers`, method: 'POST', resource: 'transfers', destination: payee.name, body: prepare, context });
  assert.equal(prepared.status, 202, prepared.answer);
  const refusal = await callTo(payer, 'PUT', `/transfers/${transferId}/error`, sinceMs);
  assertReceivedInOwnType(refusal, ISO);
  assert.equal(refusal.headers['fspiop-source'], HUB_NAME);
  // Over the payer's net debit cap: 4200, or 4001 were its liquidity checked first.
  assert.match(refusal.isoBody.TxInfAndSts.StsRsnInf.Rsn.Prtry, /^4(001|200)$/);
  const asked = await sendAs(payer, { url: `${sw.apiUrl}/transfers/${transferId}`, method: 'GET', resource: 'transfers', destination: payee.name });
  assert.equal(asked.status, 202, asked.answer);
  const state = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${transferId}` && call.at >= sinceMs, 20000);
  assertReceivedInOwnType(state, ISO);
  assert.equal(state.body.transferState, 'ABORTED');
});

/** A pacs.008 from the ISO 20022 payer to the FSPIOP payee, changed by `change`, and the switch's answer. */
async function postChangedPacs008(change) {
  const payer = dfsps.get('isopayer');
  const transferId = ulid();
  const expiration = new Date(Date.now() + 30000).toISOString();
  const { quoteIlp } = await import('../support/test-dfsp.js');
  const ilp = quoteIlp({ secret: 'any', transferId, amount: '1', currency: 'USD', payeeAddress: 'g.payeefsp', expiration });
  const headers = dfspHeaders('transfers', payer.name, 'payeefsp', { version: '2.0' });
  const context = { isoPostQuoteResponse: { CdtTrfTxInf: { ChrgBr: 'SHAR', Dbtr: { Id: { OrgId: { Othr: { Id: payer.name } } } }, Cdtr: { Id: { OrgId: { Othr: { Id: 'payeefsp' } } } } } } };
  const url = `${sw.apiUrl}/transfers`;
  const wire = await wireMessage(payer, url, 'POST', headers, { transferId, payerFsp: payer.name, payeeFsp: 'payeefsp', amount: { amount: '1', currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration }, context);
  const message = JSON.parse(wire.text);
  change(message);
  const response = await fetchSigned(url, { method: 'POST', headers: wire.headers, body: JSON.stringify(message), privateKey: payer.privateKey, tls: payer.tlsFor(url) });
  return { status: response.status, body: await response.json() };
}

test('malformed ISO 20022 messages are refused synchronously, naming the element at fault', async () => {
  const missing = await postChangedPacs008((message) => { delete message.CdtTrfTxInf.IntrBkSttlmAmt; });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.errorInformation.errorCode, '3102');
  assert.match(missing.body.errorInformation.errorDescription, /CdtTrfTxInf.*IntrBkSttlmAmt/);
  const wrongCode = await postChangedPacs008((message) => { message.CdtTrfTxInf.ChrgBr = 'NONE'; });
  assert.equal(wrongCode.status, 400);
  assert.equal(wrongCode.body.errorInformation.errorCode, '3100');
  assert.match(wrongCode.body.errorInformation.errorDescription, /ChrgBr/);
  const decimals = await postChangedPacs008((message) => { message.CdtTrfTxInf.IntrBkSttlmAmt.ActiveCurrencyAndAmount = '1.12345'; });
  assert.equal(decimals.status, 400);
  assert.equal(decimals.body.errorInformation.errorCode, '3100');
  assert.match(decimals.body.errorInformation.errorDescription, /IntrBkSttlmAmt/);
});

test('every call every DFSP received verified with its signer\'s key', () => {
  for (const dfsp of dfsps.values()) assert.deepEqual(dfsp.signatureFailures, [], dfsp.name);
});
