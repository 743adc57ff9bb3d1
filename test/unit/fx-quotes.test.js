// The fx quote decisions (quoting/domain/fx-quotes.js) and their notification events
// (quoting/handler/records.js), as pure functions: who may ask which FXP for which
// conversion, who may answer, duplicates as for quotes, GET answered from the stored fx quote;
// and whom a dead-lettered fx quote message is reported to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { QUOTE_OUTCOME, QUOTE_STATE } from '../../quoting/domain/quotes.js';
import { conversionFailure, decideFxQuoteBatch } from '../../quoting/domain/fx-quotes.js';
import { FAILURE } from '../../platform/domain/failures.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { fspiopCodeOf } from '../../platform/fspiop/errors.js';
import { fxQuoteNotificationEvent } from '../../quoting/handler/records.js';
import { createQuoteDeadLetterFinisher } from '../../quoting/handler/dead-letters.js';
import { decodeEvent } from '../../platform/kafka/envelope.js';

const fxp = (overrides = {}) => ({ isActive: true, activePositionCurrencies: ['USD', 'EUR'], pairs: [{ sourceCurrency: 'USD', targetCurrency: 'EUR' }], ...overrides });
const dfsp = (overrides = {}) => ({ isActive: true, activePositionCurrencies: ['USD'], pairs: [], ...overrides });
const PARTIES = new Map([
  ['payerfsp', dfsp()], ['fxp', fxp()], ['otherfsp', dfsp()], ['sleepyfsp', dfsp({ isActive: false })],
  ['eurfsp', dfsp({ activePositionCurrencies: ['EUR'] })], ['reversefxp', fxp({ pairs: [{ sourceCurrency: 'EUR', targetCurrency: 'USD' }] })],
  ['noeurfxp', fxp({ activePositionCurrencies: ['USD'] })], ['sleepyfxp', fxp({ isActive: false })],
]);

function requestBody(id, { initiatingFsp = 'payerfsp', counterPartyFsp = 'fxp', source = 'USD', target = 'EUR', amount = '100' } = {}) {
  return {
    conversionRequestId: id,
    conversionTerms: {
      conversionId: randomUUID(), determiningTransferId: randomUUID(), initiatingFsp, counterPartyFsp, amountType: 'SEND',
      sourceAmount: { amount, currency: source }, targetAmount: { currency: target }, expiration: '2030-01-01T00:00:00.000Z',
    },
  };
}

// The same conversion request id always gets the same answer, as an FXP that keeps its quotes sends it.
const answers = new Map();
function answerBody(id) {
  if (!answers.has(id)) answers.set(id, { condition: 'c'.repeat(43), conversionTerms: { ...requestBody(id).conversionTerms, targetAmount: { amount: '90', currency: 'EUR' } } });
  return answers.get(id);
}
const errorBody = { errorInformation: { errorCode: '5101', errorDescription: 'rate unavailable' } };

function event(action, id, { from = 'payerfsp', to = 'fxp', body, at = 1000 } = {}) {
  const headers = { 'fspiop-source': from, ...(to ? { 'fspiop-destination': to } : {}) };
  return { id, type: 'fxQuote', action, from, to, headers, body, rawBody: body === undefined ? undefined : JSON.stringify(body, null, 1), at };
}

const stored = (id, body, overrides = {}) => ({
  conversionRequestId: id, initiatingFsp: 'payerfsp', counterPartyFsp: 'fxp', state: QUOTE_STATE.forwarded, requestHash: requestHash(body),
  requestAt: 1000, answerHash: null, answerAt: null, answer: null, ...overrides,
});

const answered = (id, body) => stored(id, body, {
  state: QUOTE_STATE.answered, answerHash: requestHash(answerBody(id)), answerAt: 2000,
  answer: { headers: { 'fspiop-source': 'fxp', 'fspiop-signature': 'sig' }, rawBody: ' {"stored":true}', errorCode: null },
});

const decide = (events, fxQuotes = [], persist = true) => decideFxQuoteBatch({
  events, fxQuotes: new Map(fxQuotes.map((fxQuote) => [fxQuote.conversionRequestId, fxQuote])), participants: PARTIES, persist,
});

