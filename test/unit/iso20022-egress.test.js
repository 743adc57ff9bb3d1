// Every callback in its receiver's API (platform/iso20022/egress.js), case by case as the
// contract's table says: forwards of the same API unchanged, forwards across APIs converted
// and signed by the hub with the original described, the hub's own calls converted for an ISO
// 20022 receiver, GET forwards with their media types rewritten. Every ISO 20022 body produced
// is checked against the ISO 20022 document, every hub signature with the hub's public key
// over the bytes sent, and every original digest against the original's bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createPublicKey } from 'node:crypto';
import ilpPacket from 'ilp-packet';
import pino from 'pino';
import { createHubSigner } from '../../platform/delivery/hub-signature.js';
import { createDfspVersions } from '../../platform/delivery/dfsp-versions.js';
import { callbackUrl } from '../../platform/delivery/callback-request.js';
import { OUTCOME } from '../../platform/delivery/deliver.js';
import { requesterErrorEvent } from '../../platform/delivery/requester-errors.js';
import { verifyFspiopMessage } from '../../platform/fspiop/jws.js';
import { isoOperation } from '../../platform/iso20022/document.js';
import { CONVERSION_FAILED, SWITCH_HEADERS, prepareCallback } from '../../platform/iso20022/egress.js';
import { transactionOfIlpPacket } from '../../platform/fspiop/ilp-transaction.js';
import { API_TYPE, isoContentType } from '../../platform/iso20022/media-types.js';
import { ORIGINAL_BODY_HEADER } from '../../platform/iso20022/original.js';
import { isRetryable } from '../../handlers/notification/retry.js';
import { HUB_NAME, jwsKeyPair } from '../support/jws-keys.js';

const NOW_MS = Date.now();
const TRANSFER_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3C';
const QUOTE_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3D';
const EXPIRATION = new Date(NOW_MS + 60_000).toISOString();
const hubKeys = [createPublicKey(jwsKeyPair(HUB_NAME).publicKey)];
const signCallback = createHubSigner(jwsKeyPair(HUB_NAME).privateKey);
const logger = pino({ level: 'silent' });
const FSPIOP_TRANSFERS = 'application/vnd.interoperability.transfers+json;version=1.1';
const DFSP_SIGNATURE = '{"signature":"payer-sig","protectedHeader":"eyJhbGciOiJSUzI1NiJ9"}';

const party = (fspId, partyIdentifier, extra = {}) => ({ partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier, fspId }, ...extra });

/** An ILP v4 prepare whose data is the transaction, as Mojaloop's SDKs write it (base64url of its JSON). */
function ilpPrepareOf(transaction) {
  return ilpPacket.serializeIlpPrepare({
    amount: '1025', destination: 'g.payeefsp.msisdn.27713803912', expiresAt: new Date(EXPIRATION),
    executionCondition: Buffer.alloc(32, 7), data: Buffer.from(Buffer.from(JSON.stringify(transaction)).toString('base64url')),
  }).toString('base64url');
}

const TRANSACTION = {
  transactionId: TRANSFER_ID, quoteId: QUOTE_ID, amount: { amount: '10.25', currency: 'USD' },
  payee: party('payeefsp', '27713803912', { name: 'Jane Doe' }),
  payer: party('payerfsp', '44123456789', { personalInfo: { complexName: { firstName: 'Ann', lastName: 'Payer' } } }),
  transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
};
const ILP_PACKET = ilpPrepareOf(TRANSACTION);
const CONDITION = Buffer.alloc(32, 7).toString('base64url');

const dfspHeaders = (from, to, contentType, extra = {}) => ({
  'content-type': contentType, date: new Date(NOW_MS).toUTCString(), 'fspiop-source': from, 'fspiop-destination': to,
  'fspiop-signature': DFSP_SIGNATURE, ...extra,
});

const transferCallback = (endpointType, method) => ({ endpointType, method, resource: 'transfers', templateParams: { transferId: TRANSFER_ID } });

