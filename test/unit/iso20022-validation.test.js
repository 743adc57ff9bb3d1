// ISO 20022 at the FSPIOP edges (issue 34), before anything is wired into a running edge:
// the ISO 20022 media types and which API a request speaks, the ISO 20022 document of
// api-snippets compiled for every operation the switch maps, and the request validator of
// an ISO 20022 route, against the document as the package ships it: a valid pacs.008 is
// accepted, and one missing a mandatory element, with a wrong code or with too many decimals
// is refused with an FSPIOP error naming the element's path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import ilpPacket from 'ilp-packet';
import {
  API_TYPE, apiTypeOfMediaType, checkIsoAccept, checkIsoContentType, fspiopEquivalentOf, isoContentType,
  parseIsoMediaType, requestApiType,
} from '../../platform/iso20022/media-types.js';
import { ISO_MESSAGES, isoOperation } from '../../platform/iso20022/document.js';
import { createIsoRequestValidator } from '../../platform/iso20022/validation.js';

const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
// ULIDs, as the ISO 20022 document requires of TxId (FSPIOP 2.0 takes them as CorrelationIds).
const TRANSFER_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3C';
const MESSAGE_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3B';

// A real ILP v4 prepare, base64url as Mojaloop's ISO 20022 mode carries it in VrfctnOfTerms.
const ILP_PREPARE = ilpPacket.serializeIlpPrepare({
  amount: '1025', destination: 'g.payeefsp.msisdn.27713803912', expiresAt: new Date(NOW_MS + 60_000),
  executionCondition: Buffer.alloc(32, 7), data: Buffer.from('{}'),
}).toString('base64url');

const headers = (overrides = {}) => ({
  'content-type': isoContentType('transfers'),
  accept: isoContentType('transfers'),
  date: new Date(NOW_MS).toUTCString(),
  'fspiop-source': 'payerfsp',
  'fspiop-destination': 'payeefsp',
  ...overrides,
});

const party = (msisdn) => ({ Id: { PrvtId: { Othr: { SchmeNm: { Prtry: 'MSISDN' }, Id: msisdn } } } });

/** A pacs.008 as a payer's DFSP in ISO 20022 mode sends it for POST /transfers. */
function pacs008() {
  return {
    GrpHdr: {
      MsgId: MESSAGE_ID,
      CreDtTm: new Date(NOW_MS).toISOString(),
      NbOfTxs: '1',
      SttlmInf: { SttlmMtd: 'CLRG' },
      PmtInstrXpryDtTm: new Date(NOW_MS + 60_000).toISOString(),
    },
    CdtTrfTxInf: {
      PmtId: { TxId: TRANSFER_ID },
      ChrgBr: 'SHAR',
      Cdtr: party('27713803912'),
      Dbtr: party('44123456789'),
      CdtrAgt: { FinInstnId: { Othr: { Id: 'payeefsp' } } },
      DbtrAgt: { FinInstnId: { Othr: { Id: 'payerfsp' } } },
      IntrBkSttlmAmt: { Ccy: 'USD', ActiveCurrencyAndAmount: '10.25' },
      VrfctnOfTerms: { IlpV4PrepPacket: ILP_PREPARE },
    },
  };
}

const postTransfers = createIsoRequestValidator({ resource: 'transfers', method: 'POST', path: '/transfers', limits: { minorUnitCurrencies: new Set(['USD']) } });

function post(body, headerOverrides = {}) {
  return postTransfers({ headers: headers(headerOverrides), params: {}, payload: Buffer.from(JSON.stringify(body)), info: { received: NOW_MS } });
}

function assertRefused(result, code, description) {
  assert.ok(result.failure, `expected a refusal, got ${JSON.stringify(result.body)}`);
  assert.equal(result.failure.code, code);
  assert.equal(result.failure.body.errorInformation.errorCode, String(code));
  assert.match(result.failure.body.errorInformation.errorDescription, description);
}

