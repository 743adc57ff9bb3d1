// The exact errorInformation a DFSP gets for bad headers and bodies at every FSPIOP edge
// (transfers, quotes, parties, participants), compared with Mojaloop's own words: those of
// central-services-shared's header plugin, and of its OpenAPI validation as
// central-services-error-handling turns Ajv errors into FSPIOP errors. DFSPs and Mojaloop's
// acceptance tests compare these strings, so they are asserted whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequestValidator } from '../../platform/fspiop/edge.js';
import { schemaKeywordCode } from '../../platform/fspiop/errors.js';

const DATE = 'Sat, 21 Nov 2026 10:00:00 GMT';
const mediaType = (resource, version = '1.1') => `application/vnd.interoperability.${resource}+json;version=${version}`;
const headersFor = (resource, overrides = {}) => {
  const headers = {
    accept: mediaType(resource), 'content-type': mediaType(resource), date: DATE, 'fspiop-source': 'payerfsp',
    'fspiop-destination': 'payeefsp', ...overrides,
  };
  for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
  return headers;
};

const EDGES = {
  transfers: createRequestValidator({ resource: 'transfers', method: 'POST', path: '/transfers' }),
  quotes: createRequestValidator({ resource: 'quotes', method: 'POST', path: '/quotes', requiredHeaders: ['fspiop-destination'] }),
  parties: createRequestValidator({ resource: 'parties', method: 'GET', path: '/parties/{Type}/{ID}' }),
  participants: createRequestValidator({ resource: 'participants', method: 'POST', path: '/participants/{Type}/{ID}' }),
};
const PARAMS = { transfers: {}, quotes: {}, parties: { Type: 'MSISDN', ID: '123' }, participants: { Type: 'MSISDN', ID: '123' } };
const BODIES = {
  transfers: {
    transferId: 'b51ec534-ee48-4575-b6a9-ead2955b8069', payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '10', currency: 'USD' },
    ilpPacket: 'AYIB', condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA', expiration: new Date(Date.now() + 60_000).toISOString(),
  },
  quotes: {
    quoteId: 'b51ec534-ee48-4575-b6a9-ead2955b8069', transactionId: 'a8323bc6-c228-4df2-ae82-e5a997baf899',
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '123', fspId: 'payeefsp' } },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '456', fspId: 'payerfsp' } },
    amountType: 'SEND', amount: { amount: '10', currency: 'USD' },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
  },
  participants: { fspId: 'payerfsp', currency: 'USD' },
};

function answer(resource, { headers = {}, body = BODIES[resource], params = PARAMS[resource] } = {}) {
  const payload = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  const { failure } = EDGES[resource]({ headers: headersFor(resource, headers), params, payload });
  return failure && [failure.httpStatus, failure.body.errorInformation.errorCode, failure.body.errorInformation.errorDescription];
}

const missing = (name) => [400, '3102', `Missing mandatory element - /header must have required property '${name}'`];
const malformed = (name) => [400, '3101', `Malformed syntax - Invalid ${name} header`];

for (const resource of Object.keys(EDGES)) {
  test(`${resource}: a valid request is accepted`, () => {
    assert.equal(answer(resource), undefined);
  });

  test(`${resource}: a missing header is 3102 naming it in lower case, as Mojaloop's OpenAPI validation does; Accept in its header plugin's words`, () => {
    for (const name of ['content-type', 'date', 'fspiop-source']) {
      assert.deepEqual(answer(resource, { headers: { [name]: undefined } }), missing(name), name);
    }
    assert.deepEqual(answer(resource, { headers: { accept: undefined } }), [400, '3102', 'Missing mandatory element - Accept is required']);
  });

  test(`${resource}: a malformed header is 3101 in Mojaloop's header plugin's words`, () => {
    assert.deepEqual(answer(resource, { headers: { accept: 'application/json' } }), malformed('accept'));
    assert.deepEqual(answer(resource, { headers: { 'content-type': 'application/json' } }), malformed('content-type'));
    assert.deepEqual(answer(resource, { headers: { 'content-type': mediaType('other') } }), malformed('content-type'));
    assert.deepEqual(answer(resource, { headers: { date: 'yesterday' } }), malformed('date'));
    assert.deepEqual(answer(resource, { headers: { 'fspiop-source': 'not a fsp' } }), malformed('fspiop-source'));
  });

  test(`${resource}: an unsupported version is 406 3001 in Mojaloop's words`, () => {
    assert.deepEqual(answer(resource, { headers: { accept: mediaType(resource, '3') } }),
      [406, '3001', 'Unacceptable version requested - The Client requested an unsupported version, see extension list for supported version(s).']);
    assert.deepEqual(answer(resource, { headers: { 'content-type': mediaType(resource, '3.0') } }),
      [406, '3001', 'Unacceptable version requested - Client supplied a protocol version which is not supported by the server']);
  });
}

