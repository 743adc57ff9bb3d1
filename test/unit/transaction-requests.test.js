// Request to pay as pure decisions (quoting/domain/transaction-requests.js, authorizations.js,
// the quote's link in quotes.js) and their notification events (quoting/handler/records.js):
// who may ask and answer a transaction request, who may ask and answer its authorization and
// how an authorization is asked again round after round, and which quote may pay a
// transaction request; and whom a dead-lettered authorization answer is reported to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { QUOTE_OUTCOME, QUOTE_STATE, decideQuoteBatch, transactionRequestLinks } from '../../quoting/domain/quotes.js';
import { decideTransactionRequestBatch } from '../../quoting/domain/transaction-requests.js';
import { decideAuthorizationBatch } from '../../quoting/domain/authorizations.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { fspiopCodeOf } from '../../platform/fspiop/errors.js';
import { authorizationNotificationRecords } from '../../quoting/handler/records.js';
import { decodeEvent } from '../../platform/kafka/envelope.js';
import { createQuoteDeadLetterFinisher } from '../../quoting/handler/dead-letters.js';

const PARTIES = new Map([['merchantfsp', { isActive: true }], ['walletfsp', { isActive: true }], ['otherfsp', { isActive: true }], ['sleepyfsp', { isActive: false }]]);

function event(type, action, id, { from, to, body, query, at = 1000 }) {
  const headers = { 'fspiop-source': from, ...(to ? { 'fspiop-destination': to } : {}) };
  return {
    id, type, action, from, to, headers, body, rawBody: body === undefined ? undefined : JSON.stringify(body), at,
    ...(query ? { query, search: `?${new URLSearchParams(query)}` } : {}),
  };
}

function transactionRequestBody(id, { payee = 'merchantfsp', payer = 'walletfsp' } = {}) {
  return {
    transactionRequestId: id,
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '1', fspId: payee } },
    payer: { partyIdType: 'MSISDN', partyIdentifier: '2', fspId: payer },
    amount: { amount: '10', currency: 'USD' },
    transactionType: { scenario: 'PAYMENT', initiator: 'PAYEE', initiatorType: 'BUSINESS' },
  };
}

const trEvent = (action, id, options) => event('transactionRequest', action, id, options);
const authEvent = (action, id, options) => event('authorization', action, id, options);
const codeOf = (outcome) => fspiopCodeOf(outcome.failure.code);
const decideRequests = (events, records = new Map()) => decideTransactionRequestBatch({ events, transactionRequests: records, participants: PARTIES, persist: true });

test('a transaction request goes from the payee DFSP to the payer DFSP; body parties naming others are 3100, unknown or inactive DFSPs 3203 / 3202', () => {
  const id = randomUUID();
  const ok = decideRequests([trEvent('request', id, { from: 'merchantfsp', to: 'walletfsp', body: transactionRequestBody(id) })]);
  assert.deepEqual(ok.outcomes.map((outcome) => [outcome.type, outcome.to]), [[QUOTE_OUTCOME.forwardRequest, 'walletfsp']]);
  assert.deepEqual([ok.inserts[0].payeeFsp, ok.inserts[0].payerFsp, ok.inserts[0].request.amount], ['merchantfsp', 'walletfsp', '10']);

  const cases = [
    [{ from: 'otherfsp', to: 'walletfsp' }, 3100, /payee.partyIdInfo.fspId merchantfsp is not the sender otherfsp/],
    [{ from: 'merchantfsp', to: 'otherfsp' }, 3100, /payer.fspId walletfsp is not the FSPIOP-Destination otherfsp/],
  ];
  for (const [parties, code, wording] of cases) {
    const refused = decideRequests([trEvent('request', id, { ...parties, body: transactionRequestBody(id) })]);
    assert.equal(codeOf(refused.outcomes[0]), code);
    assert.match(refused.outcomes[0].failure.detail, wording);
    assert.deepEqual(refused.inserts, []);
  }
  const inactivePayer = decideRequests([trEvent('request', id, { from: 'merchantfsp', to: 'sleepyfsp', body: transactionRequestBody(id, { payer: 'sleepyfsp' }) })]);
  assert.equal(codeOf(inactivePayer.outcomes[0]), 3202);
  const unknownPayee = decideRequests([trEvent('request', id, { from: 'ghostfsp', to: 'walletfsp', body: transactionRequestBody(id, { payee: 'ghostfsp' }) })]);
  assert.equal(codeOf(unknownPayee.outcomes[0]), 3203);
});

