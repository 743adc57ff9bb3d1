// The bulk decisions without I/O: the states table, a bulk's expansion into individual
// transfers decided as single prepares, its duplicates, and the routing of its transfers'
// outcomes to the bulk handler.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { decideBulkPrepareBatch, individualTransferMessages } from '../../ledger/domain/bulk-prepare.js';
import { expandBulkAnswers } from '../../ledger/domain/bulk-fulfil.js';
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { BULK_OUTCOME, FINAL_RESULT_ACTION, decideBulkResults, decideDeadLetteredBulk } from '../../ledger/domain/bulk-results.js';
import { BULK_STATE as B, bulkTransition, canBulkTransition, fspiopBulkTransferState, isBulkFinal } from '../../ledger/domain/bulk-transfer-states.js';
import { OUTCOME, RESOURCE, tell } from '../../ledger/domain/outcomes.js';
import { TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { FINAL_RESULT, ITEM_RESULT, bulkOfEvents, gatherBulkRefusals, routeBulkOutcomes } from '../../handlers/bulk-records.js';
import { notificationEvent } from '../../handlers/transfer-records.js';
import { bulkNotificationRecords, bulkRefusalRecords } from '../../handlers/bulk/records.js';
import { decodeEvent } from '../../platform/kafka/envelope.js';

const now = new Date('2026-12-01T12:00:00.000Z');
const later = new Date(now.getTime() + 60_000).toISOString();
const condition = createHash('sha256').update(randomBytes(32)).digest('base64url');

const participants = new Map([
  ['payer', { isActive: true, positionAccounts: new Map([['USD', { id: 1, isActive: true }]]) }],
  ['payee', { isActive: true, positionAccounts: new Map([['USD', { id: 3, isActive: true }]]) }],
]);

function item(overrides = {}) {
  return { transferId: randomUUID(), transferAmount: { currency: 'USD', amount: '10' }, ilpPacket: 'AYIB', condition, ...overrides };
}

function bulk(items, overrides = {}) {
  const body = { bulkTransferId: randomUUID(), bulkQuoteId: randomUUID(), payerFsp: 'payer', payeeFsp: 'payee', individualTransfers: items, expiration: later, ...overrides };
  return { id: body.bulkTransferId, type: 'bulkTransfer', action: 'bulk-prepare', from: 'payer', to: 'payee', headers: { 'fspiop-source': 'payer' }, body, rawBody: JSON.stringify(body), at: now.getTime() };
}

const decide = (messages, { existingBulks = new Map(), existing = new Map() } = {}) => decideBulkPrepareBatch({ messages, existingBulks, existing, participants, now });

test('bulk states: the table allows only its transitions, and each state has its FSPIOP name', () => {
  assert.deepEqual(bulkTransition(null, B.received, B.accepted, B.processing, B.completed), [B.received, B.accepted, B.processing, B.completed]);
  assert.throws(() => bulkTransition(B.received, B.completed), /illegal bulk transfer transition RECEIVED → COMPLETED/);
  assert.throws(() => bulkTransition(B.rejected, B.accepted), /illegal/);
  assert.equal(canBulkTransition(B.accepted, B.expired), true);
  assert.equal(canBulkTransition(B.completed, B.rejected), false);
  assert.ok(isBulkFinal(B.completed) && isBulkFinal(B.rejected) && isBulkFinal(B.expired));
  assert.ok(!isBulkFinal(B.received) && !isBulkFinal(B.accepted));
  assert.equal(fspiopBulkTransferState(B.expired), 'REJECTED');
  assert.equal(fspiopBulkTransferState(B.accepted), 'ACCEPTED');
  assert.throws(() => fspiopBulkTransferState('NOPE'), /unknown bulk/);
});

test('bulk prepare: each item is a single prepare from the payer to the payee, with the bulk\'s expiration and id', () => {
  const message = bulk([item(), item({ extensionList: { extension: [{ key: 'k', value: 'v' }] } })]);
  const items = individualTransferMessages(message);
  assert.equal(items.length, 2);
  assert.deepEqual(items[1].body, {
    transferId: message.body.individualTransfers[1].transferId, payerFsp: 'payer', payeeFsp: 'payee', amount: { currency: 'USD', amount: '10' },
    ilpPacket: 'AYIB', condition, expiration: later, extensionList: { extension: [{ key: 'k', value: 'v' }] },
  });
  assert.equal(items[0].bulkTransferId, message.id);
  assert.equal(items[0].from, 'payer');
});

test('bulk prepare: a new bulk is stored RECEIVED with its items; valid items reserve, invalid ones fail on their own', () => {
  const good = item();
  const bad = item({ transferAmount: { currency: 'EUR', amount: '10' } });
  const message = bulk([good, bad]);
  const result = decide([message]);
  assert.equal(result.bulkInserts.length, 1);
  assert.equal(result.bulkInserts[0].state, B.received);
  assert.equal(result.bulkInserts[0].itemCount, 2);
  assert.equal(result.bulkInserts[0].rawBody, message.rawBody);
  assert.deepEqual(result.itemInserts.map((row) => [row.transferId, row.itemIndex]), [[good.transferId, 0], [bad.transferId, 1]]);
  assert.deepEqual(result.inserts.map((row) => [row.transferId, row.state]), [[good.transferId, S.receivedPrepare], [bad.transferId, S.invalid]]);
  assert.deepEqual(result.positionEvents.map((event) => [event.message.id, event.accountId, event.message.bulkTransferId]), [[good.transferId, 1, message.id]]);
  assert.equal(result.outcomes.length, 1);
  assert.equal(result.outcomes[0].transferId, bad.transferId);
  assert.match(result.outcomes[0].failure.detail, /no active position account in EUR/);
  assert.equal(result.bulkOf.get(bad.transferId), message.id);
});

test('bulk prepare: an item whose id another transfer holds fails alone, and that transfer is untouched', () => {
  const taken = item();
  const existing = new Map([[taken.transferId, { transferId: taken.transferId, requestHash: 'other', state: S.reserved }]]);
  const result = decide([bulk([taken, item()])], { existing });
  assert.equal(result.inserts.length, 1, 'only the free id is stored');
  assert.equal(result.itemInserts.length, 2, 'both are items of the bulk');
  assert.equal(result.outcomes[0].transferId, taken.transferId);
  assert.equal(result.outcomes[0].failure.code, FAILURE.validation);
  assert.match(result.outcomes[0].failure.detail, /already used by another transfer/);
});

test('bulk prepare: a redelivered bulk stores nothing and re-produces the reservations still waiting; a modified one is 3106 about the bulk', () => {
  const message = bulk([item(), item()]);
  const first = decide([message]);
  const existingBulks = new Map([[message.id, first.bulkInserts[0]]]);
  const existing = new Map(first.inserts.map((row) => [row.transferId, row]));
  const again = decide([message], { existingBulks, existing });
  assert.deepEqual([again.bulkInserts, again.itemInserts, again.inserts], [[], [], []]);
  assert.deepEqual(again.stateRequests, [], 'the very request again (the edge\'s time): its payer did not send it twice');
  assert.equal(again.positionEvents.length, 2);
  const resent = { ...message, at: message.at + 1000 };
  assert.deepEqual(decide([resent], { existingBulks, existing }).stateRequests, [resent], 'sent again by its payer: it is told the bulk\'s state');
  const modified = bulk(message.body.individualTransfers, { bulkTransferId: message.id, expiration: new Date(now.getTime() + 90_000).toISOString() });
  const refused = decide([modified], { existingBulks, existing });
  assert.deepEqual([refused.inserts, refused.positionEvents], [[], []]);
  assert.equal(refused.outcomes.length, 1);
  assert.equal(refused.outcomes[0].resource, RESOURCE.bulkTransfers);
  assert.equal(refused.outcomes[0].failure.code, FAILURE.modifiedRequest);
  const callback = notificationEvent(refused.outcomes[0], 'Hub');
  assert.equal(callback.callback.endpointType, 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR');
  assert.deepEqual(callback.callback.templateParams, { bulkTransferId: message.id });
  assert.equal(callback.body.errorInformation.errorCode, '3106');
});

test('bulk prepare: the same bulk twice in one batch is stored once', () => {
  const message = bulk([item()]);
  const result = decide([message, message]);
  assert.equal(result.bulkInserts.length, 1);
  assert.equal(result.inserts.length, 1);
});

test('routing: a bulk item\'s reservation and failure become item results; other transfers\' outcomes stay callbacks', () => {
  const bulkTransferId = randomUUID();
  const outcomes = [
    tell.forwardPrepare('a', 'payee', {}),
    tell.error('b', 'payer', failure(FAILURE.insufficientLiquidity, 'no')),
    tell.error('single', 'payer', failure(FAILURE.insufficientLiquidity, 'no')),
    tell.state('c', 'payer', { state: S.abortedRejected, failure: failure(FAILURE.netDebitCapExceeded, 'cap') }),
  ];
  const bulkOf = new Map([['a', bulkTransferId], ['b', bulkTransferId], ['c', bulkTransferId]]);
  const routed = routeBulkOutcomes(outcomes, bulkOf);
  assert.deepEqual(routed.outcomes.map((outcome) => outcome.transferId), ['single']);
  assert.deepEqual(routed.itemResults.map((result) => [result.transferId, result.result, result.failure?.code]), [
    ['a', ITEM_RESULT.reserved, undefined], ['b', ITEM_RESULT.failed, FAILURE.insufficientLiquidity], ['c', ITEM_RESULT.failed, FAILURE.netDebitCapExceeded],
  ]);
  assert.equal(routed.outcomes[0].type, OUTCOME.error);
});

const storedBulk = (state = B.received, itemCount = 3) => ({ bulkTransferId: 'bulk-1', state, itemCount, payerFsp: 'payer', payeeFsp: 'payee', headers: {}, rawBody: '{}' });
const storedItems = (...results) => new Map([['bulk-1', results.map((prepareResult, index) => ({ transferId: `t${index}`, itemIndex: index, prepareResult }))]]);
const itemResult = (transferId, result, failureCode) => ({
  id: 'bulk-1', type: 'bulkItem', action: 'prepare-result', transferId, result, ...(failureCode ? { failure: failure(failureCode, 'no') } : {}),
});

test('bulk results: each is recorded once; the bulk waits until its last item has a result', () => {
  const decision = decideBulkResults({ results: [itemResult('t0', 'RESERVED')], bulks: new Map([['bulk-1', storedBulk()]]), items: storedItems(null, null, null) });
  assert.deepEqual(decision.recorded.map((result) => [result.transferId, result.result]), [['t0', 'RESERVED']]);
  assert.deepEqual([decision.bulkUpdates, decision.outcomes], [[], []]);
});

test('bulk results: the last result forwards the bulk with its reserved items (ACCEPTED)', () => {
  const decision = decideBulkResults({
    results: [itemResult('t2', 'FAILED', FAILURE.insufficientLiquidity)], bulks: new Map([['bulk-1', storedBulk()]]), items: storedItems('RESERVED', 'RESERVED', null),
  });
  assert.deepEqual(decision.bulkUpdates, [{ bulkTransferId: 'bulk-1', statePath: [B.accepted] }]);
  const [outcome] = decision.outcomes;
  assert.equal(outcome.type, BULK_OUTCOME.forward);
  assert.deepEqual(outcome.reservedItems.map((item) => item.transferId), ['t0', 't1']);
  assert.equal(outcome.complete, false, 'not the payer\'s whole request');
  const whole = decideBulkResults({ results: [itemResult('t2', 'RESERVED')], bulks: new Map([['bulk-1', storedBulk()]]), items: storedItems('RESERVED', 'RESERVED', null) });
  assert.equal(whole.outcomes[0].complete, true);
});

test('bulk results: a bulk none of whose items reserved is REJECTED with every item\'s failure', () => {
  const decision = decideBulkResults({
    results: [itemResult('t0', 'FAILED', FAILURE.insufficientLiquidity), itemResult('t1', 'FAILED', FAILURE.netDebitCapExceeded)],
    bulks: new Map([['bulk-1', storedBulk(B.received, 2)]]), items: storedItems(null, null),
  });
  assert.deepEqual(decision.bulkUpdates, [{ bulkTransferId: 'bulk-1', statePath: [B.rejected] }]);
  assert.equal(decision.outcomes[0].type, BULK_OUTCOME.rejected);
  assert.deepEqual(decision.outcomes[0].failedItems.map((item) => [item.transferId, item.failure.code]), [['t0', FAILURE.insufficientLiquidity], ['t1', FAILURE.netDebitCapExceeded]]);
});

test('bulk results: a redelivered result changes nothing, and produces the bulk\'s forward again once decided', () => {
  const waiting = decideBulkResults({ results: [itemResult('t0', 'RESERVED')], bulks: new Map([['bulk-1', storedBulk()]]), items: storedItems('RESERVED', null, null) });
  assert.deepEqual([waiting.recorded, waiting.bulkUpdates, waiting.outcomes], [[], [], []]);
  const forwarded = decideBulkResults({ results: [itemResult('t0', 'FAILED')], bulks: new Map([['bulk-1', storedBulk(B.accepted)]]), items: storedItems('RESERVED', 'RESERVED', 'FAILED') });
  assert.deepEqual([forwarded.recorded, forwarded.bulkUpdates], [[], []]);
  assert.equal(forwarded.outcomes[0].type, BULK_OUTCOME.forward);
  assert.deepEqual(forwarded.outcomes[0].reservedItems.map((item) => item.transferId), ['t0', 't1'], 'the stored result, not the redelivered one');
  // With the rows' times: only a result recorded with the bulk's last change brings its callback back.
  const timed = (changedAtMs) => new Map([['bulk-1', storedItems('RESERVED', 'RESERVED', 'FAILED').get('bulk-1').map((item, index) => ({ ...item, changedAtMs: changedAtMs[index] }))]]);
  const accepted = { ...storedBulk(B.accepted), changedAtMs: 2000 };
  const settling = decideBulkResults({ results: [itemResult('t2', 'FAILED')], bulks: new Map([['bulk-1', accepted]]), items: timed([1000, 1000, 2000]) });
  assert.deepEqual(settling.outcomes.map((outcome) => outcome.type), [BULK_OUTCOME.forward], 'the result that settled the bulk, redelivered after a crash of the bulk handler');
  const earlier = decideBulkResults({ results: [itemResult('t0', 'RESERVED'), itemResult('t1', 'RESERVED')], bulks: new Map([['bulk-1', accepted]]), items: timed([1000, 1000, 2000]) });
  assert.deepEqual([earlier.recorded, earlier.bulkUpdates, earlier.outcomes], [[], [], []], 'results recorded before, produced again by a position handler that crashed: nobody is told again');
  // With the events' times too: the result that settled the bulk, produced again upstream (a
  // new event, a new `at`) is no redelivery of the bulk handler's own batch.
  const settledBy = new Map([['bulk-1', timed([1000, 1000, 2000]).get('bulk-1').map((item) => ({ ...item, prepareEventAtMs: 1500 }))]]);
  const ownBatch = decideBulkResults({ results: [{ ...itemResult('t2', 'FAILED'), at: 1500 }], bulks: new Map([['bulk-1', accepted]]), items: settledBy });
  assert.deepEqual(ownBatch.outcomes.map((outcome) => outcome.type), [BULK_OUTCOME.forward], 'the same event again: the forward may have been lost');
  const upstream = decideBulkResults({ results: [{ ...itemResult('t2', 'FAILED'), at: 1700 }], bulks: new Map([['bulk-1', accepted]]), items: settledBy });
  assert.deepEqual(upstream.outcomes, [], 'a new event with a result already held: nobody is told again');
});

test('bulk results: a result for no stored bulk or item is set aside as unknown', () => {
  const decision = decideBulkResults({ results: [itemResult('t9', 'RESERVED'), { ...itemResult('t0', 'RESERVED'), id: 'other' }], bulks: new Map([['bulk-1', storedBulk()]]), items: storedItems(null, null, null) });
  assert.equal(decision.unknown.length, 2);
  assert.deepEqual([decision.recorded, decision.outcomes], [[], []]);
});

test('bulk results: a bulk sent again is answered with its state after the batch\'s results, its failed items with their errors', () => {
  const request = { id: 'bulk-1', type: 'bulkTransfer', action: 'bulk-state', from: 'payer', headers: {} };
  const decision = decideBulkResults({
    results: [itemResult('t1', 'FAILED', FAILURE.insufficientLiquidity)], stateRequests: [request, { ...request, id: 'unknown' }, { ...request, from: 'stranger' }],
    bulks: new Map([['bulk-1', storedBulk(B.received, 2)]]), items: storedItems('RESERVED', null),
  });
  const state = decision.outcomes.find((outcome) => outcome.type === BULK_OUTCOME.state);
  assert.equal(decision.outcomes.length, 4, 'the forward, the payer\'s answer and two refusals');
  const notFound = decision.outcomes.filter((outcome) => outcome.type === BULK_OUTCOME.refused);
  assert.deepEqual(notFound.map((outcome) => [outcome.bulkTransferId, outcome.to]), [['unknown', 'payer'], ['bulk-1', 'stranger']], 'an unknown bulk and a DFSP not its party alike');
  const records = bulkNotificationRecords({ notificationEvent: 'notifications' }, notFound, 'Hub', now).map((record) => [record.key, decodeEvent(record.value)]);
  for (const [key, event] of records) {
    assert.equal(event.callback.endpointType, 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR');
    assert.deepEqual([key, event.from, event.body.errorInformation.errorCode], [event.id, 'Hub', '3210']);
  }
  assert.equal(records[1][1].body.errorInformation.errorDescription, 'Bulk transfer ID not found - bulk transfer bulk-1 is not known to stranger', 'the same words whether it exists or not');
  assert.equal(state.bulk.state, B.accepted);
  assert.equal(state.to, 'payer');
  assert.deepEqual(state.items.map((item) => item.prepareResult), ['RESERVED', 'FAILED']);
  const prepared = decideBulkPrepareBatch({ messages: [bulk([item()])], existingBulks: new Map(), existing: new Map(), participants, now });
  assert.deepEqual(prepared.stateRequests, [], 'a new bulk asks for nothing');
});

const answer = (action, body, from = 'payee') => ({ id: 'bulk-1', type: 'bulkTransfer', action, from, to: 'payer', headers: {}, body, at: now.getTime() });

test('bulk fulfil: each item of the payee\'s PUT is a single fulfil carrying its bulk; an item with an error aborts; …/error aborts every reserved item', () => {
  const bulks = new Map([['bulk-1', storedBulk(B.accepted)]]);
  const items = storedItems('RESERVED', 'RESERVED', 'FAILED');
  const fulfilled = expandBulkAnswers({
    events: [answer('bulk-fulfil', {
      bulkTransferState: 'COMPLETED', completedTimestamp: now.toISOString(),
      individualTransferResults: [{ transferId: 't0', fulfilment: 'abc' }, { transferId: 't1', errorInformation: { errorCode: '5101', errorDescription: 'limit' } }],
    })],
    bulks, items,
  });
  assert.deepEqual(fulfilled.outcomes, []);
  assert.deepEqual(fulfilled.fulfils.map((event) => [event.id, event.action, event.bulkTransferId, event.from]), [['t0', 'commit', 'bulk-1', 'payee'], ['t1', 'abort', 'bulk-1', 'payee']]);
  assert.deepEqual(fulfilled.fulfils[0].body, { transferState: 'COMMITTED', fulfilment: 'abc', completedTimestamp: now.toISOString() });
  assert.equal(fulfilled.fulfils[1].body.errorInformation.errorCode, '5101');
  const refused = expandBulkAnswers({ events: [answer('bulk-abort', { errorInformation: { errorCode: '5104', errorDescription: 'no' } })], bulks, items });
  assert.deepEqual(refused.fulfils.map((event) => [event.id, event.action]), [['t0', 'abort'], ['t1', 'abort']], 'the item refused at prepare is not aborted again');
});

test('bulk fulfil: an answer for no bulk, not from its payee, or naming a foreign or repeated transfer is refused whole about the bulk', () => {
  const bulks = new Map([['bulk-1', storedBulk(B.accepted)]]);
  const items = storedItems('RESERVED', 'RESERVED', 'RESERVED');
  const results = (...ids) => ({ bulkTransferState: 'COMPLETED', individualTransferResults: ids.map((transferId) => ({ transferId, fulfilment: 'abc' })) });
  const cases = [
    [{ ...answer('bulk-fulfil', results('t0')), id: 'bulk-2' }, FAILURE.transferNotFound],
    [answer('bulk-fulfil', results('t0'), 'other'), FAILURE.validation],
    [answer('bulk-fulfil', results('t0', 'elsewhere')), FAILURE.validation],
    [answer('bulk-fulfil', results('t0', 't0')), FAILURE.validation],
  ];
  for (const [event, code] of cases) {
    const expanded = expandBulkAnswers({ events: [event], bulks, items });
    assert.deepEqual(expanded.fulfils, []);
    assert.equal(expanded.outcomes[0].failure.code, code);
    assert.equal(expanded.outcomes[0].resource, RESOURCE.bulkTransfers);
    assert.equal(expanded.outcomes[0].to, event.from);
  }
});

test('bulk fulfil: the items are decided by the single fulfil\'s decisions: a wrong fulfilment aborts its transfer alone', () => {
  const fulfilment = randomBytes(32).toString('base64url');
  const itemCondition = createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url');
  const reserved = (transferId) => ({
    transferId, kind: 'PAYMENT', state: S.reserved, payerFsp: 'payer', payeeFsp: 'payee', payerAccountId: 1, payeeAccountId: 3, ilpCondition: itemCondition,
    expiresAt: new Date(now.getTime() + 60_000),
  });
  const { fulfils } = expandBulkAnswers({
    events: [answer('bulk-fulfil', { bulkTransferState: 'COMPLETED', individualTransferResults: [{ transferId: 't0', fulfilment }, { transferId: 't1', fulfilment: 'x'.repeat(43) }] })],
    bulks: new Map([['bulk-1', storedBulk(B.accepted, 2)]]), items: storedItems('RESERVED', 'RESERVED'),
  });
  const decided = decideFulfilBatch({ events: fulfils, transfers: new Map([['t0', reserved('t0')], ['t1', reserved('t1')]]), now });
  assert.deepEqual(decided.positionEvents.map((event) => [event.message.id, event.action, event.message.bulkTransferId]), [['t0', 'commit', 'bulk-1'], ['t1', 'abort', 'bulk-1']]);
  assert.equal(decided.positionEvents[1].failure.code, FAILURE.validation);
});

test('routing: a bulk item\'s commit and abort become one final result each; the payee is not told on its own', () => {
  const fulfilMessage = { id: 'a', body: { fulfilment: 'abc' } };
  const events = [
    { id: 'a', action: 'commit', bulkTransferId: 'bulk-1' }, { id: 'b', action: 'abort', bulkTransferId: 'bulk-1' },
    { id: 'c', action: 'abort', bulkTransferId: 'bulk-1' }, { id: 'p', action: 'prepare', bulkTransferId: 'bulk-1' },
  ];
  const { bulkOf, finalOf } = bulkOfEvents(events);
  assert.deepEqual([[...bulkOf.keys()], [...finalOf.keys()]], [['p'], ['a', 'b', 'c']]);
  const invalid = failure(FAILURE.validation, 'wrong fulfilment');
  const routed = routeBulkOutcomes([
    tell.forwardFulfil('a', 'payer', fulfilMessage),
    tell.error('b', 'payer', invalid), tell.error('b', 'payee', invalid),
    tell.forwardError('c', 'payer', { id: 'c', body: { errorInformation: { errorCode: '5101', errorDescription: 'limit' } } }),
    tell.forwardPrepare('p', 'payee', {}),
  ], bulkOf, finalOf);
  assert.deepEqual(routed.outcomes, []);
  assert.deepEqual(routed.itemResults.map((result) => [result.transferId, result.action ?? 'prepare-result', result.result, result.fulfilment ?? result.errorInformation?.errorCode]), [
    ['a', FINAL_RESULT_ACTION, FINAL_RESULT.committed, 'abc'], ['b', FINAL_RESULT_ACTION, FINAL_RESULT.aborted, '3100'],
    ['c', FINAL_RESULT_ACTION, FINAL_RESULT.aborted, '5101'], ['p', 'prepare-result', ITEM_RESULT.reserved, undefined],
  ]);
});

const finalResult = (transferId, result, extra = {}) => ({ id: 'bulk-1', type: 'bulkItem', action: FINAL_RESULT_ACTION, transferId, result, ...extra });

test('bulk results: the first final result moves the bulk to PROCESSING; the last completes it with every item, those refused at prepare included', () => {
  const bulks = new Map([['bulk-1', storedBulk(B.accepted)]]);
  const first = decideBulkResults({ results: [finalResult('t0', 'COMMITTED', { fulfilment: 'abc' })], bulks, items: storedItems('RESERVED', 'RESERVED', 'FAILED') });
  assert.deepEqual(first.finals.map((result) => [result.transferId, result.result]), [['t0', 'COMMITTED']]);
  assert.deepEqual(first.bulkUpdates, [{ bulkTransferId: 'bulk-1', statePath: [B.processing] }]);
  assert.deepEqual(first.outcomes, []);
  const items = new Map([['bulk-1', storedItems('RESERVED', 'RESERVED', 'FAILED').get('bulk-1').map((row, index) => (index === 0 ? { ...row, finalResult: 'COMMITTED', fulfilment: 'abc' } : row))]]);
  const last = decideBulkResults({
    results: [finalResult('t1', 'ABORTED', { errorInformation: { errorCode: '3100', errorDescription: 'bad' } })], bulks: new Map([['bulk-1', storedBulk(B.processing)]]), items,
  });
  assert.deepEqual(last.bulkUpdates, [{ bulkTransferId: 'bulk-1', statePath: [B.completed] }]);
  assert.equal(last.outcomes.length, 1);
  assert.equal(last.outcomes[0].type, BULK_OUTCOME.completed);
  assert.deepEqual(last.outcomes[0].items.map((item) => [item.transferId, item.finalResult ?? item.prepareResult]), [['t0', 'COMMITTED'], ['t1', 'ABORTED'], ['t2', 'FAILED']]);
  const again = decideBulkResults({ results: [finalResult('t1', 'ABORTED')], bulks: new Map([['bulk-1', storedBulk(B.completed)]]), items: last.outcomes.map((outcome) => ['bulk-1', outcome.items]).reduce((map, [key, value]) => map.set(key, value), new Map()) });
  assert.deepEqual([again.finals, again.bulkUpdates], [[], []], 'a redelivered final result records nothing');
  assert.equal(again.outcomes[0].type, BULK_OUTCOME.completed, 'and produces the aggregated answer again');
  const whole = decideBulkResults({ results: [finalResult('t0', 'COMMITTED'), finalResult('t1', 'COMMITTED')], bulks: new Map([['bulk-1', storedBulk(B.accepted, 2)]]), items: storedItems('RESERVED', 'RESERVED') });
  assert.deepEqual(whole.bulkUpdates, [{ bulkTransferId: 'bulk-1', statePath: [B.processing, B.completed] }], 'ACCEPTED to COMPLETED in one batch');
});

test('bulk results: when the last items are the expiries of reservations never answered, the bulk is EXPIRED, told to the payer and the payee', () => {
  const items = new Map([['bulk-1', storedItems('RESERVED', 'RESERVED').get('bulk-1').map((row, index) => (index === 0 ? { ...row, finalResult: 'COMMITTED', fulfilment: 'abc' } : row))]]);
  const expired = decideBulkResults({
    results: [finalResult('t1', 'EXPIRED', { errorInformation: { errorCode: '3303', errorDescription: 'expired' } })], bulks: new Map([['bulk-1', storedBulk(B.processing, 2)]]), items,
  });
  assert.deepEqual(expired.bulkUpdates, [{ bulkTransferId: 'bulk-1', statePath: [B.expired] }]);
  assert.equal(expired.outcomes[0].type, BULK_OUTCOME.expired);
  assert.equal(fspiopBulkTransferState(B.expired), 'REJECTED');
  const unanswered = decideBulkResults({ results: [finalResult('t0', 'EXPIRED'), finalResult('t1', 'EXPIRED')], bulks: new Map([['bulk-1', storedBulk(B.accepted, 2)]]), items: storedItems('RESERVED', 'RESERVED') });
  assert.deepEqual(unanswered.bulkUpdates, [{ bulkTransferId: 'bulk-1', statePath: [B.expired] }], 'never answered: ACCEPTED to EXPIRED');
  const routed = routeBulkOutcomes([tell.error('a', 'payer', failure(FAILURE.transferExpired, 'expired')), tell.error('a', 'payee', failure(FAILURE.transferExpired, 'expired'))], new Map(), new Map([['a', 'bulk-1']]));
  assert.deepEqual(routed.itemResults.map((result) => [result.result, result.errorInformation.errorCode]), [[FINAL_RESULT.expired, '3303']]);
});

test('bulk dead letters: an item result set aside ends its bulk FAILED once, told to its payer (and its payee once forwarded); a request is refused to its sender', () => {
  const failed = failure(FAILURE.processingFailed, 'set aside');
  const poison = itemResult('t0', 'RESERVED');
  const received = decideDeadLetteredBulk({ event: poison, bulk: storedBulk(B.received), failure: failed });
  assert.deepEqual(received.bulkUpdates, [{ bulkTransferId: 'bulk-1', statePath: [B.failed] }]);
  const told = bulkNotificationRecords({ notificationEvent: 'notifications' }, received.outcomes, 'Hub', now).map((record) => decodeEvent(record.value));
  assert.deepEqual(told.map((event) => [event.to, event.callback.endpointType, event.body.errorInformation.errorCode]), [['payer', 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR', '2001']], 'the payee was never sent it');
  for (const state of [B.accepted, B.processing]) {
    const forwarded = decideDeadLetteredBulk({ event: { ...poison, action: FINAL_RESULT_ACTION }, bulk: storedBulk(state), failure: failed });
    const parties = bulkNotificationRecords({ notificationEvent: 'notifications' }, forwarded.outcomes, 'Hub', now).map((record) => decodeEvent(record.value).to);
    assert.deepEqual(parties, ['payer', 'payee'], `a ${state} bulk's payee is told too`);
  }
  for (const state of [B.failed, B.completed, B.rejected, B.expired]) {
    assert.deepEqual(decideDeadLetteredBulk({ event: poison, bulk: storedBulk(state), failure: failed }), { bulkUpdates: [], outcomes: [] }, `an ended bulk (${state}) is told nothing again`);
  }
  assert.deepEqual(decideDeadLetteredBulk({ event: poison, bulk: undefined, failure: failed }).outcomes, []);
  const request = { id: 'bulk-1', type: 'bulkTransfer', action: 'bulk-state', from: 'payer', headers: {} };
  const refused = decideDeadLetteredBulk({ event: request, failure: failed });
  assert.deepEqual([refused.bulkUpdates, refused.outcomes.map((outcome) => [outcome.type, outcome.to, outcome.failure.code])], [[], [[BULK_OUTCOME.refused, 'payer', FAILURE.processingFailed]]]);
  assert.equal(fspiopBulkTransferState(B.failed), 'REJECTED');
  assert.ok(isBulkFinal(B.failed));
  const answer = { id: 'bulk-1', type: 'bulkTransfer', action: 'bulk-fulfil', from: 'payee', body: { individualTransferResults: [] } };
  const expanded = expandBulkAnswers({ events: [answer], bulks: new Map([['bulk-1', storedBulk(B.failed)]]), items: storedItems('RESERVED') });
  assert.deepEqual([expanded.fulfils, expanded.outcomes.map((outcome) => outcome.failure.code)], [[], [FAILURE.processingFailed]], 'the payee\'s answer to a FAILED bulk moves nothing');
});

test('bulk sweep: a bulk still waiting past its expiry ends EXPIRED once, its payer told with the results it has, its payee 3303 only if it was sent the bulk', () => {
  const records = (outcomes) => bulkNotificationRecords({ notificationEvent: 'notifications' }, outcomes, 'Hub', now).map((record) => decodeEvent(record.value));
  const expiry = { id: 'bulk-1', type: 'bulkTransfer', action: 'bulk-expire', state: B.received };
  // Stuck RECEIVED: one item's prepare result was lost; the others expired.
  const items = new Map([['bulk-1', [
    { transferId: 't0', itemIndex: 0, prepareResult: 'RESERVED', finalResult: 'EXPIRED', errorInformation: { errorCode: '3303', errorDescription: 'Transfer expired' } },
    { transferId: 't1', itemIndex: 1, prepareResult: null },
  ]]]);
  const received = decideBulkResults({ results: [], expiries: [expiry], bulks: new Map([['bulk-1', storedBulk(B.received, 2)]]), items });
  assert.deepEqual(received.bulkUpdates, [{ bulkTransferId: 'bulk-1', statePath: [B.expired] }]);
  const told = records(received.outcomes);
  assert.deepEqual(told.map((event) => [event.to, event.body.bulkTransferState]), [['payer', 'REJECTED']], 'the payee was never sent it');
  assert.deepEqual(told[0].body.individualTransferResults, [{ transferId: 't0', errorInformation: { errorCode: '3303', errorDescription: 'Transfer expired' } }, { transferId: 't1' }], 'the lost result is listed by its id alone');
  // Stuck PROCESSING: forwarded, so the payee hears 3303 too.
  const processing = decideBulkResults({ results: [], expiries: [{ ...expiry, state: B.processing }, { ...expiry, state: B.processing }], bulks: new Map([['bulk-1', { ...storedBulk(B.processing, 2), expiresAt: now }]]), items: storedItems('RESERVED', 'RESERVED') });
  assert.deepEqual(processing.bulkUpdates.map((update) => update.statePath), [[B.expired]], 'swept once in a batch that asks twice');
  assert.deepEqual(records(processing.outcomes).map((event) => [event.to, event.body.errorInformation?.errorCode ?? event.body.bulkTransferState]), [['payer', 'REJECTED'], ['payee', '3303']]);
  // A result of the same batch that settles the bulk wins; an ended bulk is left as it is.
  const settled = decideBulkResults({ results: [itemResult('t1', 'FAILED', FAILURE.insufficientLiquidity)], expiries: [expiry], bulks: new Map([['bulk-1', storedBulk(B.received, 2)]]), items: storedItems('RESERVED', null) });
  assert.deepEqual(settled.bulkUpdates.map((update) => update.statePath), [[B.accepted]]);
  const since = decideBulkResults({ results: [], expiries: [expiry], bulks: new Map([['bulk-1', storedBulk(B.accepted, 2)]]), items: storedItems('RESERVED', 'RESERVED') });
  assert.deepEqual([since.bulkUpdates, since.outcomes], [[], []], 'a bulk that moved since the sweep saw it is left for the next sweep');
  for (const state of [B.completed, B.expired, B.failed, B.rejected]) {
    const ended = decideBulkResults({ results: [], expiries: [{ ...expiry, state }], bulks: new Map([['bulk-1', storedBulk(state, 2)]]), items: storedItems('RESERVED', 'RESERVED') });
    assert.deepEqual([ended.bulkUpdates, ended.outcomes], [[], []], `a ${state} bulk is not swept`);
  }
});

test('bulk answer refusals: the errors the fulfil decisions tell the payee about its items are one PUT /bulkTransfers/{ID}/error per bulk, each item named', () => {
  const headers = { 'content-type': 'application/vnd.interoperability.bulkTransfers+json;version=1.1' };
  const itemEvent = (id, bulkTransferId, action = 'commit') => ({ id, type: 'transfer', action, from: 'payee', to: 'payer', headers, bulkTransferId });
  const events = [itemEvent('t0', 'bulk-1'), itemEvent('t1', 'bulk-1', 'abort'), itemEvent('t2', 'bulk-2'), { id: 's0', type: 'transfer', action: 'commit', from: 'payee', headers }];
  const outcomes = [
    tell.error('t0', 'payee', failure(FAILURE.modifiedRequest, 'other content')), tell.error('t1', 'payee', failure(FAILURE.transferExpired, 'expired')),
    tell.error('t2', 'payee', failure(FAILURE.modifiedRequest, 'other content')), tell.error('s0', 'payee', failure(FAILURE.transferNotFound, 'no')),
    tell.error('t0', 'payer', failure(FAILURE.transferExpired, 'told to the payer as before')),
  ];
  const gathered = gatherBulkRefusals(outcomes, events);
  assert.deepEqual(gathered.outcomes.map((outcome) => [outcome.transferId, outcome.to]), [['s0', 'payee'], ['t0', 'payer']], 'a single transfer\'s and another party\'s errors are told as before');
  const records = bulkRefusalRecords({ notificationEvent: 'notifications' }, gathered.refusals, 'Hub').map((record) => [record.key, decodeEvent(record.value)]);
  assert.deepEqual(records.map(([key, event]) => [key, event.to, event.callback.endpointType, event.callback.version, event.body.errorInformation.errorCode]), [
    ['bulk-1', 'payee', 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR', '1.1', '3100'], ['bulk-2', 'payee', 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR', '1.1', '3106'],
  ], 'items of different codes are 3100, of one code that code');
  assert.deepEqual(records[0][1].body.errorInformation.extensionList.extension, [{ key: '3106', value: 't0' }, { key: '3303', value: 't1' }]);
  const many = Array.from({ length: 20 }, (_, index) => itemEvent(`m${index}`, 'bulk-3'));
  const [crowded] = bulkRefusalRecords({ notificationEvent: 'n' }, gatherBulkRefusals(many.map((event) => tell.error(event.id, 'payee', failure(FAILURE.invalidState, 'no'))), many).refusals, 'Hub');
  const { extension } = decodeEvent(crowded.value).body.errorInformation.extensionList;
  assert.equal(extension.length, 16, 'FSPIOP\'s extension list holds 16');
  assert.deepEqual(extension.at(-1), { key: 'more', value: '5 more individual transfers refused' });
  assert.deepEqual(gatherBulkRefusals(outcomes.slice(3), events.slice(3)), { outcomes: outcomes.slice(3), refusals: [] });
});