/** An FSPIOP payer's POST /transfers on its way to the payee. */
function fspiopPrepare(body = {}) {
  const rawBody = JSON.stringify({
    transferId: TRANSFER_ID, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '10.25', currency: 'USD' },
    ilpPacket: ILP_PACKET, condition: CONDITION, expiration: EXPIRATION, ...body,
  });
  return {
    id: TRANSFER_ID, type: 'notification', action: 'prepare', from: 'payerfsp', to: 'payeefsp', rawBody,
    headers: dfspHeaders('payerfsp', 'payeefsp', FSPIOP_TRANSFERS, { accept: 'application/vnd.interoperability.transfers+json;version=1' }),
    callback: transferCallback('FSPIOP_CALLBACK_URL_TRANSFER_POST', 'POST'),
  };
}

/** An ISO 20022 payee's PUT /transfers as the edge hands it on: the FSPIOP form, the ISO text kept in the headers. */
function isoFulfil() {
  const original = JSON.stringify({
    GrpHdr: { MsgId: '01JHKZ3V8E6Q2W4R5T7Y9X1A3E', CreDtTm: new Date(NOW_MS).toISOString() },
    TxInfAndSts: { ExctnConf: CONDITION, PrcgDt: { DtTm: new Date(NOW_MS).toISOString() }, TxSts: 'COMM' },
  });
  return {
    id: TRANSFER_ID, type: 'notification', action: 'fulfil', from: 'payeefsp', to: 'payerfsp',
    body: { fulfilment: CONDITION, completedTimestamp: new Date(NOW_MS).toISOString(), transferState: 'COMMITTED' },
    headers: { ...dfspHeaders('payeefsp', 'payerfsp', isoContentType('transfers')), [ORIGINAL_BODY_HEADER]: original },
    callback: transferCallback('FSPIOP_CALLBACK_URL_TRANSFER_PUT', 'PUT'),
  };
}

const hubEvent = (to, callback, body) => ({ id: TRANSFER_ID, type: 'notification', action: 'error', from: HUB_NAME, to, headers: {}, body, callback });

const TEMPLATES = {
  FSPIOP_CALLBACK_URL_TRANSFER_POST: 'http://dfsp.example/transfers',
  FSPIOP_CALLBACK_URL_TRANSFER_PUT: 'http://dfsp.example/transfers/{{transferId}}',
  FSPIOP_CALLBACK_URL_TRANSFER_ERROR: 'http://dfsp.example/transfers/{{transferId}}/error',
  FSPIOP_CALLBACK_URL_QUOTES: 'http://dfsp.example',
  FSPIOP_CALLBACK_URL_FX_QUOTES: 'http://dfsp.example',
  FSPIOP_CALLBACK_URL_PARTIES_GET: 'http://dfsp.example/parties/{{partyIdType}}/{{partyIdentifier}}',
  FSPIOP_CALLBACK_URL_PARTIES_PUT: 'http://dfsp.example/parties/{{partyIdType}}/{{partyIdentifier}}',
  FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR: 'http://dfsp.example/parties/{{partyIdType}}/{{partyIdentifier}}/error',
  FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR: 'http://dfsp.example/participants/{{partyIdType}}/{{partyIdentifier}}/error',
};

async function prepared(event, apiType) {
  const url = callbackUrl(TEMPLATES[event.callback.endpointType], event.callback);
  const result = await prepareCallback({ event, url, apiType, hubName: HUB_NAME, signCallback, versions: createDfspVersions(), now: NOW_MS, logger });
  if (result.headers) assert.equal(result.headers[ORIGINAL_BODY_HEADER], undefined, 'the internal header is never sent');
  return { ...result, url };
}

/** The body as JSON, valid against the ISO 20022 document's message for the operation. */
function assertIsoMessage(body, method, path) {
  const message = JSON.parse(body.toString('utf8'));
  const { validate } = isoOperation(method, path);
  assert.ok(validate(message), `${method} ${path}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(message)}`);
  return message;
}

async function assertSignedByHub({ headers, body, url }, method) {
  const uri = `${url.pathname}${url.search}`;
  assert.equal(await verifyFspiopMessage({ method, uri, headers, body, keys: hubKeys }), null);
}

