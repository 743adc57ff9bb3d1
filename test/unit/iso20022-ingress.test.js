// ISO 20022 requests at an FSPIOP edge route (platform/fspiop/edge.js's fspiopRoute with
// platform/iso20022/ingress.js): real ISO 20022 messages (a pacs.008 carrying a real ILP v4
// prepare, pacs.081, pacs.082, pacs.002 and acmt.024) sent to a hapi server in-process are
// handed to the route's handler in their FSPIOP 2.0 form, with the original text in the
// headers; malformed ones are refused with FSPIOP errors naming the element; routes of
// FSPIOP-only resources refuse an ISO 20022 media type.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import Hapi from '@hapi/hapi';
import ilpPacket from 'ilp-packet';
import { fspiopRoute } from '../../platform/fspiop/edge.js';
import { isoContentType } from '../../platform/iso20022/media-types.js';
import { ORIGINAL_BODY_HEADER } from '../../platform/iso20022/original.js';
import { fspiopAmountOf, normaliseAmounts, transformOperationOf, withoutUnstatedFxAmount } from '../../platform/iso20022/ingress.js';
import { loadTransformFacades } from '../../platform/iso20022/transformer.js';

// ULIDs, as the ISO 20022 document requires of TxId (FSPIOP 2.0 takes them as CorrelationIds).
const TRANSFER_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3C';
const QUOTE_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3D';
const TRANSACTION_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3E';
const MESSAGE_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3B';
const CONVERSION_REQUEST_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3F';
const CONVERSION_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3G';

const FULFILMENT = randomBytes(32);
const CONDITION = createHash('sha256').update(FULFILMENT).digest();
const nowIso = () => new Date().toISOString();
const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

/** A real ILP v4 prepare, base64url, as Mojaloop's ISO 20022 mode carries it in VrfctnOfTerms. */
function ilpPrepare() {
  return ilpPacket.serializeIlpPrepare({
    amount: '1050', destination: 'g.payeefsp.msisdn.27713803912', expiresAt: new Date(Date.now() + 60_000),
    executionCondition: CONDITION, data: Buffer.from('{"transactionId":"01JHKZ3V8E6Q2W4R5T7Y9X1A3E"}'),
  }).toString('base64url');
}

const agent = (fsp) => ({ FinInstnId: { Othr: { Id: fsp } } });
const person = (msisdn) => ({ Id: { PrvtId: { Othr: { SchmeNm: { Prtry: 'MSISDN' }, Id: msisdn } } } });
const groupHeader = (extra = {}) => ({ MsgId: MESSAGE_ID, CreDtTm: nowIso(), ...extra });
const creditHeader = () => groupHeader({ NbOfTxs: '1', SttlmInf: { SttlmMtd: 'CLRG' }, PmtInstrXpryDtTm: inAMinute() });

