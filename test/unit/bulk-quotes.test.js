// The bulk quote decisions (quoting/domain/bulk-quotes.js), their notification events
// (quoting/handler/records.js) and the /bulkQuotes edge's own checks (quoting/routes.js), as
// pure functions: every individual quote's currency checked against both DFSPs, repeated
// quoteIds, the payee's answer held to the quoteIds asked, the ids kept with or without
// persistence, and whom a dead-lettered bulk quote message is reported to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { QUOTE_OUTCOME, QUOTE_STATE } from '../../quoting/domain/quotes.js';
import { bulkAnswerFailure, bulkRequestFailure, decideBulkQuoteBatch } from '../../quoting/domain/bulk-quotes.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { fspiopCodeOf } from '../../platform/fspiop/errors.js';
import { bulkQuoteNotificationEvent } from '../../quoting/handler/records.js';
import { createQuoteDeadLetterFinisher } from '../../quoting/handler/dead-letters.js';
import { bulkQuoteRequestFailure } from '../../quoting/bulk-quote-checks.js';
import { decodeEvent } from '../../platform/kafka/envelope.js';

const dfsp = (currencies, isActive = true) => ({ isActive, activePositionCurrencies: currencies, pairs: [] });
const PARTIES = new Map([
  ['payerfsp', dfsp(['USD', 'EUR'])], ['payeefsp', dfsp(['USD'])], ['otherfsp', dfsp(['USD'])], ['sleepyfsp', dfsp(['USD'], false)],
  ['bareFsp', dfsp([])],
]);

function item(currency = 'USD', quoteId = randomUUID()) {
  return {
    quoteId, transactionId: randomUUID(), payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '222', fspId: 'payeefsp' } },
    amountType: 'SEND', amount: { amount: '10', currency }, transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
  };
}

function requestBody(id, items = [item(), item()]) {
  return { bulkQuoteId: id, payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '111', fspId: 'payerfsp' } }, individualQuotes: items };
}

const answerBody = (body, extra = []) => ({
  expiration: '2030-01-01T00:00:00.000Z',
  individualQuoteResults: [...body.individualQuotes.map(({ quoteId }) => ({ quoteId, condition: 'c'.repeat(43) })), ...extra],
});

function event(action, id, { from = 'payerfsp', to = 'payeefsp', body, at = 1000 } = {}) {
  const headers = { 'fspiop-source': from, ...(to ? { 'fspiop-destination': to } : {}) };
  return { id, type: 'bulkQuote', action, from, to, headers, body, rawBody: body === undefined ? undefined : JSON.stringify(body, null, 1), at };
}

const stored = (id, body, overrides = {}) => ({
  bulkQuoteId: id, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', quoteIds: body.individualQuotes.map((entry) => entry.quoteId), state: QUOTE_STATE.forwarded,
  requestHash: requestHash(body), requestAt: 1000, answerHash: null, answerAt: null, answer: null, ...overrides,
});

const decide = (events, bulkQuotes = [], persist = true) => decideBulkQuoteBatch({
  events, bulkQuotes: new Map(bulkQuotes.map((bulkQuote) => [bulkQuote.bulkQuoteId, bulkQuote])), participants: PARTIES, persist,
});
const codeOf = (failure) => fspiopCodeOf(failure.code);

test('a bulk quote is stored FORWARDED with its quoteIds, count and currencies, and forwarded to the payee with the payer\'s bytes', () => {
  const id = randomUUID();
  const body = requestBody(id, [item('USD'), item('USD'), item('USD')]);
  const request = event('request', id, { body });
  const result = decide([request]);
  const [row] = result.inserts;
  assert.deepEqual([row.bulkQuoteId, row.payerFsp, row.payeeFsp, row.state], [id, 'payerfsp', 'payeefsp', 'FORWARDED']);
  assert.deepEqual(row.quoteIds, body.individualQuotes.map((entry) => entry.quoteId));
  assert.deepEqual([row.request.rawBody, row.request.itemCount, row.request.currencies], [request.rawBody, 3, ['USD']]);
  assert.deepEqual(result.outcomes, [{ type: QUOTE_OUTCOME.forwardRequest, bulkQuoteId: id, to: 'payeefsp', message: request }]);
  const unkept = decide([request], [], false).inserts[0];
  assert.deepEqual([unkept.request, unkept.quoteIds.length], [null, 3], 'without persistence the quoteIds the answer is checked against are still kept');
});