function assertDescribesOriginal(headers, original, { source, contentType, signature }) {
  assert.equal(headers[SWITCH_HEADERS.signer], HUB_NAME);
  assert.equal(headers[SWITCH_HEADERS.originalSource], source);
  assert.equal(headers[SWITCH_HEADERS.originalContentType], contentType);
  assert.equal(headers[SWITCH_HEADERS.originalSignature], signature);
  assert.equal(headers[SWITCH_HEADERS.originalDigest], `sha-256=${createHash('sha256').update(original).digest('base64url')}`);
}

test('a forward between FSPIOP DFSPs goes out as today: the payer\'s bytes, headers and signature', async () => {
  const event = fspiopPrepare();
  for (const apiType of [undefined, API_TYPE.fspiop]) {
    const { headers, body } = await prepared(event, apiType);
    assert.equal(body.toString('utf8'), event.rawBody);
    assert.equal(headers['fspiop-signature'], DFSP_SIGNATURE);
    assert.equal(headers['content-type'], FSPIOP_TRANSFERS);
    assert.equal(headers[SWITCH_HEADERS.signer], undefined);
  }
});

test('a forward between ISO 20022 DFSPs carries the sender\'s own ISO bytes and signature, not the FSPIOP form', async () => {
  const event = isoFulfil();
  const { headers, body } = await prepared(event, API_TYPE.iso20022);
  assert.equal(body.toString('utf8'), event.headers[ORIGINAL_BODY_HEADER]);
  assert.equal(headers['fspiop-signature'], DFSP_SIGNATURE);
  assert.equal(headers['content-type'], isoContentType('transfers'));
  assert.equal(headers[SWITCH_HEADERS.signer], undefined);
});

test('an FSPIOP prepare to an ISO 20022 payee is a valid pacs.008 naming the transaction\'s parties, signed by the hub', async () => {
  const event = fspiopPrepare();
  const sent = await prepared(event, API_TYPE.iso20022);
  const { headers, body } = sent;
  const pacs008 = assertIsoMessage(body, 'POST', '/transfers');
  const transaction = pacs008.CdtTrfTxInf;
  assert.equal(transaction.PmtId.TxId, TRANSFER_ID);
  assert.deepEqual(transaction.IntrBkSttlmAmt, { Ccy: 'USD', ActiveCurrencyAndAmount: '10.25' });
  assert.equal(transaction.VrfctnOfTerms.IlpV4PrepPacket, ILP_PACKET);
  assert.deepEqual(transaction.Dbtr.Id.PrvtId.Othr, { SchmeNm: { Prtry: 'MSISDN' }, Id: '44123456789' });
  assert.deepEqual(transaction.Cdtr.Id.PrvtId.Othr, { SchmeNm: { Prtry: 'MSISDN' }, Id: '27713803912' });
  assert.equal(transaction.DbtrAgt.FinInstnId.Othr.Id, 'payerfsp');
  assert.equal(transaction.CdtrAgt.FinInstnId.Othr.Id, 'payeefsp');
  assert.equal(headers['content-type'], isoContentType('transfers'));
  assert.equal(headers.accept, isoContentType('transfers'));
  assert.equal(headers['fspiop-source'], 'payerfsp', 'Source still names the payer');
  assert.equal(headers['fspiop-destination'], 'payeefsp');
  assert.notEqual(headers['fspiop-signature'], DFSP_SIGNATURE);
  await assertSignedByHub(sent, 'POST');
  assertDescribesOriginal(headers, Buffer.from(event.rawBody), { source: 'payerfsp', contentType: FSPIOP_TRANSFERS, signature: DFSP_SIGNATURE });
});

test('an ILP packet that names no parties gives a pacs.008 whose debtor and creditor are the DFSPs', async () => {
  const bare = ilpPacket.serializeIlpPrepare({
    amount: '1025', destination: 'g.payeefsp', expiresAt: new Date(EXPIRATION), executionCondition: Buffer.alloc(32, 7),
    data: Buffer.from(JSON.stringify({ transactionId: TRANSFER_ID, amount: { amount: '10.25', currency: 'USD' } })),
  }).toString('base64url');
  assert.equal(transactionOfIlpPacket(bare).transactionId, TRANSFER_ID, 'data holding the JSON itself is read too');
  assert.equal(transactionOfIlpPacket('not a packet'), null);
  const { body } = await prepared(fspiopPrepare({ ilpPacket: bare }), API_TYPE.iso20022);
  const { CdtTrfTxInf: transaction } = assertIsoMessage(body, 'POST', '/transfers');
  assert.equal(transaction.Dbtr.Id.OrgId.Othr.Id, 'payerfsp');
  assert.equal(transaction.Cdtr.Id.OrgId.Othr.Id, 'payeefsp');
  assert.equal(transaction.ChrgBr, 'SHAR');
});