test('ISO 20022 media types are told from FSPIOP ones and parsed for their resource and version', () => {
  assert.deepEqual(parseIsoMediaType('application/vnd.interoperability.iso20022.transfers+json;version=2.0'), { resource: 'transfers', version: '2.0' });
  assert.deepEqual(parseIsoMediaType('Application/VND.interoperability.ISO20022.fxQuotes+json ; version=2'), { resource: 'fxQuotes', version: '2' });
  assert.equal(parseIsoMediaType('application/vnd.interoperability.iso20022.fxQuotes+json;;version=2'), null);
  assert.deepEqual(parseIsoMediaType('application/vnd.interoperability.iso20022.fxQuotes+json; version=2'), { resource: 'fxQuotes', version: '2' });
  assert.equal(parseIsoMediaType('application/vnd.interoperability.transfers+json;version=2.0'), null);
  assert.equal(apiTypeOfMediaType('application/vnd.interoperability.iso20022.parties+json;version=2.0'), API_TYPE.iso20022);
  assert.equal(apiTypeOfMediaType('application/vnd.interoperability.iso20022.parties+json;version=oops'), API_TYPE.iso20022);
  assert.equal(apiTypeOfMediaType('application/vnd.interoperability.parties+json;version=1.1'), API_TYPE.fspiop);
  assert.equal(apiTypeOfMediaType('*/*'), null);
  assert.equal(apiTypeOfMediaType(undefined), null);
});

test('a request speaks the API of its Content-Type, a GET the one its Accept names, FSPIOP otherwise', () => {
  assert.equal(requestApiType(headers()), API_TYPE.iso20022);
  assert.equal(requestApiType({ accept: isoContentType('parties') }), API_TYPE.iso20022);
  assert.equal(requestApiType({ accept: 'application/vnd.interoperability.parties+json;version=2.0' }), API_TYPE.fspiop);
  // An Accept naming both APIs says nothing of which one the client speaks.
  assert.equal(requestApiType({ accept: `${isoContentType('parties')}, application/vnd.interoperability.parties+json;version=1` }), API_TYPE.fspiop);
  assert.equal(requestApiType({}), API_TYPE.fspiop);
});

test('an ISO 20022 Content-Type must name the route\'s resource in a version it is served in', () => {
  assert.equal(checkIsoContentType(isoContentType('transfers'), 'transfers'), null);
  assert.equal(checkIsoContentType(isoContentType('quotes'), 'transfers').code, 3101);
  assert.equal(checkIsoContentType('application/vnd.interoperability.iso20022.transfers+json', 'transfers').code, 3101);
  const old = checkIsoContentType(isoContentType('transfers', '1.1'), 'transfers');
  assert.deepEqual([old.code, old.supportedVersions], [3001, ['2.0']]);
  // Resources the ISO 20022 document does not describe are served in no version of it.
  assert.deepEqual(checkIsoContentType(isoContentType('bulkTransfers'), 'bulkTransfers').supportedVersions, []);
});

test('an ISO 20022 Accept admits a major version alone and refuses one the resource is not served in', () => {
  assert.equal(checkIsoAccept('application/vnd.interoperability.iso20022.transfers+json;version=2', 'transfers'), null);
  assert.equal(checkIsoAccept('application/vnd.interoperability.iso20022.transfers+json', 'transfers'), null);
  assert.equal(checkIsoAccept('application/vnd.interoperability.iso20022.transfers+json;version=1', 'transfers').code, 3001);
  assert.equal(checkIsoAccept('application/vnd.interoperability.transfers+json;version=2', 'transfers').code, 3101);
});

test('the FSPIOP equivalent of an ISO 20022 media type keeps its resource and version', () => {
  assert.equal(fspiopEquivalentOf(isoContentType('fxTransfers')), 'application/vnd.interoperability.fxTransfers+json;version=2.0');
  assert.equal(fspiopEquivalentOf('application/vnd.interoperability.iso20022.quotes+json'), 'application/vnd.interoperability.quotes+json');
  assert.equal(fspiopEquivalentOf('text/plain'), 'text/plain');
});