const MESSAGES = {
  pacs008: (packet = ilpPrepare()) => ({
    GrpHdr: creditHeader(),
    CdtTrfTxInf: {
      PmtId: { TxId: TRANSFER_ID }, ChrgBr: 'SHAR',
      Cdtr: person('27713803912'), Dbtr: person('44123456789'), CdtrAgt: agent('payeefsp'), DbtrAgt: agent('payerfsp'),
      IntrBkSttlmAmt: { Ccy: 'USD', ActiveCurrencyAndAmount: '10.50' },
      VrfctnOfTerms: { IlpV4PrepPacket: packet },
    },
  }),
  pacs081: () => ({
    GrpHdr: creditHeader(),
    CdtTrfTxInf: {
      PmtId: { TxId: QUOTE_ID, EndToEndId: TRANSACTION_ID },
      Cdtr: person('27713803912'), CdtrAgt: agent('payeefsp'), Dbtr: person('44123456789'), DbtrAgt: agent('payerfsp'),
      IntrBkSttlmAmt: { Ccy: 'USD', ActiveCurrencyAndAmount: '10.500' },
      Purp: { Prtry: 'TRANSFER' }, ChrgBr: 'CRED',
    },
  }),
  pacs082: () => ({
    GrpHdr: creditHeader(),
    CdtTrfTxInf: {
      PmtId: { TxId: QUOTE_ID },
      Dbtr: person('44123456789'), DbtrAgt: agent('payerfsp'), Cdtr: person('27713803912'), CdtrAgt: agent('payeefsp'),
      ChrgBr: 'CRED',
      IntrBkSttlmAmt: { Ccy: 'USD', ActiveCurrencyAndAmount: '10.50' },
      InstdAmt: { Ccy: 'USD', ActiveOrHistoricCurrencyAndAmount: '10.00' },
      ChrgsInf: { Amt: { Ccy: 'USD', ActiveOrHistoricCurrencyAndAmount: '0.50' }, Agt: agent('payeefsp') },
      VrfctnOfTerms: { IlpV4PrepPacket: ilpPrepare() },
    },
  }),
  // An fx quote as Mojaloop's mapping library writes it: its expiry in the group header.
  pacs091: () => ({
    GrpHdr: creditHeader(),
    CdtTrfTxInf: {
      PmtId: { TxId: CONVERSION_REQUEST_ID, InstrId: CONVERSION_ID, EndToEndId: TRANSFER_ID },
      Dbtr: agent('payerfsp'), Cdtr: agent('fxpbank'),
      UndrlygCstmrCdtTrf: {
        Dbtr: { Id: { OrgId: { Othr: { Id: 'payerfsp' } } } }, DbtrAgt: agent('payerfsp'),
        Cdtr: { Id: { OrgId: { Othr: { Id: 'fxpbank' } } } }, CdtrAgt: agent('fxpbank'),
        InstdAmt: { Ccy: 'USD', ActiveOrHistoricCurrencyAndAmount: '50.00' },
      },
      IntrBkSttlmAmt: { Ccy: 'EUR', ActiveCurrencyAndAmount: '0' },
      InstrForCdtrAgt: { InstrInf: 'SEND' },
    },
  }),
  pacs092: () => {
    const message = MESSAGES.pacs091();
    message.CdtTrfTxInf.IntrBkSttlmAmt.ActiveCurrencyAndAmount = '45.00';
    message.CdtTrfTxInf.VrfctnOfTerms = { Sh256Sgntr: CONDITION.toString('base64url') };
    return message;
  },
  pacs002: () => ({
    GrpHdr: groupHeader(),
    TxInfAndSts: { ExctnConf: FULFILMENT.toString('base64url'), PrcgDt: { DtTm: nowIso() }, TxSts: 'COMM' },
  }),
  pacs002Error: () => ({
    GrpHdr: groupHeader(),
    TxInfAndSts: { StsRsnInf: { Rsn: { Prtry: '5105' }, AddtlInf: 'Payee transaction limit reached' } },
  }),
  acmt024: () => ({
    Assgnmt: { MsgId: MESSAGE_ID, CreDtTm: nowIso(), Assgnr: { Agt: agent('payeefsp') }, Assgne: { Agt: agent('payerfsp') } },
    Rpt: {
      Vrfctn: true, OrgnlId: 'MSISDN/27713803912',
      // Mojaloop's ISO 20022 mode writes a name as "first;middle;last;display".
      UpdtdPtyAndAcctId: { Pty: { ...person('27713803912'), Nm: 'Henrik;;Karlsson;Henrik Karlsson' }, Agt: agent('payeefsp') },
    },
  }),
  acmt024Error: () => ({
    Assgnmt: { MsgId: MESSAGE_ID, CreDtTm: nowIso(), Assgnr: { Agt: agent('payeefsp') }, Assgne: { Agt: agent('payerfsp') } },
    Rpt: { Vrfctn: false, OrgnlId: 'MSISDN/27713803912', Rsn: { Cd: '3204' } },
  }),
};

const ROUTES = [
  ['transfers', 'POST', '/transfers', { }],
  ['transfers', 'PUT', '/transfers/{ID}', { ID: 'CorrelationId' }],
  ['transfers', 'PUT', '/transfers/{ID}/error', { ID: 'CorrelationId' }],
  ['transfers', 'GET', '/transfers/{ID}', { ID: 'CorrelationId' }],
  ['quotes', 'POST', '/quotes', {}],
  ['quotes', 'PUT', '/quotes/{ID}', { ID: 'CorrelationId' }],
  ['parties', 'GET', '/parties/{Type}/{ID}', { Type: 'PartyIdType', ID: 'PartyIdentifier' }],
  ['parties', 'PUT', '/parties/{Type}/{ID}', { Type: 'PartyIdType', ID: 'PartyIdentifier' }],
  ['parties', 'PUT', '/parties/{Type}/{ID}/error', { Type: 'PartyIdType', ID: 'PartyIdentifier' }],
  ['fxQuotes', 'POST', '/fxQuotes', {}],
  ['fxQuotes', 'PUT', '/fxQuotes/{ID}', { ID: 'CorrelationId' }],
  ['bulkTransfers', 'POST', '/bulkTransfers', {}],
  ['participants', 'GET', '/participants/{Type}/{ID}', {}],
];

