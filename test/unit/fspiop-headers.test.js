// The FSPIOP header rules (reference/fspiop.md §2.5) and the edge validator built on the
// OpenAPI document, exercised with plain request values: no HTTP, no Kafka, no mocks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkAccept, checkContentType, checkFspiopHeaders, parseHttpDate, pickForwardedHeaders } from '../../platform/fspiop/headers.js';
import { createRequestValidator } from '../../platform/fspiop/edge.js';

const CONTENT_TYPE = 'application/vnd.interoperability.transfers+json;version=1.1';
const ACCEPT = 'application/vnd.interoperability.transfers+json;version=1.1';
const DATE = 'Sat, 21 Nov 2026 10:00:00 GMT';
const REQUIRED_ON_POST = ['accept', 'content-type', 'date', 'fspiop-source'];

const validHeaders = (overrides = {}) => {
  const headers = { 'content-type': CONTENT_TYPE, accept: ACCEPT, date: DATE, 'fspiop-source': 'payerfsp', ...overrides };
  for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
  return headers;
};

const HEADER_CASES = [
  ['valid headers', {}, null],
  ['Content-Type missing', { 'content-type': undefined }, 3102],
  ['Content-Type empty', { 'content-type': '' }, 3102],
  ['Content-Type plain JSON', { 'content-type': 'application/json' }, 3101],
  ['Content-Type without version', { 'content-type': 'application/vnd.interoperability.transfers+json' }, 3101],
  ['Content-Type with a major version only', { 'content-type': 'application/vnd.interoperability.transfers+json;version=1' }, 3101],
  ['Content-Type for another resource', { 'content-type': 'application/vnd.interoperability.quotes+json;version=1.1' }, 3101],
  ['Content-Type version 1.0', { 'content-type': 'application/vnd.interoperability.transfers+json;version=1.0' }, null],
  ['Content-Type with spaces around ;', { 'content-type': 'application/vnd.interoperability.transfers+json ; version=1.1' }, null],
  ['Content-Type version 2.0', { 'content-type': 'application/vnd.interoperability.transfers+json;version=2.0' }, null],
  ['Content-Type version 3.0', { 'content-type': 'application/vnd.interoperability.transfers+json;version=3.0' }, 3001],
  ['Content-Type version 1.2', { 'content-type': 'application/vnd.interoperability.transfers+json;version=1.2' }, 3001],
  ['Accept missing where required', { accept: undefined }, 3102],
  ['Accept malformed', { accept: 'application/json' }, 3101],
  ['Accept with a bad version syntax', { accept: 'application/vnd.interoperability.transfers+json;version=one' }, 3101],
  ['Accept for another resource', { accept: 'application/vnd.interoperability.parties+json;version=1' }, 3101],
  ['Accept version=1', { accept: 'application/vnd.interoperability.transfers+json;version=1' }, null],
  ['Accept version=1.0', { accept: 'application/vnd.interoperability.transfers+json;version=1.0' }, null],
  ['Accept without a version', { accept: 'application/vnd.interoperability.transfers+json' }, null],
  ['Accept version 2', { accept: 'application/vnd.interoperability.transfers+json;version=2' }, null],
  ['Accept version 3', { accept: 'application/vnd.interoperability.transfers+json;version=3' }, 3001],
  ['Accept version 1.2', { accept: 'application/vnd.interoperability.transfers+json;version=1.2' }, 3001],
  ['Accept listing 3 and 2.1', { accept: 'application/vnd.interoperability.transfers+json;version=3,application/vnd.interoperability.transfers+json;version=2.1' }, 3001],
  ['Accept listing 2.0 and 1', { accept: 'application/vnd.interoperability.transfers+json;version=2.0, application/vnd.interoperability.transfers+json;version=1' }, null],
  ['Date missing', { date: undefined }, 3102],
  ['Date not a date', { date: 'yesterday' }, 3101],
  ['Date in ISO 8601', { date: '2026-11-21T10:00:00.000Z' }, 3101],
  ['Date on 31 February', { date: 'Tue, 31 Feb 2026 10:00:00 GMT' }, 3101],
  ['Date at hour 24', { date: 'Sat, 21 Nov 2026 24:00:00 GMT' }, 3101],
  ['Date in RFC 850 form', { date: 'Saturday, 21-Nov-26 10:00:00 GMT' }, null],
  ['Date in asctime form', { date: 'Sat Nov 21 10:00:00 2026' }, null],
  ['Date with a numeric zone (RFC 1123)', { date: 'Sat, 21 Nov 2026 12:00:00 +0200' }, null],
  ['FSPIOP-Source missing', { 'fspiop-source': undefined }, 3102],
  ['FSPIOP-Source blank', { 'fspiop-source': '  ' }, 3102],
];

