// The quoting decisions (quoting/domain/quotes.js) and their notification events
// (quoting/handler/records.js), as pure functions: DFSP checks, duplicate classification,
// redelivery replays, persistence on and off, GET answered from the stored quote.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { QUOTE_OUTCOME, QUOTE_STATE, decideQuoteBatch } from '../../quoting/domain/quotes.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { FSPIOP_ERRORS, fspiopCodeOf } from '../../platform/fspiop/errors.js';
import { quoteNotificationEvent } from '../../quoting/handler/records.js';
import { decodeEvent, encodeEvent } from '../../platform/kafka/envelope.js';

const ACTIVE = new Map([['payerfsp', { isActive: true }], ['payeefsp', { isActive: true }], ['sleepyfsp', { isActive: false }], ['otherfsp', { isActive: true }]]);

function requestBody(quoteId, amount = '100') {
  return {
    quoteId, transactionId: randomUUID(), amountType: 'SEND', amount: { amount, currency: 'USD' },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '111', fspId: 'payerfsp' } },
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '222', fspId: 'payeefsp' } },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
    expiration: '2030-01-01T00:00:00.000Z',
  };
}

const answerBody = { transferAmount: { amount: '100', currency: 'USD' }, expiration: '2030-01-01T00:00:00.000Z', ilpPacket: 'AYIB', condition: 'c'.repeat(43) };
const errorBody = { errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected quote' } };

function event(action, id, { from = 'payerfsp', to = 'payeefsp', body, at = 1000 } = {}) {
  const headers = { 'fspiop-source': from, ...(to ? { 'fspiop-destination': to } : {}), date: 'Sat, 21 Nov 2026 10:00:00 GMT' };
  return { id, type: 'quote', action, from, to, headers, body, rawBody: body === undefined ? undefined : JSON.stringify(body, null, 1), at };
}

function storedQuote(quoteId, body, overrides = {}) {
  return {
    quoteId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', state: QUOTE_STATE.forwarded, requestHash: requestHash(body),
    requestAt: 1000, answerHash: null, answerAt: null, answer: null, ...overrides,
  };
}

const answered = (quoteId, body, persist = true) => storedQuote(quoteId, body, {
  state: QUOTE_STATE.answered, answerHash: requestHash(answerBody), answerAt: 2000,
  answer: persist ? { headers: { 'fspiop-source': 'payeefsp', 'fspiop-signature': 'sig' }, rawBody: ' {"stored":true}', condition: 'c', errorCode: null } : null,
});

const decide = (events, quotes = [], persist = true, participants = ACTIVE) =>
  decideQuoteBatch({ events, quotes: new Map(quotes.map((quote) => [quote.quoteId, quote])), participants, persist });

test('a new quote request is stored FORWARDED and forwarded to the payee with the payer\'s bytes', () => {
  const id = randomUUID();
  const request = event('request', id, { body: requestBody(id, '12.5') });
  const result = decide([request]);
  assert.equal(result.inserts.length, 1);
  const [row] = result.inserts;
  assert.deepEqual([row.payerFsp, row.payeeFsp, row.state, row.requestAt, row.answerHash], ['payerfsp', 'payeefsp', 'FORWARDED', 1000, null]);
  assert.equal(row.request.rawBody, request.rawBody);
  assert.deepEqual([row.request.amount, row.request.currency, row.request.transactionId], ['12.5', 'USD', request.body.transactionId]);
  assert.deepEqual(row.request.expiresAt, new Date('2030-01-01T00:00:00.000Z'));
  assert.deepEqual(result.outcomes, [{ type: QUOTE_OUTCOME.forwardRequest, quoteId: id, to: 'payeefsp', message: request }]);
});

test('without persistence only what duplicate detection needs is stored', () => {
  const id = randomUUID();
  const body = requestBody(id);
  const [row] = decide([event('request', id, { body })], [], false).inserts;
  assert.equal(row.request, null);
  assert.equal(row.requestHash, requestHash(body));
});

test('an unknown or inactive DFSP is refused with 3202 (payer) or 3203 (payee), and nothing is stored', () => {
  const id = randomUUID();
  const cases = [
    [{ from: 'ghostfsp' }, FAILURE.payerFspNotFound, /ghostfsp is not a participant/],
    [{ from: 'sleepyfsp' }, FAILURE.payerFspNotFound, /sleepyfsp is not active/],
    [{ to: 'ghostfsp' }, FAILURE.payeeFspNotFound, /payee FSP ghostfsp/],
    [{ to: null }, FAILURE.payeeFspNotFound, /no payee FSP/],
  ];
  for (const [overrides, code, detail] of cases) {
    const result = decide([event('request', id, { body: requestBody(id), ...overrides })]);
    assert.deepEqual(result.inserts, []);
    assert.equal(result.outcomes.length, 1);
    const [outcome] = result.outcomes;
    assert.deepEqual([outcome.type, outcome.to, outcome.failure.code], [QUOTE_OUTCOME.error, overrides.from ?? 'payerfsp', code]);
    assert.match(outcome.failure.detail, detail);
  }
  assert.equal(fspiopCodeOf(FAILURE.payerFspNotFound), 3202);
  assert.equal(fspiopCodeOf(FAILURE.payeeFspNotFound), 3203);
  assert.equal(fspiopCodeOf(FAILURE.quoteNotFound), 3205);
  for (const code of Object.values(FAILURE)) assert.ok(FSPIOP_ERRORS[fspiopCodeOf(code)], `${code} is catalogued`);
});

test('a resend while the payee has not answered is ignored; the redelivered record is forwarded again', () => {
  const id = randomUUID();
  const body = requestBody(id);
  const prior = storedQuote(id, body);
  assert.deepEqual(decide([event('request', id, { body, at: 5000 })], [prior]), { inserts: [], updates: [], outcomes: [], unknown: [] });
  const redelivered = event('request', id, { body, at: 1000 });
  assert.deepEqual(decide([redelivered], [prior]).outcomes, [{ type: QUOTE_OUTCOME.forwardRequest, quoteId: id, to: 'payeefsp', message: redelivered }]);
  // The original request redelivered after the payee answered: its forward evidently happened.
  assert.deepEqual(decide([redelivered], [answered(id, body)]).outcomes, []);
});

test('a modified request, or the same one from another DFSP, gets 3106', () => {
  const id = randomUUID();
  const prior = storedQuote(id, requestBody(id));
  for (const request of [event('request', id, { body: requestBody(id, '101'), at: 5000 }), event('request', id, { body: requestBody(id), from: 'otherfsp', at: 5000 })]) {
    const result = decide([request], [prior]);
    assert.deepEqual(result.updates, []);
    assert.deepEqual(result.outcomes.map((outcome) => [outcome.type, outcome.to, outcome.failure.code]), [[QUOTE_OUTCOME.error, request.from, FAILURE.modifiedRequest]]);
  }
});

test('a resend of an answered quote gets the stored answer as the payee sent it', () => {
  const id = randomUUID();
  const body = requestBody(id);
  const result = decide([event('request', id, { body, at: 5000 })], [answered(id, body)]);
  assert.deepEqual(result.updates, []);
  assert.deepEqual(result.outcomes, [{
    type: QUOTE_OUTCOME.forwardAnswer, quoteId: id, to: 'payerfsp',
    message: { from: 'payeefsp', headers: { 'fspiop-source': 'payeefsp', 'fspiop-signature': 'sig' }, rawBody: ' {"stored":true}', at: 5000 },
  }]);
  const failed = { ...answered(id, body), state: QUOTE_STATE.failed };
  assert.equal(decide([event('request', id, { body, at: 5000 })], [failed]).outcomes[0].type, QUOTE_OUTCOME.forwardError);
});

test('without stored answers, a resend of an answered quote asks the payee again and reopens the quote', () => {
  const id = randomUUID();
  const body = requestBody(id);
  const resend = event('request', id, { body, at: 5000 });
  const result = decide([resend], [answered(id, body, false)], false);
  assert.deepEqual(result.updates, [{ quoteId: id, changes: { state: 'FORWARDED', answerHash: null, answerAt: null, requestAt: 5000 } }]);
  assert.deepEqual(result.outcomes, [{ type: QUOTE_OUTCOME.forwardRequest, quoteId: id, to: 'payeefsp', message: resend }]);
});

test('the payee\'s answer is recorded and forwarded to the payer; FSPIOP-Destination defaults to the stored payer', () => {
  const id = randomUUID();
  const prior = storedQuote(id, requestBody(id));
  const answer = event('response', id, { from: 'payeefsp', to: null, body: answerBody, at: 3000 });
  const result = decide([answer], [prior]);
  assert.deepEqual(result.updates, [{
    quoteId: id,
    changes: { state: 'ANSWERED', answerHash: requestHash(answerBody), answerAt: 3000, answer: { headers: answer.headers, rawBody: answer.rawBody, condition: answerBody.condition, errorCode: null } },
  }]);
  assert.deepEqual(result.outcomes, [{ type: QUOTE_OUTCOME.forwardAnswer, quoteId: id, to: 'payerfsp', message: answer }]);
  const unpersisted = decide([answer], [prior], false);
  assert.equal(unpersisted.updates[0].changes.answer, null);
});

test('the payee\'s error is recorded FAILED and forwarded to the payer\'s /error', () => {
  const id = randomUUID();
  const rejection = event('error', id, { from: 'payeefsp', to: 'payerfsp', body: errorBody });
  const result = decide([rejection], [storedQuote(id, requestBody(id))]);
  assert.equal(result.updates[0].changes.state, 'FAILED');
  assert.equal(result.updates[0].changes.answer.errorCode, '5101');
  assert.deepEqual(result.outcomes, [{ type: QUOTE_OUTCOME.forwardError, quoteId: id, to: 'payerfsp', message: rejection }]);
});

test('the same answer again is forwarded again; a different one is 3106 to the payee; others may not answer', () => {
  const id = randomUUID();
  const prior = answered(id, requestBody(id));
  const again = event('response', id, { from: 'payeefsp', to: 'payerfsp', body: answerBody, at: 9000 });
  assert.deepEqual(decide([again], [prior]), { inserts: [], updates: [], outcomes: [{ type: QUOTE_OUTCOME.forwardAnswer, quoteId: id, to: 'payerfsp', message: again }], unknown: [] });
  const changed = decide([event('response', id, { from: 'payeefsp', to: 'payerfsp', body: { ...answerBody, condition: 'd'.repeat(43) } })], [prior]);
  assert.deepEqual(changed.outcomes.map((outcome) => [outcome.to, outcome.failure.code]), [['payeefsp', FAILURE.modifiedRequest]]);
  const intruder = decide([event('response', id, { from: 'otherfsp', to: 'payerfsp', body: answerBody })], [prior]);
  assert.deepEqual(intruder.outcomes.map((outcome) => [outcome.to, outcome.failure.code]), [['otherfsp', FAILURE.validation]]);
});

test('an answer to a quote the switch did not relay, or to another DFSP than its payer, reaches nobody but its sender', () => {
  const id = randomUUID();
  for (const unsolicited of [event('error', id, { from: 'payeefsp', to: 'payerfsp', body: errorBody }), event('response', id, { from: 'payeefsp', to: null, body: answerBody })]) {
    const refused = decide([unsolicited]);
    assert.deepEqual([refused.inserts, refused.updates], [[], []]);
    assert.deepEqual(refused.outcomes.map((outcome) => [outcome.type, outcome.to, outcome.failure.code]), [[QUOTE_OUTCOME.error, 'payeefsp', FAILURE.quoteNotFound]]);
  }
  const prior = storedQuote(id, requestBody(id));
  const elsewhere = decide([event('response', id, { from: 'payeefsp', to: 'otherfsp', body: answerBody })], [prior]);
  assert.deepEqual([elsewhere.updates, elsewhere.outcomes.map((outcome) => [outcome.to, outcome.failure.code])], [[], [['payeefsp', FAILURE.validation]]]);
  const inactivePayer = decide([event('response', id, { from: 'payeefsp', to: 'sleepyfsp', body: answerBody })], [{ ...prior, payerFsp: 'sleepyfsp' }]);
  assert.deepEqual(inactivePayer.outcomes.map((outcome) => [outcome.to, outcome.failure.code]), [['payeefsp', FAILURE.payerFspNotFound]]);
});

test('GET /quotes/{ID}: the payer gets the stored answer; in flight nothing yet; others, unknown ids and unkept answers 3205', () => {
  const id = randomUUID();
  const body = requestBody(id);
  const get = (from = 'payerfsp') => event('get', id, { from, to: 'payeefsp', at: 7000 });
  assert.deepEqual(decide([get()], [answered(id, body)]).outcomes.map((outcome) => [outcome.type, outcome.to, outcome.message.rawBody]), [[QUOTE_OUTCOME.forwardAnswer, 'payerfsp', ' {"stored":true}']]);
  assert.deepEqual(decide([get()], [storedQuote(id, body)]).outcomes, []);
  for (const [quotes, from] of [[[], 'payerfsp'], [[answered(id, body)], 'otherfsp'], [[answered(id, body, false)], 'payerfsp']]) {
    const [outcome] = decide([get(from)], quotes).outcomes;
    assert.deepEqual([outcome.type, outcome.to, outcome.failure.code], [QUOTE_OUTCOME.error, from, FAILURE.quoteNotFound]);
  }
});

test('a request and its answer in one batch make one insert with the answer', () => {
  const id = randomUUID();
  const result = decide([event('request', id, { body: requestBody(id) }), event('response', id, { from: 'payeefsp', to: 'payerfsp', body: answerBody, at: 1500 })]);
  assert.equal(result.inserts.length, 1);
  assert.deepEqual([result.inserts[0].state, result.inserts[0].answerAt], ['ANSWERED', 1500]);
  assert.deepEqual(result.updates, []);
  assert.deepEqual(result.outcomes.map((outcome) => outcome.type), [QUOTE_OUTCOME.forwardRequest, QUOTE_OUTCOME.forwardAnswer]);
});

test('an event with an unknown action is reported, not decided', () => {
  const odd = event('patch', randomUUID(), { body: {} });
  assert.deepEqual(decide([odd]), { inserts: [], updates: [], outcomes: [], unknown: [odd] });
});

test('notification events: forwards keep the DFSP\'s headers and bytes, errors come from the hub, paths follow the base URL', () => {
  const id = randomUUID();
  const request = event('request', id, { body: requestBody(id) });
  const forwarded = decodeEvent(encodeEvent(quoteNotificationEvent({ type: QUOTE_OUTCOME.forwardRequest, quoteId: id, to: 'payeefsp', message: request }, 'Hub')));
  assert.deepEqual(forwarded.callback, { endpointType: 'FSPIOP_CALLBACK_URL_QUOTES', templateParams: { quoteId: id }, method: 'POST', resource: 'quotes', path: '/quotes' });
  assert.deepEqual([forwarded.from, forwarded.to, forwarded.rawBody, forwarded.headers, forwarded.at], ['payerfsp', 'payeefsp', request.rawBody, request.headers, 1000]);
  const answer = quoteNotificationEvent({ type: QUOTE_OUTCOME.forwardAnswer, quoteId: id, to: 'payerfsp', message: event('response', id, { from: 'payeefsp', body: answerBody }) }, 'Hub');
  assert.deepEqual([answer.callback.method, answer.callback.path, answer.from], ['PUT', `/quotes/${id}`, 'payeefsp']);
  const rejection = quoteNotificationEvent({ type: QUOTE_OUTCOME.forwardError, quoteId: id, to: 'payerfsp', message: event('error', id, { from: 'payeefsp', body: errorBody }) }, 'Hub');
  assert.equal(rejection.callback.path, `/quotes/${id}/error`);
  const refusal = quoteNotificationEvent({ type: QUOTE_OUTCOME.error, quoteId: id, to: 'payerfsp', failure: { code: FAILURE.payeeFspNotFound, detail: 'payee FSP x is not a participant' } }, 'Hub');
  assert.deepEqual([refusal.from, refusal.headers, refusal.callback.path, refusal.body.errorInformation.errorCode], ['Hub', {}, `/quotes/${id}/error`, '3203']);
  assert.match(refusal.body.errorInformation.errorDescription, /^Payee FSP ID not found - payee FSP x/);
});