/** A hapi server with edge routes whose handler records what it was handed. */
async function edgeServer() {
  const handed = [];
  const server = Hapi.server();
  server.route(ROUTES.map(([resource, method, path, pathSchemas]) => fspiopRoute({
    resource, method, path, pathSchemas, limits: { minorUnitCurrencies: new Set(['USD']) },
    handle: (accepted, h) => { handed.push(accepted); return h.response().code(202); },
  })));
  await server.initialize();
  return { server, handed };
}

const serverReady = edgeServer();

function isoHeaders(resource, overrides = {}) {
  return {
    'content-type': isoContentType(resource),
    accept: isoContentType(resource),
    date: new Date().toUTCString(),
    'fspiop-source': 'payerfsp',
    'fspiop-destination': 'payeefsp',
    ...overrides,
  };
}

/** Sends a request; resolves to `{ response, accepted }`, accepted what the handler got (or undefined). */
async function send(method, url, { resource, body, headers = {} }) {
  const { server, handed } = await serverReady;
  const before = handed.length;
  const payload = body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body));
  const response = await server.inject({ method, url, headers: isoHeaders(resource, headers), payload });
  return { response, accepted: handed.length > before ? handed.at(-1) : undefined, payload };
}

function assertAccepted({ response, accepted, payload }) {
  assert.equal(response.statusCode, 202, response.payload);
  assert.ok(accepted);
  assert.equal(Object.hasOwn(accepted, 'rawBody'), false, 'an ISO 20022 request hands on no rawBody');
  if (payload !== undefined) assert.equal(accepted.headers[ORIGINAL_BODY_HEADER], payload);
  return accepted;
}

function assertRefused({ response, accepted }, code, description) {
  assert.equal(accepted, undefined, 'a refused request reaches no handler');
  const { errorInformation } = JSON.parse(response.payload);
  assert.equal(errorInformation.errorCode, String(code), response.payload);
  assert.match(errorInformation.errorDescription, description);
  assert.equal(response.statusCode, { 2003: 503, 3001: 406 }[code] ?? 400);
  return errorInformation;
}

test('amounts are written as FSPIOP writes them, trailing zeros of a fraction dropped', () => {
  assert.deepEqual(['10.50', '10.00', '0.0', '10', '0.0500', '100'].map(fspiopAmountOf), ['10.5', '10', '0', '10', '0.05', '100']);
  const body = { amount: { currency: 'USD', amount: '1.10' }, charges: [{ sourceAmount: { currency: 'USD', amount: '2.20' } }] };
  normaliseAmounts(body, [['amount'], ['charges', '[]', 'sourceAmount'], ['absent']]);
  assert.deepEqual(body, { amount: { currency: 'USD', amount: '1.1' }, charges: [{ sourceAmount: { currency: 'USD', amount: '2.2' } }] });
});

test('each mapped operation has the mapping library\'s operation of its method', () => {
  assert.equal(transformOperationOf('POST', '/transfers'), 'post');
  assert.equal(transformOperationOf('PUT', '/transfers/{ID}'), 'put');
  assert.equal(transformOperationOf('PUT', '/quotes/{ID}/error'), 'putError');
  assert.equal(transformOperationOf('PATCH', '/fxTransfers/{ID}'), 'patch');
  assert.equal(transformOperationOf('GET', '/transfers/{ID}'), undefined);
  assert.equal(transformOperationOf('POST', '/bulkTransfers'), undefined);
});

test('a pacs.008 with an ILP v4 prepare becomes the FSPIOP POST /transfers, its condition read from the packet', async () => {
  const packet = ilpPrepare();
  const sent = await send('POST', '/transfers', { resource: 'transfers', body: MESSAGES.pacs008(packet) });
  const accepted = assertAccepted(sent);
  const iso = JSON.parse(sent.payload);
  assert.deepEqual(accepted.body, {
    transferId: TRANSFER_ID, payerFsp: 'payerfsp', payeeFsp: 'payeefsp',
    amount: { currency: 'USD', amount: '10.5' }, ilpPacket: packet,
    condition: CONDITION.toString('base64url'), expiration: iso.GrpHdr.PmtInstrXpryDtTm,
  });
  assert.equal(accepted.headers['content-type'], isoContentType('transfers'));
  assert.equal(accepted.headers['fspiop-source'], 'payerfsp');
  assert.equal(typeof accepted.sender, 'object');
  assert.equal(typeof accepted.receivedAt, 'number');
});