test('every operation of the mapping has its ISO 20022 message in the document api-snippets ships', () => {
  const messages = new Map();
  for (const key of Object.keys(ISO_MESSAGES)) {
    const [method, path] = key.split(' ');
    const operation = isoOperation(method, path);
    assert.equal(typeof operation.validate, 'function', key);
    assert.equal(operation.required, true, `${key} requires its body`);
    messages.set(key, operation.message);
  }
  assert.equal(messages.get('POST /transfers'), 'pacs.008');
  assert.equal(messages.get('PATCH /transfers/{ID}'), 'pacs.002');
  assert.equal(messages.get('POST /fxTransfers'), 'pacs.009');
  assert.equal(messages.get('PUT /parties/{Type}/{ID}'), 'acmt.024');
  assert.throws(() => isoOperation('POST', '/bulkTransfers'), /no ISO 20022 message/);
});

test('a valid pacs.008 is accepted, its bytes kept and its message named', () => {
  const body = pacs008();
  const result = post(body);
  assert.equal(result.failure, undefined, JSON.stringify(result.failure?.body));
  assert.equal(result.message, 'pacs.008');
  assert.deepEqual(result.body, body);
  assert.equal(result.rawBody, JSON.stringify(body));
  assert.equal(result.headers['content-type'], isoContentType('transfers'));
});

test('a choice holds the element of any of its branches and nothing else (the document\'s choices repaired)', () => {
  const organisation = pacs008();
  organisation.CdtTrfTxInf.Cdtr = { Id: { OrgId: { Othr: { SchmeNm: { Prtry: 'BUSINESS' }, Id: 'shop-42' } } } };
  assert.equal(post(organisation).failure, undefined);
  const stray = pacs008();
  stray.CdtTrfTxInf.Dbtr.Id.Nickname = 'Bob';
  assertRefused(post(stray), 3103, /^Too many elements - \/requestBody\/CdtTrfTxInf\/Dbtr\/Id must NOT have additional properties$/);
});

test('a pacs.008 missing a mandatory element is refused with 3102 naming its path', () => {
  const noSettlement = pacs008();
  delete noSettlement.GrpHdr.SttlmInf;
  assertRefused(post(noSettlement), 3102, /^Missing mandatory element - \/requestBody\/GrpHdr must have required property 'SttlmInf'$/);
  // Inside a choice, the element actually missing is named, not the other branch's.
  const noDebtorId = pacs008();
  delete noDebtorId.CdtTrfTxInf.Dbtr.Id.PrvtId.Othr.Id;
  assertRefused(post(noDebtorId), 3102, /^Missing mandatory element - \/requestBody\/CdtTrfTxInf\/Dbtr\/Id\/PrvtId\/Othr must have required property 'Id'$/);
  assertRefused(post({ GrpHdr: pacs008().GrpHdr }), 3102, /\/requestBody must have required property 'CdtTrfTxInf'/);
});

test('a pacs.008 with a wrong code is refused with 3100 naming its path', () => {
  const bearer = pacs008();
  bearer.CdtTrfTxInf.ChrgBr = 'OURS';
  assertRefused(post(bearer), 3100, /^Generic validation error - \/requestBody\/CdtTrfTxInf\/ChrgBr must be equal to one of the allowed values$/);
  const method = pacs008();
  method.GrpHdr.SttlmInf.SttlmMtd = 'CASH';
  assertRefused(post(method), 3100, /\/requestBody\/GrpHdr\/SttlmInf\/SttlmMtd must be equal to one of the allowed values/);
  const currency = pacs008();
  currency.CdtTrfTxInf.IntrBkSttlmAmt.Ccy = 'ABC';
  assertRefused(post(currency), 3100, /\/requestBody\/CdtTrfTxInf\/IntrBkSttlmAmt\/Ccy must be equal to one of the allowed values/);
});