for (const [name, overrides, expected] of HEADER_CASES) {
  test(`headers: ${name} → ${expected ?? 'accepted'}`, () => {
    const found = checkFspiopHeaders(validHeaders(overrides), { resource: 'transfers', required: REQUIRED_ON_POST });
    assert.equal(found?.code ?? null, expected, found?.detail);
    // Mojaloop names the header in lower case (its OpenAPI validation and header plugin), but
    // for a missing Accept, which its header plugin reports in its own words.
    if (found?.code === 3001) assert.match(found.detail, /version/, 'the description says the version is the problem');
    else if (found) assert.match(found.detail, /'?\b(content-type|accept|Accept is required|date|fspiop-source)\b'?/, 'the description names the header');
  });
}

test('headers: Accept is ignored where the operation does not require it (callbacks), checked where it does', () => {
  const callback = ['content-type', 'date', 'fspiop-source'];
  assert.equal(checkFspiopHeaders(validHeaders({ accept: undefined }), { resource: 'transfers', required: callback }), null);
  assert.equal(checkFspiopHeaders(validHeaders({ accept: '*/*' }), { resource: 'transfers', required: callback }), null,
    'an HTTP client\'s default Accept on a PUT callback is not refused');
  const request = [...callback, 'accept'];
  assert.equal(checkFspiopHeaders(validHeaders({ accept: '*/*' }), { resource: 'transfers', required: request }).code, 3101);
  assert.equal(checkFspiopHeaders(validHeaders({ accept: undefined }), { resource: 'transfers', required: request }).code, 3102);
});

test('headers: Accept, Date and Content-Type are checked in Mojaloop\'s order, so the answer does not depend on header order', () => {
  const found = checkFspiopHeaders({ accept: 'bad' }, { resource: 'transfers', required: REQUIRED_ON_POST });
  assert.deepEqual([found.code, found.detail], [3101, 'Invalid accept header']);
  const noDate = checkFspiopHeaders({ accept: ACCEPT }, { resource: 'transfers', required: REQUIRED_ON_POST });
  assert.deepEqual([noDate.code, noDate.detail], [3102, "/header must have required property 'date'"]);
  const noContentType = checkFspiopHeaders({ accept: ACCEPT, date: DATE }, { resource: 'transfers', required: REQUIRED_ON_POST });
  assert.deepEqual([noContentType.code, noContentType.detail], [3102, "/header must have required property 'content-type'"]);
});

test('headers: an unsupported version lists the supported ones', () => {
  const found = checkContentType('application/vnd.interoperability.transfers+json;version=2.1', 'transfers');
  assert.deepEqual(found.supportedVersions, ['1.0', '1.1', '2.0']);
  assert.equal(checkAccept('application/vnd.interoperability.transfers+json;version=3', 'transfers').code, 3001);
});

