// The load harness's request to pay, its pure parts: the OTP a payer's DFSP derives for a
// transaction request, the messages both sides build (checked against the FSPIOP v1.1
// documents the switch's edges validate with), and the OTP check of an authorization answer.
import test from 'node:test';
import assert from 'node:assert/strict';
import {
  OTP_RETRIES, authorizationAnswer, authorizationQuery, otpEntered, otpFor, requestQuoteBody, transactionRequestBody,
} from '../../perf/simulators/request-to-pay.js';
import { schemaValidator } from '../../platform/fspiop/openapi.js';
import { authorizationQueryFailure } from '../../quoting/authorization-query.js';
import { NOTIFICATION_RATIO, requestToPayNotificationRatio, sharesFailure } from '../../perf/run.js';

const ID = '0112ab34-5678-4abc-a123-456789abcdef';
const v11 = (schema) => schemaValidator(`#/components/schemas/${schema}`, '1.1');

test('the OTP is six digits, the same for the same payer secret and request, and differs by either', () => {
  const otp = otpFor('perf-secret-perffsp2', ID);
  assert.match(otp, /^\d{6}$/);
  assert.equal(otpFor('perf-secret-perffsp2', ID), otp);
  assert.notEqual(otpFor('perf-secret-perffsp3', ID), otp);
  assert.notEqual(otpFor('perf-secret-perffsp2', ID.replace('0112', '0113')), otp);
  // Leading zeros are kept: an OTP is a string of digits, not a number.
  const otps = Array.from({ length: 2000 }, (_, index) => otpFor('s', `${index}`));
  assert.ok(otps.every((value) => value.length === 6));
  assert.ok(otps.some((value) => value.startsWith('0')));
});

test('the merchant\'s transaction request is a valid TransactionRequestsPostRequest naming both DFSPs, with OTP only when asked', () => {
  const base = { transactionRequestId: ID, merchant: 'perffsp1', payerFsp: 'perffsp2', msisdn: '2010000005', amount: '1', currency: 'USD', expiration: '2026-11-27T17:00:00.000Z' };
  const plain = transactionRequestBody(base);
  assert.ok(v11('TransactionRequestsPostRequest')(plain), JSON.stringify(v11('TransactionRequestsPostRequest').errors));
  assert.equal(plain.payee.partyIdInfo.fspId, 'perffsp1');
  assert.deepEqual(plain.payer, { partyIdType: 'MSISDN', partyIdentifier: '2010000005', fspId: 'perffsp2' });
  assert.deepEqual(plain.transactionType, { scenario: 'PAYMENT', initiator: 'PAYEE', initiatorType: 'BUSINESS' });
  assert.equal(plain.authenticationType, undefined);
  const withOtp = transactionRequestBody({ ...base, otp: true });
  assert.equal(withOtp.authenticationType, 'OTP');
  assert.ok(v11('TransactionRequestsPostRequest')(withOtp));
  const { transactionType, ...untyped } = plain;
  assert.equal(v11('TransactionRequestsPostRequest')(untyped), false, 'the document does check what is built');
  assert.ok(transactionType);
});

test('the payer\'s quote names the transaction request, pays the merchant what it asked, and is a valid QuotesPostRequest', () => {
  const request = transactionRequestBody({ transactionRequestId: ID, merchant: 'm', payerFsp: 'p', msisdn: '2010000005', amount: '12.5', currency: 'USD', expiration: '2026-11-27T17:00:00.000Z' });
  const quote = requestQuoteBody(request, { quoteId: ID.replace('0112', '0222'), transactionId: ID.replace('0112', '0333'), expiration: '2026-11-27T17:00:00.000Z' });
  assert.ok(v11('QuotesPostRequest')(quote), JSON.stringify(v11('QuotesPostRequest').errors));
  assert.equal(quote.transactionRequestId, ID);
  assert.deepEqual([quote.amountType, quote.amount, quote.payee, quote.payer.partyIdInfo], ['RECEIVE', request.amount, request.payee, request.payer]);
  assert.equal(quote.transactionType.initiator, 'PAYEE');
});

test('the authorization\'s query passes the quoting edge\'s check, and its answer is a valid AuthorizationsIDPutResponse', () => {
  const query = authorizationQuery({ retriesLeft: OTP_RETRIES, amount: { amount: '1', currency: 'USD' } });
  assert.deepEqual(query, { authenticationType: 'OTP', retriesLeft: String(OTP_RETRIES), amount: '1', currency: 'USD' });
  assert.equal(authorizationQueryFailure(query, 'application/vnd.interoperability.authorizations+json;version=1.1'), null);
  assert.equal(authorizationQueryFailure(authorizationQuery({ retriesLeft: 0, amount: { amount: '1', currency: 'USD' } }), 'application/vnd.interoperability.authorizations+json;version=1.1'), null);
  const answer = authorizationAnswer(otpFor('s', ID));
  assert.ok(v11('AuthorizationsIDPutResponse')(answer), JSON.stringify(v11('AuthorizationsIDPutResponse').errors));
});

test('only the expected OTP, entered, approves', () => {
  const otp = otpFor('s', ID);
  assert.equal(otpEntered(authorizationAnswer(otp), otp), true);
  assert.equal(otpEntered(authorizationAnswer('000000'), otp === '000000' ? '111111' : otp), false);
  assert.equal(otpEntered({ ...authorizationAnswer(otp), responseType: 'REJECTED' }, otp), false);
  assert.equal(otpEntered({ responseType: 'ENTERED' }, otp), false);
  assert.equal(otpEntered(undefined, otp), false);
});

test('the notifications per prepare the gate expects: a request to pay adds 3 to its payment\'s, 2 more by OTP', () => {
  assert.equal(requestToPayNotificationRatio('full', 100, 0), NOTIFICATION_RATIO.full, 'none: the plain ratio');
  // 60 plain (4 each), 40 requests to pay (7 each), 10 of them by OTP (2 more each): 540 over 100.
  assert.equal(requestToPayNotificationRatio('full', 100, 0, { requestsToPay: 40, withOtp: 10 }), 540 / 100);
  // With 20 conversions besides (10 each, two prepares each): 40 plain + 40 requests to pay + 20 conversions.
  assert.equal(requestToPayNotificationRatio('quote-transfer', 100, 20, { requestsToPay: 40 }), (4 * 80 + 9 * 20 + 3 * 40) / 120);
  assert.equal(requestToPayNotificationRatio('full', 0, 0, { requestsToPay: 0 }), NOTIFICATION_RATIO.full);
});

test('shares: each between 0 and 1, together at most 1, and no request to pay in mode transfer', () => {
  assert.equal(sharesFailure({ mode: 'full', conversionShare: 0.2, rtpShare: 0.3, rtpOtpShare: 0.5 }), null);
  assert.equal(sharesFailure({ mode: 'transfer', conversionShare: 0.2 }), null);
  assert.match(sharesFailure({ mode: 'transfer', rtpShare: 0.1 }), /mode transfer/);
  assert.match(sharesFailure({ mode: 'full', conversionShare: 0.6, rtpShare: 0.5 }), /at most 1/);
  assert.match(sharesFailure({ mode: 'full', rtpShare: 1.5 }), /between 0 and 1/);
  assert.match(sharesFailure({ mode: 'full', rtpShare: 0.1, rtpOtpShare: -1 }), /between 0 and 1/);
  assert.match(sharesFailure({ mode: 'full', conversionShare: Number.NaN }), /between 0 and 1/);
});