test('only the payer DFSP answers a transaction request, only to the payee DFSP', () => {
  const id = randomUUID();
  const { inserts: [record] } = decideRequests([trEvent('request', id, { from: 'merchantfsp', to: 'walletfsp', body: transactionRequestBody(id) })]);
  const records = new Map([[id, record]]);
  const answer = { transactionRequestState: 'RECEIVED' };
  const impostor = decideRequests([trEvent('response', id, { from: 'otherfsp', to: 'merchantfsp', body: answer })], records);
  assert.deepEqual(impostor.outcomes.map((outcome) => [outcome.to, codeOf(outcome)]), [['otherfsp', 3100]]);
  const elsewhere = decideRequests([trEvent('response', id, { from: 'walletfsp', to: 'otherfsp', body: answer })], records);
  assert.deepEqual(elsewhere.outcomes.map((outcome) => [outcome.to, codeOf(outcome)]), [['walletfsp', 3100]]);
  const genuine = decideRequests([trEvent('response', id, { from: 'walletfsp', to: 'merchantfsp', body: answer })], records);
  assert.deepEqual(genuine.outcomes.map((outcome) => [outcome.type, outcome.to]), [[QUOTE_OUTCOME.forwardAnswer, 'merchantfsp']]);
  assert.equal(genuine.updates[0].changes.state, QUOTE_STATE.answered);
});

const storedRequest = (id) => ({ transactionRequestId: id, payeeFsp: 'merchantfsp', payerFsp: 'walletfsp', state: QUOTE_STATE.answered });
const QUERY = Object.freeze({ authenticationType: 'OTP', retriesLeft: '2', amount: '10', currency: 'USD' });
const decideAuthorizations = (events, { authorizations = new Map(), transactionRequests } = {}) => decideAuthorizationBatch({
  events, authorizations, transactionRequests, participants: PARTIES, persist: true,
});

test('an authorization is asked only by the payer DFSP the transaction request went to, of the payee DFSP that sent it, for a request the switch relayed', () => {
  const id = randomUUID();
  const transactionRequests = new Map([[id, storedRequest(id)]]);
  const ask = (from, to, requestId = id) => decideAuthorizations([authEvent('request', requestId, { from, to, query: QUERY })], { transactionRequests });
  const ok = ask('walletfsp', 'merchantfsp');
  assert.deepEqual(ok.outcomes.map((outcome) => [outcome.type, outcome.to]), [[QUOTE_OUTCOME.forwardRequest, 'merchantfsp']]);
  assert.deepEqual([ok.inserts[0].payerFsp, ok.inserts[0].payeeFsp, ok.inserts[0].request.retriesLeft], ['walletfsp', 'merchantfsp', '2']);
  assert.deepEqual(ask('otherfsp', 'merchantfsp').outcomes.map((outcome) => [outcome.to, codeOf(outcome)]), [['otherfsp', 3100]]);
  assert.deepEqual(ask('walletfsp', 'otherfsp').outcomes.map((outcome) => [outcome.to, codeOf(outcome)]), [['walletfsp', 3100]]);
  const unknown = ask('walletfsp', 'merchantfsp', randomUUID());
  assert.equal(unknown.outcomes[0].failure.code, FAILURE.transactionRequestNotFound);
  assert.equal(codeOf(unknown.outcomes[0]), 3206);
});

test('an authorization round: a resend in flight is ignored, a changed ask in flight is 3106, the redelivered record is forwarded again; after the answer any ask is a new round', () => {
  const id = randomUUID();
  const transactionRequests = new Map([[id, storedRequest(id)]]);
  const { inserts: [record] } = decideAuthorizations([authEvent('request', id, { from: 'walletfsp', to: 'merchantfsp', query: QUERY })], { transactionRequests });
  const authorizations = new Map([[id, record]]);
  const again = (query, at = 2000) => decideAuthorizations([authEvent('request', id, { from: 'walletfsp', to: 'merchantfsp', query, at })], { authorizations, transactionRequests });
  assert.deepEqual(again(QUERY).outcomes, []);
  assert.equal(codeOf(again({ ...QUERY, retriesLeft: '1' }).outcomes[0]), 3106);
  assert.deepEqual(again(QUERY, 1000).outcomes.map((outcome) => outcome.type), [QUOTE_OUTCOME.forwardRequest]);

  const answer = { authenticationInfo: { authentication: 'OTP', authenticationValue: '111111' }, responseType: 'ENTERED' };
  const answered = decideAuthorizations([authEvent('response', id, { from: 'merchantfsp', to: 'walletfsp', body: answer, at: 3000 })], { authorizations, transactionRequests });
  assert.deepEqual(answered.outcomes.map((outcome) => [outcome.type, outcome.to]), [[QUOTE_OUTCOME.forwardAnswer, 'walletfsp']]);
  authorizations.set(id, { ...record, ...answered.updates[0].changes });
  const retry = again({ ...QUERY, retriesLeft: '1' }, 4000);
  assert.deepEqual(retry.outcomes.map((outcome) => [outcome.type, outcome.to]), [[QUOTE_OUTCOME.forwardRequest, 'merchantfsp']]);
  assert.deepEqual([retry.updates[0].changes.state, retry.updates[0].changes.answerHash, retry.updates[0].changes.answer], [QUOTE_STATE.forwarded, null, null]);
  assert.notEqual(retry.updates[0].changes.requestHash, record.requestHash);
  const resend = again(QUERY, 4000);
  assert.deepEqual(resend.outcomes.map((outcome) => outcome.type), [QUOTE_OUTCOME.forwardRequest], 'a resend of the OTP after an answer is a new round too');
  const impostor = decideAuthorizations([authEvent('response', id, { from: 'otherfsp', to: 'walletfsp', body: answer })], { authorizations, transactionRequests });
  assert.deepEqual(impostor.outcomes.map((outcome) => [outcome.to, codeOf(outcome)]), [['otherfsp', 3100]]);
});