const codeOf = (outcome) => fspiopCodeOf(outcome.failure.code);

test('a conversion request is stored FORWARDED and forwarded to the FXP with the initiator\'s bytes', () => {
  const id = randomUUID();
  const request = event('request', id, { body: requestBody(id) });
  const result = decide([request]);
  const [row] = result.inserts;
  assert.deepEqual([row.conversionRequestId, row.initiatingFsp, row.counterPartyFsp, row.state, row.requestAt], [id, 'payerfsp', 'fxp', 'FORWARDED', 1000]);
  assert.deepEqual([row.request.rawBody, row.request.sourceCurrency, row.request.targetCurrency], [request.rawBody, 'USD', 'EUR']);
  assert.deepEqual(result.outcomes, [{ type: QUOTE_OUTCOME.forwardRequest, conversionRequestId: id, to: 'fxp', message: request }]);
  assert.equal(decide([request], [], false).inserts[0].request, null, 'without persistence only what duplicate detection needs');
});

test('the initiator, the FXP, the pair and both positions are checked; a refusal goes to the initiator and nothing is stored', () => {
  const cases = [
    [{ from: 'otherfsp' }, {}, 3100, /initiatingFsp payerfsp is not the sender otherfsp/],
    [{ to: 'reversefxp' }, {}, 3100, /counterPartyFsp fxp is not the FSPIOP-Destination reversefxp/],
    [{}, { target: 'USD' }, 3100, /from USD to USD/],
    [{ from: 'ghostfsp' }, { initiatingFsp: 'ghostfsp' }, 3202, /ghostfsp is not a participant/],
    [{ from: 'sleepyfsp' }, { initiatingFsp: 'sleepyfsp' }, 3202, /sleepyfsp is not active/],
    [{ from: 'eurfsp' }, { initiatingFsp: 'eurfsp' }, 3202, /eurfsp has no active position in USD/],
    [{ to: 'ghostfxp' }, { counterPartyFsp: 'ghostfxp' }, 3203, /FXP ghostfxp is not a participant/],
    [{ to: 'sleepyfxp' }, { counterPartyFsp: 'sleepyfxp' }, 3203, /FXP sleepyfxp is not active/],
    [{ to: 'reversefxp' }, { counterPartyFsp: 'reversefxp' }, 3100, /reversefxp does not convert USD to EUR/],
    [{ to: 'otherfsp' }, { counterPartyFsp: 'otherfsp' }, 3100, /otherfsp does not convert USD to EUR/],
    [{ to: 'noeurfxp' }, { counterPartyFsp: 'noeurfxp' }, 3100, /noeurfxp has no active position in EUR/],
  ];
  for (const [routing, terms, code, detail] of cases) {
    const id = randomUUID();
    const result = decide([event('request', id, { body: requestBody(id, terms), ...routing })]);
    assert.deepEqual(result.inserts, [], `${detail}`);
    assert.equal(result.outcomes.length, 1);
    const [outcome] = result.outcomes;
    assert.deepEqual([outcome.type, outcome.to, codeOf(outcome)], [QUOTE_OUTCOME.error, routing.from ?? 'payerfsp', code], `${detail}`);
    assert.match(outcome.failure.detail, detail);
  }
  assert.equal(conversionFailure(requestBody('x').conversionTerms, { from: 'payerfsp', to: 'fxp' }, PARTIES), null);
});