test('a pacs.081 becomes the FSPIOP POST /quotes and a pacs.082 its PUT /quotes/{ID}', async () => {
  const quote = assertAccepted(await send('POST', '/quotes', { resource: 'quotes', body: MESSAGES.pacs081() }));
  assert.equal(quote.body.quoteId, QUOTE_ID);
  assert.equal(quote.body.transactionId, TRANSACTION_ID);
  assert.deepEqual(quote.body.amount, { currency: 'USD', amount: '10.5' });
  assert.deepEqual(quote.body.payee.partyIdInfo, { partyIdType: 'MSISDN', partyIdentifier: '27713803912', fspId: 'payeefsp' });
  assert.deepEqual(quote.body.payer.partyIdInfo, { partyIdType: 'MSISDN', partyIdentifier: '44123456789', fspId: 'payerfsp' });
  assert.equal(quote.body.transactionType.scenario, 'TRANSFER');

  const answerHeaders = { 'fspiop-source': 'payeefsp', 'fspiop-destination': 'payerfsp' };
  const sent = await send('PUT', `/quotes/${QUOTE_ID}`, { resource: 'quotes', body: MESSAGES.pacs082(), headers: answerHeaders });
  const answer = assertAccepted(sent);
  assert.deepEqual(answer.params, { ID: QUOTE_ID });
  assert.deepEqual(answer.body.transferAmount, { currency: 'USD', amount: '10.5' });
  assert.deepEqual(answer.body.payeeReceiveAmount, { currency: 'USD', amount: '10' });
  assert.deepEqual(answer.body.payeeFspFee, { currency: 'USD', amount: '0.5' });
  assert.equal(answer.body.condition, CONDITION.toString('base64url'));
  assert.equal(answer.body.ilpPacket, JSON.parse(sent.payload).CdtTrfTxInf.VrfctnOfTerms.IlpV4PrepPacket);
});

test('a pacs.091 becomes the FSPIOP POST /fxQuotes (the amount the FXP is asked for unstated) and a pacs.092 its PUT /fxQuotes/{ID}, the expiry read from the group header', async () => {
  const sent = await send('POST', '/fxQuotes', { resource: 'fxQuotes', body: MESSAGES.pacs091(), headers: { 'fspiop-destination': 'fxpbank' } });
  const request = assertAccepted(sent);
  assert.deepEqual(request.body, {
    conversionRequestId: CONVERSION_REQUEST_ID,
    conversionTerms: {
      conversionId: CONVERSION_ID, determiningTransferId: TRANSFER_ID, initiatingFsp: 'payerfsp', counterPartyFsp: 'fxpbank', amountType: 'SEND',
      sourceAmount: { currency: 'USD', amount: '50' }, targetAmount: { currency: 'EUR' }, expiration: JSON.parse(sent.payload).GrpHdr.PmtInstrXpryDtTm,
    },
  });
  const answerHeaders = { 'fspiop-source': 'fxpbank', 'fspiop-destination': 'payerfsp' };
  const answer = assertAccepted(await send('PUT', `/fxQuotes/${CONVERSION_REQUEST_ID}`, { resource: 'fxQuotes', body: MESSAGES.pacs092(), headers: answerHeaders }));
  assert.deepEqual(answer.params, { ID: CONVERSION_REQUEST_ID });
  assert.equal(answer.body.condition, CONDITION.toString('base64url'));
  assert.deepEqual(answer.body.conversionTerms.targetAmount, { currency: 'EUR', amount: '45' });
  assert.equal(typeof answer.body.conversionTerms.expiration, 'string');
});

test('only a zero on the side the FXP fills is left out of an fx quote: the target of a SEND, the source of a RECEIVE', () => {
  const terms = (amountType, source, target) => ({ conversionTerms: { amountType, sourceAmount: { currency: 'USD', amount: source }, targetAmount: { currency: 'EUR', amount: target } } });
  assert.deepEqual(withoutUnstatedFxAmount(terms('SEND', '50', '0')).conversionTerms.targetAmount, { currency: 'EUR' });
  assert.deepEqual(withoutUnstatedFxAmount(terms('SEND', '50', '0.00')).conversionTerms.targetAmount, { currency: 'EUR' });
  assert.deepEqual(withoutUnstatedFxAmount(terms('SEND', '50', '45')).conversionTerms.targetAmount, { currency: 'EUR', amount: '45' });
  assert.deepEqual(withoutUnstatedFxAmount(terms('SEND', '0', '0')).conversionTerms.sourceAmount, { currency: 'USD', amount: '0' });
  assert.deepEqual(withoutUnstatedFxAmount(terms('RECEIVE', '0', '45')).conversionTerms, { amountType: 'RECEIVE', sourceAmount: { currency: 'USD' }, targetAmount: { currency: 'EUR', amount: '45' } });
  assert.deepEqual(withoutUnstatedFxAmount({ conversionTerms: { amountType: 'SEND' } }), { conversionTerms: { amountType: 'SEND' } });
});

