// The input limits every FSPIOP edge applies before anything is produced, checked as pure
// functions and through the shared request validator: dates within 1970-9999 in UTC and an
// expiration not too far ahead, amounts within the ISO 4217 minor units of the currencies a
// scheme holds to them, JSON
// depth, FSPIOP-Source as an FspId, forwarded header sizes; the request hash on
// deep input; and the produce deadlines derived from one setting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequestValidator } from '../../platform/fspiop/edge.js';
import {
  JSON_DEPTH_MAX, currencyDecimals, dateTimeWithinWindow, exceedsJsonDepth, moneyProblem,
} from '../../platform/fspiop/input-limits.js';
import { checkFspiopHeaders, FORWARDED_HEADER_CHARS_MAX } from '../../platform/fspiop/headers.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { loadConfig } from '../../platform/config.js';
import { producerConfig } from '../../platform/kafka/producer.js';

const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
const DAY_MS = 24 * 60 * 60 * 1000;
const TRANSFER_ID = 'b51ec534-ee48-4575-b6a9-ead2955b8069';
const CONDITION = 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA';

const headersFor = (resource, overrides = {}) => ({
  'content-type': `application/vnd.interoperability.${resource}+json;version=1.1`,
  accept: `application/vnd.interoperability.${resource}+json;version=1.1`,
  date: new Date(NOW_MS).toUTCString(),
  'fspiop-source': 'payerfsp',
  'fspiop-destination': 'payeefsp',
  ...overrides,
});
const transfer = (overrides = {}) => ({
  transferId: TRANSFER_ID, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '10.5', currency: 'USD' },
  ilpPacket: 'AYIB', condition: CONDITION, expiration: new Date(NOW_MS + 60_000).toISOString(), ...overrides,
});
const quote = (overrides = {}) => ({
  quoteId: TRANSFER_ID, transactionId: '7e6e5f4a-1b2c-4d3e-8f9a-0b1c2d3e4f5a',
  payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '123', fspId: 'payeefsp' } },
  payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '456', fspId: 'payerfsp' } },
  amountType: 'SEND', amount: { amount: '10', currency: 'USD' },
  transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
  expiration: new Date(NOW_MS + 60_000).toISOString(), ...overrides,
});

const postTransfer = createRequestValidator({ resource: 'transfers', method: 'POST', path: '/transfers' });
const STRICT = new Set(['USD', 'JPY', 'BHD']);
const strictTransfer = createRequestValidator({ resource: 'transfers', method: 'POST', path: '/transfers', limits: { minorUnitCurrencies: STRICT } });
const putTransfer = createRequestValidator({ resource: 'transfers', method: 'PUT', path: '/transfers/{ID}', pathSchemas: { ID: 'CorrelationId' } });
const postQuote = createRequestValidator({ resource: 'quotes', method: 'POST', path: '/quotes', limits: { expirationAheadMaxMs: 60 * 60 * 1000, minorUnitCurrencies: STRICT } });

const send = (validate, resource, body, { headers = {}, params = {} } = {}) => validate({
  headers: headersFor(resource, headers), params, payload: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)), info: { received: NOW_MS },
});
const failureOf = (result) => result.failure && { code: result.failure.code, text: result.failure.body.errorInformation.errorDescription };