test('every individual quote is checked, not only the first: a currency either DFSP cannot hold refuses the whole bulk, naming the item', () => {
  const [usd, eur] = [item('USD'), item('EUR')];
  const parties = { from: 'payerfsp', to: 'payeefsp' };
  assert.equal(bulkRequestFailure(requestBody('b', [usd, item('USD')]), parties, PARTIES), null);
  const cases = [
    [requestBody('b', [usd, eur]), parties, 3203, `individual quote ${eur.quoteId}: payee FSP has no active EUR position`],
    [requestBody('b', [usd, eur]), { from: 'bareFsp', to: 'payerfsp' }, 3100, 'payer.partyIdInfo.fspId payerfsp is not the sender bareFsp'],
    [{ ...requestBody('b', [usd]), payer: { name: 'no fspId' } }, { from: 'bareFsp', to: 'payeefsp' }, 3202, `individual quote ${usd.quoteId}: payer FSP has no active USD position`],
    [requestBody('b', [usd, eur]), { from: 'payerfsp', to: 'ghostfsp' }, 3203, 'payee FSP ghostfsp is not a participant'],
    [{ ...requestBody('b', [usd]), payer: {} }, { from: 'sleepyfsp', to: 'payeefsp' }, 3202, 'payer FSP sleepyfsp is not active'],
    [requestBody('b', [usd, item('USD'), { ...item('USD'), quoteId: usd.quoteId }]), parties, 3100, `individual quote ${usd.quoteId} is listed twice`],
    [requestBody('b', []), parties, 3100, 'individualQuotes holds 0 quotes; 1 to 1000 are allowed'],
  ];
  for (const [body, routing, code, detail] of cases) {
    const failure = bulkRequestFailure(body, routing, PARTIES);
    assert.deepEqual([codeOf(failure), failure.detail], [code, detail]);
  }
  const id = randomUUID();
  const refused = decide([event('request', id, { body: requestBody(id, [usd, eur]) })]);
  assert.deepEqual([refused.inserts, refused.outcomes[0].type, refused.outcomes[0].to, codeOf(refused.outcomes[0].failure)], [[], QUOTE_OUTCOME.error, 'payerfsp', 3203]);
});

test('the payee\'s answer may name only the quoteIds asked, each once; an error callback always passes', () => {
  const id = randomUUID();
  const body = requestBody(id);
  const record = stored(id, body);
  assert.equal(bulkAnswerFailure(answerBody(body), record), null);
  assert.equal(bulkAnswerFailure({ expiration: 'x', individualQuoteResults: [{ quoteId: body.individualQuotes[1].quoteId }] }, record), null, 'a subset is an answer');
  assert.equal(bulkAnswerFailure({ expiration: 'x' }, record), null);
  const stranger = randomUUID();
  assert.equal(bulkAnswerFailure(answerBody(body, [{ quoteId: stranger }]), record).detail, `individual quote ${stranger} was not asked for`);
  const [first] = body.individualQuotes;
  assert.equal(bulkAnswerFailure(answerBody(body, [{ quoteId: first.quoteId }]), record).detail, `individual quote ${first.quoteId} is answered twice`);

  const answer = event('response', id, { from: 'payeefsp', to: 'payerfsp', body: answerBody(body), at: 2000 });
  const relayed = decide([answer], [record]);
  assert.deepEqual([relayed.outcomes[0].type, relayed.outcomes[0].to, relayed.updates[0].changes.state], [QUOTE_OUTCOME.forwardAnswer, 'payerfsp', 'ANSWERED']);
  const padded = decide([event('response', id, { from: 'payeefsp', to: 'payerfsp', body: answerBody(body, [{ quoteId: stranger }]) })], [record]);
  assert.deepEqual([padded.updates, padded.outcomes[0].to, codeOf(padded.outcomes[0].failure)], [[], 'payeefsp', 3100]);
  const impostor = decide([event('response', id, { from: 'otherfsp', to: 'payerfsp', body: answerBody(body) })], [record]);
  assert.deepEqual([impostor.updates, impostor.outcomes[0].to, codeOf(impostor.outcomes[0].failure)], [[], 'otherfsp', 3100]);
  const unknown = decide([event('response', randomUUID(), { from: 'payeefsp', to: 'payerfsp', body: answerBody(body) })]);
  assert.deepEqual([unknown.outcomes[0].to, codeOf(unknown.outcomes[0].failure)], ['payeefsp', 3209]);
  const unasked = decide([event('get', id, { from: 'otherfsp' })], [record]);
  assert.deepEqual([unasked.outcomes[0].to, codeOf(unasked.outcomes[0].failure)], ['otherfsp', 3209]);
  const rejected = decide([event('error', id, { from: 'payeefsp', to: 'payerfsp', body: { errorInformation: { errorCode: '5101', errorDescription: 'no' } } })], [record]);
  assert.deepEqual([rejected.outcomes[0].type, rejected.updates[0].changes.state], [QUOTE_OUTCOME.forwardError, 'FAILED']);
});