test('a pacs.008 with too many decimals is refused with 3100 naming the amount\'s path', () => {
  const withAmount = (amount, currency = 'USD') => {
    const body = pacs008();
    body.CdtTrfTxInf.IntrBkSttlmAmt = { Ccy: currency, ActiveCurrencyAndAmount: amount };
    return post(body);
  };
  const path = /\/requestBody\/CdtTrfTxInf\/IntrBkSttlmAmt\/ActiveCurrencyAndAmount/;
  // Six decimals: beyond the document's own pattern.
  assertRefused(withAmount('10.123456'), 3100, path);
  // Five: ISO 20022 allows them, FSPIOP's four do not.
  const five = withAmount('10.12345', 'XTS');
  assertRefused(five, 3100, /ActiveCurrencyAndAmount 10\.12345 has 5 decimals, at most 4$/);
  // Three in USD, whose minor units the scheme holds amounts to.
  assertRefused(withAmount('10.125'), 3100, /ActiveCurrencyAndAmount 10\.125: USD allows 2 decimals$/);
  // The document's pattern leaves its decimal point unescaped; the amount is held to a decimal.
  assertRefused(withAmount('10x5'), 3100, /ActiveCurrencyAndAmount 10x5 is not a decimal amount$/);
  // A trailing zero is no decimal of the value: 10.120 USD is 10.12.
  assert.equal(withAmount('10.120').failure, undefined);
  assert.equal(withAmount('10.1234', 'XTS').failure, undefined);
});

test('an ISO 20022 route applies the instants\' limits and the header rules both APIs share', () => {
  const late = pacs008();
  late.GrpHdr.PmtInstrXpryDtTm = new Date(NOW_MS + 2 * 24 * 60 * 60 * 1000).toISOString();
  assertRefused(post(late), 3100, /\/requestBody\/GrpHdr\/PmtInstrXpryDtTm .* ms ahead$/);
  assertRefused(post(pacs008(), { 'content-type': 'application/vnd.interoperability.transfers+json;version=2.0' }), 3101, /Invalid content-type header/);
  const old = post(pacs008(), { 'content-type': isoContentType('transfers', '1.1') });
  assertRefused(old, 3001, /not supported/);
  assert.deepEqual(old.failure.body.errorInformation.extensionList, { extension: [{ key: '2', value: '0' }] });
  assertRefused(post(pacs008(), { date: undefined }), 3102, /'date'/);
  assertRefused(post(pacs008(), { 'fspiop-source': 'a,b' }), 3101, /fspiop-source/);
});

test('a pacs.002 answering a transfer is checked against its path\'s CorrelationId and its own schema', () => {
  const putTransfer = createIsoRequestValidator({ resource: 'transfers', method: 'PUT', path: '/transfers/{ID}', pathSchemas: { ID: 'CorrelationId' } });
  const pacs002 = {
    GrpHdr: { MsgId: MESSAGE_ID, CreDtTm: new Date(NOW_MS).toISOString() },
    TxInfAndSts: { ExctnConf: Buffer.alloc(32, 9).toString('base64url'), PrcgDt: { DtTm: new Date(NOW_MS).toISOString() }, TxSts: 'COMM' },
  };
  const request = (params, body) => putTransfer({ headers: headers({ accept: undefined }), params, payload: Buffer.from(JSON.stringify(body)), info: { received: NOW_MS } });
  const accepted = request({ ID: TRANSFER_ID }, pacs002);
  assert.equal(accepted.failure, undefined, JSON.stringify(accepted.failure?.body));
  assert.equal(accepted.message, 'pacs.002');
  assertRefused(request({ ID: 'not-an-id' }, pacs002), 3100, /^Generic validation error - \/path\/ID /);
  assertRefused(request({ ID: TRANSFER_ID }, { ...pacs002, TxInfAndSts: { ...pacs002.TxInfAndSts, TxSts: 'DONE' } }), 3100, /\/requestBody\/TxInfAndSts\/TxSts/);
});