test('parseHttpDate reads the three RFC 7231 forms to the same instant', () => {
  const instant = Date.UTC(1994, 10, 6, 8, 49, 37);
  assert.equal(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT'), instant);
  assert.equal(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT'), instant);
  assert.equal(parseHttpDate('Sun Nov  6 08:49:37 1994'), instant);
  assert.equal(parseHttpDate('Sun, 06 Nov 1994 10:49:37 +0200'), instant);
  assert.equal(parseHttpDate(new Date(instant).toUTCString()), instant);
  assert.equal(parseHttpDate('06 Nov 1994'), null);
});

test('pickForwardedHeaders keeps only the contract subset', () => {
  const picked = pickForwardedHeaders({ ...validHeaders(), 'fspiop-signature': '{}', traceparent: '00-x', host: 'switch', 'x-custom': '1' });
  assert.deepEqual(Object.keys(picked).sort(), ['accept', 'content-type', 'date', 'fspiop-signature', 'fspiop-source', 'traceparent']);
});

// The same rules through the edge validator, whose required headers come from the spec.
const postTransfer = createRequestValidator({ resource: 'transfers', method: 'POST', path: '/transfers' });
const putTransfer = createRequestValidator({ resource: 'transfers', method: 'PUT', path: '/transfers/{ID}', pathSchemas: { ID: 'CorrelationId' } });
const getTransfer = createRequestValidator({ resource: 'transfers', method: 'GET', path: '/transfers/{ID}', pathSchemas: { ID: 'CorrelationId' } });
const TRANSFER_ID = 'b51ec534-ee48-4575-b6a9-ead2955b8069';
// A minute ahead, as DFSPs set it: the edge refuses an expiration further ahead than a day.
const EXPIRATION = new Date(Date.now() + 60_000).toISOString();
const transfer = (overrides = {}) => ({
  transferId: TRANSFER_ID, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '10.5', currency: 'USD' },
  ilpPacket: 'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4w',
  condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA', expiration: EXPIRATION, ...overrides,
});
const payload = (value) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

test('edge: the spec makes Accept required on POST and GET but not on PUT', () => {
  const headers = validHeaders({ accept: undefined });
  assert.equal(postTransfer({ headers, params: {}, payload: payload(transfer()) }).failure.code, 3102);
  assert.equal(getTransfer({ headers, params: { ID: TRANSFER_ID } }).failure.code, 3102);
  const put = putTransfer({ headers, params: { ID: TRANSFER_ID }, payload: payload({ transferState: 'COMMITTED' }) });
  assert.equal(put.failure, undefined);
  assert.equal(put.body.transferState, 'COMMITTED');
});

test('edge: a valid POST returns the forwarded headers, the parsed body and the exact text', () => {
  const text = '{ "transferId" :"b51ec534-ee48-4575-b6a9-ead2955b8069",\n "payerFsp":"payerfsp",'
    + '"payeeFsp":"payeefsp","amount":{"currency":"USD","amount":"10.5"},"ilpPacket":"AYIB","condition":'
    + `"f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA","expiration":"${EXPIRATION}"}  `;
  const result = postTransfer({ headers: { ...validHeaders(), host: 'x' }, params: {}, payload: payload(text) });
  assert.equal(result.rawBody, text);
  assert.equal(result.body.amount.amount, '10.5');
  assert.equal(result.headers.host, undefined);
});

const BODY_CASES = [
  ['no body', '', 3102],
  ['not JSON', '{"transferId":', 3101],
  ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 3101],
  // A value of the wrong type is malformed syntax, one breaking its pattern or format the
  // generic validation error, as Mojaloop answers them by default.
  ['a JSON array', '[]', 3101],
  ['condition missing', transfer({ condition: undefined }), 3102],
  ['amount with a leading zero', transfer({ amount: { amount: '01', currency: 'USD' } }), 3100],
  ['amount as a JSON number', transfer({ amount: { amount: 10, currency: 'USD' } }), 3101],
  ['condition too short', transfer({ condition: 'abc' }), 3100],
  ['transferId not a UUID', transfer({ transferId: 'transfer-1' }), 3100],
  ['expiration without milliseconds', transfer({ expiration: '2030-01-01T00:00:00Z' }), 3100],
];

for (const [name, body, expected] of BODY_CASES) {
  test(`edge body: ${name} → ${expected}`, () => {
    const result = postTransfer({ headers: validHeaders(), params: {}, payload: Buffer.isBuffer(body) ? body : payload(body) });
    assert.equal(result.failure?.code, expected, JSON.stringify(result.failure?.body ?? result.body));
    assert.equal(result.failure.body.errorInformation.errorCode, String(expected));
  });
}

test('edge body: a violation names the field', () => {
  const missing = postTransfer({ headers: validHeaders(), params: {}, payload: payload(transfer({ condition: undefined })) });
  assert.equal(missing.failure.body.errorInformation.errorDescription, "Missing mandatory element - /requestBody must have required property 'condition'");
  const pattern = postTransfer({ headers: validHeaders(), params: {}, payload: payload(transfer({ amount: { amount: '1.23456', currency: 'USD' } })) });
  assert.match(pattern.failure.body.errorInformation.errorDescription, /^Generic validation error - \/requestBody\/amount\/amount must match pattern/);
});

test('edge: the path ID must be a CorrelationId', () => {
  const result = getTransfer({ headers: validHeaders(), params: { ID: 'not-a-uuid' } });
  assert.equal(result.failure.code, 3100);
  assert.match(result.failure.body.errorInformation.errorDescription, /^Generic validation error - \/path\/ID must match pattern/);
});

test('edge: an unsupported version answers 406 with the versions in the extension list', () => {
  const headers = validHeaders({ 'content-type': 'application/vnd.interoperability.transfers+json;version=3.0' });
  const { failure } = postTransfer({ headers, params: {}, payload: payload(transfer()) });
  assert.equal(failure.httpStatus, 406);
  assert.deepEqual(failure.body.errorInformation.extensionList.extension, [{ key: '1', value: '0' }, { key: '1', value: '1' }, { key: '2', value: '0' }]);
});

test('edge: a route that is not in the specification is a programming error', () => {
  assert.throws(() => createRequestValidator({ resource: 'transfers', method: 'DELETE', path: '/transfers/{ID}' }), /has DELETE \/transfers\/{ID}/);
  assert.throws(() => createRequestValidator({ resource: 'transfers', method: 'GET', path: '/transfers/{ID}', pathSchemas: { Id: 'CorrelationId' } }), /no path parameter Id/);
});