test('a pacs.091 without its expiry is refused as FSPIOP requires one; any other element in its group header still is', async () => {
  const unstated = MESSAGES.pacs091();
  delete unstated.GrpHdr.PmtInstrXpryDtTm;
  assertRefused(await send('POST', '/fxQuotes', { resource: 'fxQuotes', body: unstated, headers: { 'fspiop-destination': 'fxpbank' } }), 3100, /pacs\.091 in FSPIOP: .*expiration/);
  const stray = MESSAGES.pacs091();
  stray.GrpHdr.XpryDtTm = stray.GrpHdr.PmtInstrXpryDtTm;
  assertRefused(await send('POST', '/fxQuotes', { resource: 'fxQuotes', body: stray, headers: { 'fspiop-destination': 'fxpbank' } }), 3103, /GrpHdr/);
});

test('a pacs.002 becomes the payee\'s PUT /transfers/{ID} and its error form the PUT …/error', async () => {
  const answerHeaders = { 'fspiop-source': 'payeefsp', 'fspiop-destination': 'payerfsp' };
  const sent = await send('PUT', `/transfers/${TRANSFER_ID}`, { resource: 'transfers', body: MESSAGES.pacs002(), headers: answerHeaders });
  const fulfil = assertAccepted(sent);
  assert.deepEqual(fulfil.body, {
    transferState: 'COMMITTED', fulfilment: FULFILMENT.toString('base64url'),
    completedTimestamp: JSON.parse(sent.payload).TxInfAndSts.PrcgDt.DtTm,
  });
  const abort = assertAccepted(await send('PUT', `/transfers/${TRANSFER_ID}/error`, { resource: 'transfers', body: MESSAGES.pacs002Error(), headers: answerHeaders }));
  assert.deepEqual(abort.body, { errorInformation: { errorCode: '5105', errorDescription: 'Payee transaction limit reached' } });
});

test('an acmt.024 becomes the payee\'s PUT /parties and its error form the PUT …/error', async () => {
  const answerHeaders = { 'fspiop-source': 'payeefsp', 'fspiop-destination': 'payerfsp' };
  const answer = assertAccepted(await send('PUT', '/parties/MSISDN/27713803912', { resource: 'parties', body: MESSAGES.acmt024(), headers: answerHeaders }));
  assert.deepEqual(answer.params, { Type: 'MSISDN', ID: '27713803912' });
  assert.deepEqual(answer.body.party.partyIdInfo, { partyIdType: 'MSISDN', partyIdentifier: '27713803912', fspId: 'payeefsp' });
  assert.equal(answer.body.party.name, 'Henrik Karlsson');
  assert.deepEqual(answer.body.party.personalInfo.complexName, { firstName: 'Henrik', lastName: 'Karlsson' });
  const error = assertAccepted(await send('PUT', '/parties/MSISDN/27713803912/error', { resource: 'parties', body: MESSAGES.acmt024Error(), headers: answerHeaders }));
  assert.equal(error.body.errorInformation.errorCode, '3204');
});

test('a GET asked in ISO 20022 is accepted without a body, its ISO 20022 Accept kept for the forward', async () => {
  // FSPIOP 2.0 requires a Content-Type on a GET too; an ISO 20022 DFSP states its own.
  const headers = {};
  const lookup = assertAccepted(await send('GET', '/parties/MSISDN/27713803912', { resource: 'parties', headers }));
  assert.equal(lookup.body, undefined);
  assert.equal(lookup.headers.accept, isoContentType('parties'));
  assert.equal(lookup.headers[ORIGINAL_BODY_HEADER], undefined);
  const transfer = await send('GET', `/transfers/${TRANSFER_ID}`, { resource: 'transfers', headers });
  assert.equal(assertAccepted(transfer).headers.accept, isoContentType('transfers'));
  // The answer to a GET is a callback; an Accept of another version or resource is refused.
  assertRefused(await send('GET', `/transfers/${TRANSFER_ID}`, { resource: 'transfers', headers: { ...headers, accept: isoContentType('transfers', '1.1') } }), 3001, /not supported|unsupported version/);
  assertRefused(await send('GET', `/transfers/${TRANSFER_ID}`, { resource: 'transfers', headers: { ...headers, accept: isoContentType('quotes') } }), 3101, /Invalid accept header/);
});