test('an FSPIOP quote answer to an ISO 20022 payer is a valid pacs.082 for the quote in the path', async () => {
  const rawBody = JSON.stringify({
    transferAmount: { amount: '10.25', currency: 'USD' }, payeeReceiveAmount: { amount: '10.25', currency: 'USD' }, expiration: EXPIRATION,
    ilpPacket: ILP_PACKET, condition: CONDITION,
  });
  const event = {
    id: QUOTE_ID, type: 'notification', action: 'put', from: 'payeefsp', to: 'payerfsp', rawBody,
    headers: dfspHeaders('payeefsp', 'payerfsp', 'application/vnd.interoperability.quotes+json;version=2.0'),
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_QUOTES', method: 'PUT', resource: 'quotes', templateParams: {}, path: `/quotes/${QUOTE_ID}` },
  };
  const sent = await prepared(event, API_TYPE.iso20022);
  const pacs082 = assertIsoMessage(sent.body, 'PUT', '/quotes/{ID}');
  assert.equal(pacs082.CdtTrfTxInf.PmtId.TxId, QUOTE_ID);
  assert.equal(pacs082.CdtTrfTxInf.Dbtr.Id.PrvtId.Othr.Id, '44123456789');
  assert.equal(sent.headers['content-type'], isoContentType('quotes'));
  await assertSignedByHub(sent, 'PUT');
  assertDescribesOriginal(sent.headers, Buffer.from(rawBody), { source: 'payeefsp', contentType: event.headers['content-type'], signature: DFSP_SIGNATURE });
});

test('an FSPIOP FXP\'s fx quote answer to an ISO 20022 payer is a valid pacs.092, the expiry in its group header', async () => {
  const conversionRequestId = '01JHKZ3V8E6Q2W4R5T7Y9X1A3F';
  const rawBody = JSON.stringify({
    condition: CONDITION,
    conversionTerms: {
      conversionId: '01JHKZ3V8E6Q2W4R5T7Y9X1A3G', determiningTransferId: TRANSFER_ID, initiatingFsp: 'payerfsp', counterPartyFsp: 'fxpbank',
      amountType: 'SEND', sourceAmount: { amount: '50', currency: 'USD' }, targetAmount: { amount: '45', currency: 'EUR' }, expiration: EXPIRATION,
    },
  });
  const event = {
    id: conversionRequestId, type: 'notification', action: 'put', from: 'fxpbank', to: 'payerfsp', rawBody,
    headers: dfspHeaders('fxpbank', 'payerfsp', 'application/vnd.interoperability.fxQuotes+json;version=2.0'),
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_FX_QUOTES', method: 'PUT', resource: 'fxQuotes', templateParams: {}, path: `/fxQuotes/${conversionRequestId}` },
  };
  const sent = await prepared(event, API_TYPE.iso20022);
  assert.equal(sent.failure, undefined, JSON.stringify(sent.failure));
  const pacs092 = assertIsoMessage(sent.body, 'PUT', '/fxQuotes/{ID}');
  assert.equal(pacs092.GrpHdr.PmtInstrXpryDtTm, EXPIRATION);
  assert.equal(pacs092.CdtTrfTxInf.PmtId.TxId, conversionRequestId);
  assert.equal(pacs092.CdtTrfTxInf.IntrBkSttlmAmt.ActiveCurrencyAndAmount, '45');
  assert.equal(pacs092.CdtTrfTxInf.VrfctnOfTerms.Sh256Sgntr, CONDITION);
  assert.equal(sent.headers['content-type'], isoContentType('fxQuotes'));
  await assertSignedByHub(sent, 'PUT');
  assertDescribesOriginal(sent.headers, Buffer.from(rawBody), { source: 'fxpbank', contentType: event.headers['content-type'], signature: DFSP_SIGNATURE });
});