function nestedArrays(depth) {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

test('a DateTime counts in UTC: inside 1970 to 9999 in every offset, outside it refused', () => {
  assert.equal(dateTimeWithinWindow('9999-12-31T23:59:59.999-01:00'), null, 'year 10000 in UTC');
  assert.equal(dateTimeWithinWindow('1970-01-01T00:30:00.000+01:00'), null, '1969 in UTC');
  assert.equal(dateTimeWithinWindow('1000-01-01T00:00:00.000Z'), null);
  assert.equal(dateTimeWithinWindow('9999-12-31T23:59:59.999Z'), Date.UTC(9999, 11, 31, 23, 59, 59, 999));
  assert.equal(dateTimeWithinWindow('9999-12-31T23:59:59.999+14:00') !== null, true);
  assert.equal(dateTimeWithinWindow('1970-01-01T00:00:00.000Z'), 0);
});

test('POST /transfers: an expiration in year 10000 once in UTC is 3100 naming the field', () => {
  const result = failureOf(send(postTransfer, 'transfers', transfer({ expiration: '9999-12-31T23:59:59.999-01:00' })));
  assert.equal(result?.code, 3100);
  assert.match(result.text, /\/expiration/);
});

test('an expiration more than the setting ahead is 3100; within it is accepted', () => {
  const tooFar = failureOf(send(postTransfer, 'transfers', transfer({ expiration: new Date(NOW_MS + DAY_MS + 1000).toISOString() })));
  assert.equal(tooFar?.code, 3100);
  assert.match(tooFar.text, /expiration .* ahead/);
  assert.equal(send(postTransfer, 'transfers', transfer({ expiration: new Date(NOW_MS + DAY_MS - 1000).toISOString() })).failure, undefined);
  // The quotes validator above was given one hour.
  const quoteTooFar = failureOf(send(postQuote, 'quotes', quote({ expiration: new Date(NOW_MS + 2 * 60 * 60 * 1000).toISOString() })));
  assert.equal(quoteTooFar?.code, 3100);
  assert.equal(send(postQuote, 'quotes', quote()).failure, undefined);
});

test('PUT /transfers: a completedTimestamp outside the window is 3100 naming the field', () => {
  const body = { transferState: 'COMMITTED', fulfilment: 'x'.repeat(43), completedTimestamp: '9999-12-31T23:59:59.999-01:00' };
  const result = failureOf(send(putTransfer, 'transfers', body, { params: { ID: TRANSFER_ID } }));
  assert.equal(result?.code, 3100);
  assert.match(result.text, /completedTimestamp/);
});

test('amounts within the ISO 4217 minor units of a currency the scheme holds to them, kept as strings', () => {
  assert.deepEqual([currencyDecimals('USD'), currencyDecimals('JPY'), currencyDecimals('BHD')], [2, 0, 3]);
  assert.equal(moneyProblem({ currency: 'USD', amount: '0.01' }, STRICT), null);
  assert.match(moneyProblem({ currency: 'USD', amount: '0.0001' }, STRICT), /4 decimals, USD allows 2/);
  assert.match(moneyProblem({ currency: 'JPY', amount: '1.5' }, STRICT), /JPY allows 0/);
  assert.equal(moneyProblem({ currency: 'JPY', amount: '15' }, STRICT), null);
  assert.equal(moneyProblem({ currency: 'BHD', amount: '1.234' }, STRICT), null);
  assert.ok(moneyProblem({ currency: 'BHD', amount: '1.2345' }, STRICT));
  // The largest amount the Amount pattern allows stays exact: no Number is involved.
  assert.equal(moneyProblem({ currency: 'USD', amount: '999999999999999999.99' }, STRICT), null);
  // A currency the scheme does not hold to its minor units takes the Amount's four decimals.
  assert.equal(moneyProblem({ currency: 'USD', amount: '100.1234' }), null);
  assert.equal(moneyProblem({ currency: 'EUR', amount: '0.0001' }, STRICT), null);
});

test('through the validator: four decimals by default; USD 0.0001, JPY 1.5 and a quote fee finer than a held currency are 3100', () => {
  assert.equal(send(postTransfer, 'transfers', transfer({ amount: { amount: '100.1234', currency: 'USD' } })).failure, undefined);
  assert.equal(send(postTransfer, 'transfers', transfer({ amount: { amount: '1.5', currency: 'JPY' } })).failure, undefined);
  const usd = failureOf(send(strictTransfer, 'transfers', transfer({ amount: { amount: '0.0001', currency: 'USD' } })));
  assert.equal(usd?.code, 3100);
  assert.match(usd.text, /\/amount/);
  assert.equal(failureOf(send(strictTransfer, 'transfers', transfer({ amount: { amount: '1.5', currency: 'JPY' } })))?.code, 3100);
  assert.equal(send(strictTransfer, 'transfers', transfer({ amount: { amount: '15', currency: 'JPY' } })).failure, undefined);
  const fee = failureOf(send(postQuote, 'quotes', quote({ fees: { amount: '0.001', currency: 'USD' } })));
  assert.equal(fee?.code, 3100);
  assert.match(fee.text, /\/fees/);
});

test('JSON depth is measured without recursion and bounded at the edge', () => {
  assert.equal(exceedsJsonDepth(JSON.parse(nestedArrays(JSON_DEPTH_MAX))), false);
  assert.equal(exceedsJsonDepth(JSON.parse(nestedArrays(JSON_DEPTH_MAX + 1))), true);
  assert.equal(exceedsJsonDepth(JSON.parse(nestedArrays(100_000))), true);
  const text = JSON.stringify(transfer()).replace(/}$/, `,"padding":${nestedArrays(4500)}}`);
  const result = failureOf(send(postTransfer, 'transfers', text));
  assert.equal(result?.code, 3100);
  assert.match(result.text, /deeper than 32 levels/);
});