test('duplicates: ignored in flight, the stored answer once answered, forwarded again without persistence, 3106 when modified or from another DFSP', () => {
  const id = randomUUID();
  const body = requestBody(id);
  assert.deepEqual(decide([event('request', id, { body, at: 5000 })], [stored(id, body)]).outcomes, [], 'in flight: ignored');
  const redelivered = decide([event('request', id, { body, at: 1000 })], [stored(id, body)]);
  assert.deepEqual(redelivered.outcomes.map((outcome) => [outcome.type, outcome.to]), [[QUOTE_OUTCOME.forwardRequest, 'fxp']], 'a redelivery is replayed');
  const resent = decide([event('request', id, { body, at: 5000 })], [answered(id, body)]);
  assert.equal(resent.outcomes.length, 1);
  assert.deepEqual([resent.outcomes[0].type, resent.outcomes[0].to, resent.outcomes[0].message.rawBody, resent.outcomes[0].message.from],
    [QUOTE_OUTCOME.forwardAnswer, 'payerfsp', ' {"stored":true}', 'fxp']);
  const unkept = decide([event('request', id, { body, at: 5000 })], [{ ...answered(id, body), answer: null }], false);
  assert.deepEqual([unkept.outcomes[0].type, unkept.updates[0].changes.state], [QUOTE_OUTCOME.forwardRequest, 'FORWARDED']);
  const modified = decide([event('request', id, { body: requestBody(id, { amount: '99' }) })], [answered(id, body)]);
  assert.deepEqual([codeOf(modified.outcomes[0]), modified.outcomes[0].to], [3106, 'payerfsp']);
  const otherSender = decide([event('request', id, { body, from: 'otherfsp' })], [answered(id, body)]);
  assert.deepEqual([codeOf(otherSender.outcomes[0]), otherSender.outcomes[0].to], [3106, 'otherfsp']);
});

test('only the named FXP answers, only to the initiator; the same answer again is forwarded again, a different one is 3106', () => {
  const id = randomUUID();
  const body = requestBody(id);
  const answer = event('response', id, { from: 'fxp', to: 'payerfsp', body: answerBody(id), at: 2000 });
  const result = decide([answer], [stored(id, body)]);
  assert.deepEqual(result.outcomes, [{ type: QUOTE_OUTCOME.forwardAnswer, conversionRequestId: id, to: 'payerfsp', message: answer }]);
  assert.deepEqual([result.updates[0].changes.state, result.updates[0].changes.answer.rawBody], ['ANSWERED', answer.rawBody]);
  const refusals = [
    [event('response', randomUUID(), { from: 'fxp', to: 'payerfsp', body: answerBody(id) }), 3205, /not requested through this switch/],
    [event('response', id, { from: 'otherfsp', to: 'payerfsp', body: answerBody(id) }), 3100, /otherfsp cannot answer it/],
    [event('response', id, { from: 'fxp', to: 'otherfsp', body: answerBody(id) }), 3100, /initiating FSP is payerfsp, not otherfsp/],
  ];
  for (const [refused, code, detail] of refusals) {
    const outcome = decide([refused], [stored(id, body)]);
    assert.deepEqual(outcome.updates, []);
    assert.deepEqual([outcome.outcomes.length, outcome.outcomes[0].to, codeOf(outcome.outcomes[0])], [1, refused.from, code]);
    assert.match(outcome.outcomes[0].failure.detail, detail);
  }
  const again = decide([answer], [answered(id, body)]);
  assert.deepEqual([again.outcomes[0].type, again.updates], [QUOTE_OUTCOME.forwardAnswer, []]);
  const changed = decide([event('error', id, { from: 'fxp', to: 'payerfsp', body: errorBody })], [answered(id, body)]);
  assert.deepEqual([codeOf(changed.outcomes[0]), changed.outcomes[0].to], [3106, 'fxp']);
  const failed = decide([event('error', id, { from: 'fxp', to: 'payerfsp', body: errorBody })], [stored(id, body)]);
  assert.deepEqual([failed.outcomes[0].type, failed.updates[0].changes.state, failed.updates[0].changes.answer.errorCode], [QUOTE_OUTCOME.forwardError, 'FAILED', '5101']);
});