test('an FSPIOP party answer to an ISO 20022 payer is a valid acmt.024', async () => {
  const rawBody = JSON.stringify({ party: party('payeefsp', '27713803912', { name: 'Jane Doe' }) });
  const event = {
    id: 'MSISDN/27713803912', type: 'notification', action: 'put', from: 'payeefsp', to: 'payerfsp', rawBody,
    headers: dfspHeaders('payeefsp', 'payerfsp', 'application/vnd.interoperability.parties+json;version=1.1'),
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_PUT', method: 'PUT', resource: 'parties', templateParams: { partyIdType: 'MSISDN', partyIdentifier: '27713803912' } },
  };
  const sent = await prepared(event, API_TYPE.iso20022);
  const acmt024 = assertIsoMessage(sent.body, 'PUT', '/parties/{Type}/{ID}');
  assert.equal(acmt024.Rpt.UpdtdPtyAndAcctId.Pty.Id.PrvtId.Othr.Id, '27713803912');
  assert.equal(acmt024.Assgnmt.Assgnr.Agt.FinInstnId.Othr.Id, 'payeefsp');
  await assertSignedByHub(sent, 'PUT');
});

test('an ISO 20022 payee\'s fulfil to an FSPIOP payer is the FSPIOP form, in FSPIOP 2.0 (whose ids are ISO 20022\'s), signed by the hub', async () => {
  const event = isoFulfil();
  const sent = await prepared(event, API_TYPE.fspiop);
  assert.deepEqual(JSON.parse(sent.body), event.body);
  assert.equal(sent.headers['content-type'], 'application/vnd.interoperability.transfers+json;version=2.0');
  assert.equal(sent.headers['fspiop-source'], 'payeefsp');
  await assertSignedByHub(sent, 'PUT');
  assertDescribesOriginal(sent.headers, Buffer.from(event.headers[ORIGINAL_BODY_HEADER]), {
    source: 'payeefsp', contentType: isoContentType('transfers'), signature: DFSP_SIGNATURE,
  });
});

test('the hub\'s own errors and state changes reach an ISO 20022 DFSP as pacs.002 and acmt.024, signed by the hub', async () => {
  const error = { errorInformation: { errorCode: '3303', errorDescription: 'Transfer expired' } };
  const cases = [
    [hubEvent('payerfsp', transferCallback('FSPIOP_CALLBACK_URL_TRANSFER_ERROR', 'PUT'), error), 'PUT', '/transfers/{ID}/error'],
    [hubEvent('payeefsp', transferCallback('FSPIOP_CALLBACK_URL_TRANSFER_PUT', 'PATCH'), { transferState: 'ABORTED', completedTimestamp: new Date(NOW_MS).toISOString() }), 'PATCH', '/transfers/{ID}'],
    [hubEvent('payerfsp', { endpointType: 'FSPIOP_CALLBACK_URL_QUOTES', method: 'PUT', resource: 'quotes', templateParams: {}, path: `/quotes/${QUOTE_ID}/error` }, error), 'PUT', '/quotes/{ID}/error'],
    [hubEvent('payerfsp', { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR', method: 'PUT', resource: 'parties', templateParams: { partyIdType: 'MSISDN', partyIdentifier: '123' } },
      { errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } }), 'PUT', '/parties/{Type}/{ID}/error'],
  ];
  for (const [event, method, path] of cases) {
    const sent = await prepared(event, API_TYPE.iso20022);
    const message = assertIsoMessage(sent.body, method, path);
    if (path.startsWith('/parties')) assert.equal(message.Rpt.Rsn.Cd, '3204');
    else if (path.endsWith('/error')) assert.equal(message.TxInfAndSts.StsRsnInf.Rsn.Prtry, '3303');
    else assert.equal(message.TxInfAndSts.TxSts, 'ABOR');
    assert.equal(sent.headers['content-type'], isoContentType(event.callback.resource));
    assert.equal(sent.headers['fspiop-source'], HUB_NAME);
    assert.equal(sent.headers[SWITCH_HEADERS.signer], undefined, 'the hub signs in its own name');
    await assertSignedByHub(sent, method);
  }
});