test('the payer DFSP\'s ask reaches the payee DFSP as a GET with its query; the hub\'s refusal goes back as PUT …/error', () => {
  const id = randomUUID();
  const ask = authEvent('request', id, { from: 'walletfsp', to: 'merchantfsp', query: QUERY });
  const outcomes = [
    { type: QUOTE_OUTCOME.forwardRequest, transactionRequestId: id, to: 'merchantfsp', message: ask },
    { type: QUOTE_OUTCOME.error, transactionRequestId: id, to: 'otherfsp', failure: { code: FAILURE.validation, detail: 'no' } },
  ];
  const [forward, refusal] = authorizationNotificationRecords({ notificationEvent: 'n' }, outcomes, 'Hub', [ask]).map((record) => decodeEvent(record.value));
  assert.deepEqual([forward.callback.method, forward.callback.path, forward.callback.endpointType], ['GET', `/authorizations/${id}?${new URLSearchParams(QUERY)}`, 'FSPIOP_CALLBACK_URL_AUTHORIZATIONS']);
  assert.equal(forward.ifUndeliverable.callback.path, `/authorizations/${id}/error`);
  assert.deepEqual([refusal.callback.method, refusal.callback.path, refusal.from], ['PUT', `/authorizations/${id}/error`, 'Hub']);
});

test('a quote naming a transaction request must be asked by its payer DFSP of its payee DFSP (3100), of one the switch relayed (3206); it is then linked', () => {
  const trId = randomUUID();
  const transactionRequests = new Map([[trId, storedRequest(trId)]]);
  const quote = (from, to, transactionRequestId = trId) => {
    const quoteId = randomUUID();
    const body = { quoteId, transactionId: randomUUID(), transactionRequestId };
    return event('quote', 'request', quoteId, { from, to, body });
  };
  const decide = (events) => decideQuoteBatch({ events, quotes: new Map(), participants: PARTIES, persist: false, transactionRequests });
  const ok = quote('walletfsp', 'merchantfsp');
  const decided = decide([ok]);
  assert.deepEqual(decided.outcomes.map((outcome) => outcome.type), [QUOTE_OUTCOME.forwardRequest]);
  assert.deepEqual(transactionRequestLinks(decided, [ok]), [{ transactionRequestId: trId, changes: { quoteId: ok.id, transactionId: ok.body.transactionId } }]);
  const foreign = decide([quote('otherfsp', 'merchantfsp')]);
  assert.equal(codeOf(foreign.outcomes[0]), 3100);
  assert.match(foreign.outcomes[0].failure.detail, /was sent by merchantfsp to walletfsp/);
  assert.equal(codeOf(decide([quote('walletfsp', 'merchantfsp', randomUUID())]).outcomes[0]), 3206);
  assert.deepEqual(transactionRequestLinks(foreign, []), []);
});

test('a dead-lettered authorization answer tells its sender 2001, and the payer DFSP too when the sender is the payee DFSP asked', async () => {
  const id = randomUUID();
  const row = {
    transaction_request_id: id, payer_fsp: 'walletfsp', payee_fsp: 'merchantfsp', state: 'FORWARDED', request_hash: 'h', request_at: '1000',
    answer_hash: null, answer_at: null, answer_error_code: null, answer_headers: null, answer_body: null,
  };
  // The finisher reads the authorization through runStatement (platform/db.js): a knex-like raw() answering the authorization read.
  const db = { raw: async (sql) => { assert.match(sql, /FROM `authorization`/); return [[row]]; } };
  const finish = createQuoteDeadLetterFinisher({ db, topics: { notificationEvent: 'notifications' }, hubName: 'Hub' });
  const toldOf = async (from) => (await finish(authEvent('response', id, { from, to: 'walletfsp', body: { responseType: 'ENTERED' } })))
    .map((record) => decodeEvent(record.value)).map((told) => [told.to, told.callback.path, told.callback.endpointType, told.body.errorInformation.errorCode]);
  const path = `/authorizations/${id}/error`;
  assert.deepEqual(await toldOf('merchantfsp'), [['merchantfsp', path, 'FSPIOP_CALLBACK_URL_AUTHORIZATIONS', '2001'], ['walletfsp', path, 'FSPIOP_CALLBACK_URL_AUTHORIZATIONS', '2001']]);
  assert.deepEqual(await toldOf('otherfsp'), [['otherfsp', path, 'FSPIOP_CALLBACK_URL_AUTHORIZATIONS', '2001']]);
});