test('GET: the initiator gets the stored answer, nothing while in flight; anyone else and unknown ids 3205', () => {
  const id = randomUUID();
  const body = requestBody(id);
  const got = decide([event('get', id, { at: 3000 })], [answered(id, body)]);
  assert.deepEqual([got.outcomes[0].type, got.outcomes[0].to, got.outcomes[0].message.rawBody], [QUOTE_OUTCOME.forwardAnswer, 'payerfsp', ' {"stored":true}']);
  assert.deepEqual(decide([event('get', id)], [stored(id, body)]).outcomes, []);
  for (const [asker, fxQuotes] of [['fxp', [answered(id, body)]], ['payerfsp', []]]) {
    const refused = decide([event('get', id, { from: asker })], fxQuotes);
    assert.deepEqual([refused.outcomes[0].to, codeOf(refused.outcomes[0])], [asker, 3205]);
  }
});

test('a batch sees its own decisions: a request and its answer in one batch insert one ANSWERED fx quote', () => {
  const id = randomUUID();
  const result = decide([event('request', id, { body: requestBody(id) }), event('response', id, { from: 'fxp', to: 'payerfsp', body: answerBody(id), at: 2000 })]);
  assert.deepEqual([result.inserts.length, result.inserts[0].state, result.updates.length, result.outcomes.length], [1, 'ANSWERED', 0, 2]);
});

test('fx quote callbacks go to FSPIOP_CALLBACK_URL_FX_QUOTES under /fxQuotes; the hub\'s own speak v2.0', () => {
  const id = randomUUID();
  const request = event('request', id, { body: requestBody(id) });
  const forwarded = fxQuoteNotificationEvent({ type: QUOTE_OUTCOME.forwardRequest, conversionRequestId: id, to: 'fxp', message: request }, 'Hub');
  assert.deepEqual([forwarded.id, forwarded.from, forwarded.rawBody, forwarded.headers], [id, 'payerfsp', request.rawBody, request.headers]);
  assert.deepEqual(forwarded.callback, { endpointType: 'FSPIOP_CALLBACK_URL_FX_QUOTES', templateParams: { conversionRequestId: id }, method: 'POST', resource: 'fxQuotes', path: '/fxQuotes' });
  assert.deepEqual([forwarded.ifUndeliverable.to, forwarded.ifUndeliverable.callback.path, forwarded.ifUndeliverable.callback.version], ['payerfsp', `/fxQuotes/${id}/error`, '2.0']);
  const refusal = fxQuoteNotificationEvent({ type: QUOTE_OUTCOME.error, conversionRequestId: id, to: 'payerfsp', failure: { code: FAILURE.validation, detail: 'no' } }, 'Hub');
  assert.deepEqual([refusal.from, refusal.callback.path, refusal.callback.version, refusal.body.errorInformation.errorCode], ['Hub', `/fxQuotes/${id}/error`, '2.0', '3100']);
});

test('a dead-lettered fx quote answer tells its sender 2001, and the initiating DFSP too when the sender is the FXP', async () => {
  const id = randomUUID();
  const row = {
    conversion_request_id: id, initiating_fsp: 'payerfsp', counter_party_fsp: 'fxp', state: 'FORWARDED', request_hash: 'h', request_at: '1000',
    answer_hash: null, answer_at: null, answer_error_code: null, answer_headers: null, answer_body: null,
  };
  // The finisher reads the fx quote through runStatement (platform/db.js): a knex-like raw() answering the fx_quote read.
  const db = { raw: async (sql) => { assert.match(sql, /FROM `fx_quote`/); return [[row]]; } };
  const finish = createQuoteDeadLetterFinisher({ db, topics: { notificationEvent: 'notifications' }, hubName: 'Hub' });
  const toldOf = async (from) => (await finish(event('response', id, { from, to: 'payerfsp', body: answerBody(id) })))
    .map((record) => decodeEvent(record.value)).map((told) => [told.to, told.callback.path, told.callback.endpointType, told.body.errorInformation.errorCode]);
  const path = `/fxQuotes/${id}/error`;
  assert.deepEqual(await toldOf('fxp'), [['fxp', path, 'FSPIOP_CALLBACK_URL_FX_QUOTES', '2001'], ['payerfsp', path, 'FSPIOP_CALLBACK_URL_FX_QUOTES', '2001']]);
  assert.deepEqual(await toldOf('otherfsp'), [['otherfsp', path, 'FSPIOP_CALLBACK_URL_FX_QUOTES', '2001']]);
});