test('the request hash takes deep input and keeps its output for normal bodies', () => {
  let deep = [];
  for (let level = 0; level < 100_000; level += 1) deep = [deep];
  assert.equal(typeof requestHash(deep), 'string');
  // The same content in any key order hashes the same, and this value is the recursive form's.
  const body = { b: [1, { z: null, a: 'é"' }], a: { amount: '1.5', currency: 'USD' } };
  assert.equal(requestHash(body), requestHash({ a: { currency: 'USD', amount: '1.5' }, b: [1, { a: 'é"', z: null }] }));
  assert.equal(requestHash(body), 'V4aDuYR8oFWsndq2pbmYSp0PYwuYdbFn_9hR4VaWf7A');
});

test('FSPIOP-Source must be an FspId: commas and 33 characters are 3101, any forwarded header over 4096 is 3100; FSPIOP-Destination is any name', () => {
  const check = (headers) => checkFspiopHeaders(headersFor('transfers', headers), { resource: 'transfers', required: ['fspiop-source'] });
  assert.equal(check({}), null);
  assert.equal(check({ 'fspiop-source': ','.repeat(1000) })?.code, 3101);
  assert.equal(check({ 'fspiop-source': ','.repeat(5000) })?.code, 3100, 'longer than any forwarded header may be');
  assert.equal(check({ 'fspiop-source': 'a'.repeat(33) })?.code, 3101);
  assert.equal(check({ 'fspiop-source': 'a'.repeat(32) }), null);
  // A destination that names no DFSP is answered by callback, as an unknown DFSP is.
  assert.equal(check({ 'fspiop-destination': 'payee fsp' }), null);
  const long = check({ tracestate: 'x'.repeat(FORWARDED_HEADER_CHARS_MAX + 1) });
  assert.equal(long?.code, 3100);
  assert.match(long.detail, /^tracestate header/);
});

test('the producer gives a record up before the edge answers "not stored", from one setting', () => {
  assert.throws(() => loadConfig({ KAFKA_PRODUCE_TIMEOUT_MS: '1999' }, { usesDatabase: false }), /between 2000/);
  for (const value of ['2000', '4000', '10000', '600000']) {
    const { kafka } = loadConfig({ KAFKA_PRODUCE_TIMEOUT_MS: value }, { usesDatabase: false });
    assert.equal(kafka.produceTimeoutMs, Number(value));
    assert.ok(kafka.messageTimeoutMs >= 1, 'librdkafka reads 0 as no timeout at all');
    // librdkafka reports a timed-out record up to a second late (it scans once a second).
    assert.ok(kafka.enqueueTimeoutMs + kafka.messageTimeoutMs + 1000 < kafka.produceTimeoutMs,
      `enqueue ${kafka.enqueueTimeoutMs} + delivery ${kafka.messageTimeoutMs} before the answer at ${kafka.produceTimeoutMs}`);
    assert.equal(producerConfig(kafka)['message.timeout.ms'], kafka.messageTimeoutMs);
    assert.equal(producerConfig(kafka)['topic.metadata.propagation.max.ms'], kafka.messageTimeoutMs);
  }
  const { inputLimits } = loadConfig({ EXPIRATION_AHEAD_MAX_MS: '3600000' }, { usesDatabase: false });
  assert.equal(inputLimits.expirationAheadMaxMs, 3_600_000);
  assert.equal(loadConfig({}, { usesDatabase: false }).inputLimits.expirationAheadMaxMs, DAY_MS);
  assert.deepEqual([...loadConfig({}, { usesDatabase: false }).inputLimits.minorUnitCurrencies], []);
  assert.deepEqual([...loadConfig({ AMOUNT_MINOR_UNITS_CURRENCIES: 'JPY, BHD' }, { usesDatabase: false }).inputLimits.minorUnitCurrencies], ['JPY', 'BHD']);
  assert.throws(() => loadConfig({ AMOUNT_MINOR_UNITS_CURRENCIES: 'JPY,XYZ' }, { usesDatabase: false }), /names no ISO 4217 currency: XYZ/);
});