test('a pacs.008 missing an element, with a wrong code or five decimals is refused naming the element', async () => {
  const missing = MESSAGES.pacs008();
  delete missing.CdtTrfTxInf.DbtrAgt;
  assertRefused(await send('POST', '/transfers', { resource: 'transfers', body: missing }), 3102, /\/requestBody\/CdtTrfTxInf must have required property 'DbtrAgt'/);
  const wrongCode = MESSAGES.pacs008();
  wrongCode.CdtTrfTxInf.ChrgBr = 'NONE';
  assertRefused(await send('POST', '/transfers', { resource: 'transfers', body: wrongCode }), 3100, /\/requestBody\/CdtTrfTxInf\/ChrgBr/);
  const fiveDecimals = MESSAGES.pacs008();
  fiveDecimals.CdtTrfTxInf.IntrBkSttlmAmt.ActiveCurrencyAndAmount = '10.12345';
  assertRefused(await send('POST', '/transfers', { resource: 'transfers', body: fiveDecimals }), 3100, /\/requestBody\/CdtTrfTxInf\/IntrBkSttlmAmt\/ActiveCurrencyAndAmount 10\.12345 has 5 decimals/);
  assertRefused(await send('POST', '/transfers', { resource: 'transfers', body: '{"GrpHdr":' }), 3101, /Invalid request payload JSON format/);
});

test('a valid message whose FSPIOP form FSPIOP refuses is a 3100 naming the FSPIOP field', async () => {
  // An FSP's identifier may have 35 characters in ISO 20022, at most 32 as an FSPIOP FspId.
  const longAgent = MESSAGES.pacs008();
  longAgent.CdtTrfTxInf.CdtrAgt = agent('p'.repeat(35));
  const error = assertRefused(await send('POST', '/transfers', { resource: 'transfers', body: longAgent }), 3100, /pacs\.008 in FSPIOP: \/requestBody\/payeeFsp/);
  assert.doesNotMatch(error.errorDescription, /Internal/);
});

test('a message the mapping library cannot convert is a 3100 naming the ISO 20022 message, never a 500', async () => {
  // Base64url as the document asks, yet no ILP packet: the library fails to read the condition.
  const notIlp = MESSAGES.pacs008(Buffer.from('not an ILP packet at all').toString('base64url'));
  assertRefused(await send('POST', '/transfers', { resource: 'transfers', body: notIlp }), 3100, /^Generic validation error - pacs\.008 /);
});

test('routes of FSPIOP-only resources refuse an ISO 20022 media type with 3101', async () => {
  const bulk = await send('POST', '/bulkTransfers', { resource: 'bulkTransfers', body: { bulkTransferId: TRANSFER_ID } });
  assertRefused(bulk, 3101, /^Malformed syntax - Invalid content-type header: POST \/bulkTransfers is not served in ISO 20022$/);
  const participants = await send('GET', '/participants/MSISDN/27713803912', { resource: 'participants', headers: { 'content-type': undefined } });
  assertRefused(participants, 3101, /Invalid accept header: GET \/participants\/\{Type\}\/\{ID\} is not served in ISO 20022/);
});

test('an answer to an ISO 20022 request states an FSPIOP media type, whatever its Accept', async () => {
  const missing = MESSAGES.pacs008();
  delete missing.GrpHdr;
  const { response } = await send('POST', '/transfers', { resource: 'transfers', body: missing });
  assert.equal(response.statusCode, 400);
  assert.equal(response.headers['content-type'], 'application/vnd.interoperability.transfers+json;version=2.0');
  const lookup = await send('GET', '/parties/MSISDN/27713803912', { resource: 'parties', headers: { 'content-type': undefined, date: 'yesterday' } });
  assert.equal(lookup.response.statusCode, 400);
  assert.match(lookup.response.headers['content-type'], /^application\/vnd\.interoperability\.parties\+json;version=\d\.\d$/);
});

test('the mapping library is loaded once and shared', async () => {
  assert.equal(await loadTransformFacades(), await loadTransformFacades());
});