test('quotes: a POST without FSPIOP-Destination is 3102, as Mojaloop\'s quoting service answers', () => {
  assert.deepEqual(answer('quotes', { headers: { 'fspiop-destination': undefined } }), missing('fspiop-destination'));
  assert.equal(answer('transfers', { headers: { 'fspiop-destination': undefined } }), undefined, 'the transfers edge keeps the document\'s rule');
});

test('a missing body element is 3102 naming the property, with its path under /requestBody', () => {
  const { condition, ...noCondition } = BODIES.transfers;
  assert.ok(condition);
  assert.deepEqual(answer('transfers', { body: noCondition }), [400, '3102', "Missing mandatory element - /requestBody must have required property 'condition'"]);
  const payee = { partyIdInfo: { partyIdentifier: '123', fspId: 'payeefsp' } };
  assert.deepEqual(answer('quotes', { body: { ...BODIES.quotes, payee } }),
    [400, '3102', "Missing mandatory element - /requestBody/payee/partyIdInfo must have required property 'partyIdType'"]);
  assert.deepEqual(answer('participants', { body: {} }), [400, '3102', "Missing mandatory element - /requestBody must have required property 'fspId'"]);
  assert.deepEqual(answer('transfers', { body: '' }), [400, '3102', "Missing mandatory element - must have required property 'requestBody'"]);
});

test('a body element of the wrong type is 3101, one breaking its pattern or enumeration 3100, each naming where it is; a body that is not JSON is 3101 in hapi\'s words', () => {
  const amount = { amount: '1.23456', currency: 'USD' };
  const [status, code, description] = answer('transfers', { body: { ...BODIES.transfers, amount } });
  assert.deepEqual([status, code], [400, '3100']);
  assert.match(description, /^Generic validation error - \/requestBody\/amount\/amount must match pattern "/);
  assert.deepEqual(answer('quotes', { body: { ...BODIES.quotes, amount: '10' } }), [400, '3101', 'Malformed syntax - /requestBody/amount must be object']);
  assert.deepEqual(answer('quotes', { body: { ...BODIES.quotes, amountType: 'BOTH' } }),
    [400, '3100', 'Generic validation error - /requestBody/amountType must be equal to one of the allowed values']);
  assert.deepEqual(answer('transfers', { body: '{"transferId":' }), [400, '3101', 'Malformed syntax - Invalid request payload JSON format']);
});

test('a path parameter outside its schema names it under /path', () => {
  const getTransfer = createRequestValidator({ resource: 'transfers', method: 'GET', path: '/transfers/{ID}', pathSchemas: { ID: 'CorrelationId' } });
  const { failure } = getTransfer({ headers: headersFor('transfers'), params: { ID: 'transfer-1' } });
  assert.deepEqual([failure.httpStatus, failure.code], [400, 3100]);
  assert.match(failure.body.errorInformation.errorDescription, /^Generic validation error - \/path\/ID must match pattern "/);
});

test('JSON Schema keywords map to FSPIOP codes as Mojaloop maps them by default', () => {
  const codes = Object.fromEntries(['required', 'additionalProperties', 'type', 'pattern', 'format', 'enum', 'const', 'maxLength', 'minItems']
    .map((keyword) => [keyword, schemaKeywordCode(keyword)]));
  assert.deepEqual(codes, { required: 3102, additionalProperties: 3103, type: 3101, pattern: 3100, format: 3100, enum: 3100, const: 3100, maxLength: 3100, minItems: 3100 });
});