test('a hub call about a resource ISO 20022 does not have goes out in FSPIOP to an ISO 20022 DFSP', async () => {
  const error = { errorInformation: { errorCode: '3200', errorDescription: 'Generic ID not found' } };
  const event = hubEvent('payerfsp', {
    endpointType: 'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR', method: 'PUT', resource: 'participants', templateParams: { partyIdType: 'MSISDN', partyIdentifier: '1' },
  }, error);
  const sent = await prepared(event, API_TYPE.iso20022);
  assert.deepEqual(JSON.parse(sent.body), error);
  assert.match(sent.headers['content-type'], /^application\/vnd\.interoperability\.participants\+json/);
  await assertSignedByHub(sent, 'PUT');
});

test('a GET forward across APIs keeps its sender\'s signature and takes the receiver\'s media types', async () => {
  const callback = { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_GET', method: 'GET', resource: 'parties', templateParams: { partyIdType: 'MSISDN', partyIdentifier: '123' } };
  const lookup = (accept) => ({
    id: 'MSISDN/123', type: 'notification', action: 'lookup', from: 'payerfsp', to: 'payeefsp', callback,
    headers: { accept, date: new Date(NOW_MS).toUTCString(), 'fspiop-source': 'payerfsp', 'fspiop-destination': 'payeefsp', 'fspiop-signature': DFSP_SIGNATURE },
  });
  const fromIso = await prepared(lookup(isoContentType('parties')), API_TYPE.fspiop);
  assert.equal(fromIso.headers.accept, 'application/vnd.interoperability.parties+json;version=2');
  assert.match(fromIso.headers['content-type'], /^application\/vnd\.interoperability\.parties\+json;version=2\.0$/);
  assert.equal(fromIso.headers['fspiop-signature'], DFSP_SIGNATURE);
  assert.equal(fromIso.body.length, 0);
  const fromFspiop = await prepared(lookup('application/vnd.interoperability.parties+json;version=1.1'), API_TYPE.iso20022);
  assert.equal(fromFspiop.headers.accept, isoContentType('parties'));
  assert.equal(fromFspiop.headers['content-type'], isoContentType('parties'));
  assert.equal(fromFspiop.headers['fspiop-signature'], DFSP_SIGNATURE);
  const same = await prepared(lookup(isoContentType('parties')), API_TYPE.iso20022);
  assert.equal(same.headers.accept, isoContentType('parties'));
  assert.equal(same.headers['content-type'], isoContentType('parties'), 'the type filled in for a GET is the receiver\'s');
});

test('a body that cannot be converted is a failed callback with its reason: not retried, and its requester told 3201', async () => {
  const event = { ...fspiopPrepare(), rawBody: '{"transferId": "not JSON' };
  const result = await prepared(event, API_TYPE.iso20022);
  assert.equal(result.headers, undefined);
  assert.equal(result.failure.reason, CONVERSION_FAILED);
  assert.match(result.failure.detail, /POST \/transfers to ISO20022/);
  const outcome = { outcome: OUTCOME.failed, attempts: 0, ...result.failure };
  assert.equal(isRetryable(outcome), false);
  const told = requesterErrorEvent({ ...event, ifUndeliverable: { to: 'payerfsp', callback: transferCallback('FSPIOP_CALLBACK_URL_TRANSFER_ERROR', 'PUT') } }, outcome, HUB_NAME);
  assert.equal(told.body.errorInformation.errorCode, '3201');
  assert.match(told.body.errorInformation.errorDescription, /cannot be converted/);
});

test('a message ISO 20022 cannot carry (a UUID transferId toward an ISO 20022 payee) fails its conversion, naming the element, instead of reaching the payee invalid', async () => {
  const uuid = '3d2a1f0e-5b7c-4d8e-9f01-23456789abcd';
  const event = { ...fspiopPrepare({ transferId: uuid }), id: uuid };
  const result = await prepared(event, API_TYPE.iso20022);
  assert.equal(result.failure.reason, CONVERSION_FAILED);
  assert.match(result.failure.detail, /pacs\.008 would not be valid ISO 20022: \/CdtTrfTxInf\/PmtId\/TxId/);
  // The same prepare toward an FSPIOP payee is a forward as before.
  assert.equal((await prepared(event, API_TYPE.fspiop)).failure, undefined);
});