test('bulk quote callbacks go to FSPIOP_CALLBACK_URL_BULK_QUOTES under /bulkQuotes', () => {
  const id = randomUUID();
  const request = event('request', id, { body: requestBody(id) });
  const forwarded = bulkQuoteNotificationEvent({ type: QUOTE_OUTCOME.forwardRequest, bulkQuoteId: id, to: 'payeefsp', message: request }, 'Hub');
  assert.deepEqual([forwarded.from, forwarded.rawBody, forwarded.headers], ['payerfsp', request.rawBody, request.headers]);
  assert.deepEqual(forwarded.callback, { endpointType: 'FSPIOP_CALLBACK_URL_BULK_QUOTES', templateParams: { bulkQuoteId: id }, method: 'POST', resource: 'bulkQuotes', path: '/bulkQuotes' });
  assert.deepEqual([forwarded.ifUndeliverable.to, forwarded.ifUndeliverable.callback.path], ['payerfsp', `/bulkQuotes/${id}/error`]);
  const refusal = bulkQuoteNotificationEvent({ type: QUOTE_OUTCOME.error, bulkQuoteId: id, to: 'payerfsp', failure: { code: 'VALIDATION', detail: 'no' } }, 'Hub', '1.0');
  assert.deepEqual([refusal.from, refusal.callback.path, refusal.callback.version, refusal.body.errorInformation.errorCode], ['Hub', `/bulkQuotes/${id}/error`, '1.0', '3100']);
});

test('the edge holds a 1.0 bulk to 1.1\'s schema and refuses a repeated quoteId, naming the path', () => {
  const accepted = (body, version = '1.1') => ({ headers: { 'content-type': `application/vnd.interoperability.bulkQuotes+json;version=${version}` }, body });
  const body = requestBody(randomUUID());
  assert.equal(bulkQuoteRequestFailure(accepted(body)), null);
  assert.equal(bulkQuoteRequestFailure(accepted(body, '1.0')), null);
  const untyped = bulkQuoteRequestFailure(accepted({ ...body, individualQuotes: { quoteId: 'x' } }, '1.0'));
  assert.deepEqual([untyped.code, untyped.body.errorInformation.errorDescription], [3101, 'Malformed syntax - /requestBody/individualQuotes must be array']);
  const noId = bulkQuoteRequestFailure(accepted({ ...body, individualQuotes: [{ ...item(), quoteId: undefined }] }, '1.0'));
  assert.equal(noId.code, 3102);
  const [first] = body.individualQuotes;
  const repeated = bulkQuoteRequestFailure(accepted({ ...body, individualQuotes: [first, item(), first] }));
  assert.deepEqual([repeated.code, repeated.body.errorInformation.errorDescription], [3100, 'Generic validation error - /requestBody/individualQuotes/2/quoteId repeats that of item 0']);
});

test('a dead-lettered bulk quote answer tells its sender 2001, and the payer too when the sender is the payee', async () => {
  const id = randomUUID();
  const row = {
    bulk_quote_id: id, payer_fsp: 'payerfsp', payee_fsp: 'payeefsp', quote_ids: '[]', state: 'FORWARDED', request_hash: 'h', request_at: '1000',
    answer_hash: null, answer_at: null, answer_error_code: null, answer_headers: null, answer_body: null,
  };
  const db = { raw: async (sql) => { assert.match(sql, /FROM `bulk_quote`/); return [[row]]; } };
  const finish = createQuoteDeadLetterFinisher({ db, topics: { notificationEvent: 'notifications' }, hubName: 'Hub' });
  const toldOf = async (from) => (await finish(event('response', id, { from, to: 'payerfsp', body: { expiration: 'x' } })))
    .map((record) => decodeEvent(record.value)).map((told) => [told.to, told.callback.endpointType, told.body.errorInformation.errorCode]);
  assert.deepEqual(await toldOf('payeefsp'), [['payeefsp', 'FSPIOP_CALLBACK_URL_BULK_QUOTES', '2001'], ['payerfsp', 'FSPIOP_CALLBACK_URL_BULK_QUOTES', '2001']]);
  assert.deepEqual(await toldOf('otherfsp'), [['otherfsp', 'FSPIOP_CALLBACK_URL_BULK_QUOTES', '2001']]);
});
