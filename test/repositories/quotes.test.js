// quoting/repositories/quotes.js's statements against a real MariaDB, run as the handler runs
// them (platform/db.js inTransaction): what insertQuotes stores and selectQuotes maps back
// (epoch milliseconds from BIGINT, the payee's answer byte for byte), what updateQuotes
// changes, the primary key refusing a quote stored twice (also when two transactions race),
// the locking read, and the participant states the handler checks.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, testConfig } from '../support/environment.js';
import { createSqlPool, inTransaction, isDuplicateKeyError, runStatement } from '../../platform/db.js';
import { QUOTE_STATE } from '../../quoting/domain/quotes.js';
import {
  insertQuotes, quotesFromRows, selectParticipantStates, selectQuotes, updateQuotes,
} from '../../quoting/repositories/quotes.js';
import { participantStatesFromRows } from '../../ledger/ports/participant-directory.js';
import { insertParticipant, setParticipantActive } from '../../ledger/repositories/participants.js';
import { isRowLocked, openTransaction, waitUntilLockWaiting } from './fixtures.js';
import { PAYLOAD_BYTES_MAX } from '../../platform/http/server.js';
import { ORIGINAL_BODY_HEADER } from '../../platform/iso20022/original.js';

const T0 = new Date('2030-05-01T09:00:00.000Z');
const T1 = new Date('2030-05-01T09:00:07.000Z');
// Epoch milliseconds past 2^32: BIGINT columns come back as strings and must still be exact.
const ACCEPTED_AT = 1_900_000_000_123;

let env;
let db;
let pool;

before(async () => {
  env = await createTestDatabase();
  db = env.db;
  pool = createSqlPool(testConfig().db, { database: env.name });
});
after(async () => {
  await pool?.end();
  await env?.drop();
});

const payeeAnswer = (overrides = {}) => ({
  headers: { 'fspiop-source': 'payeefsp', 'fspiop-signature': '{"signature":"abc"}' },
  // Spacing, key order and non-ASCII text as the payee sent them: replayed byte for byte.
  rawBody: '{"transferAmount":{"amount":"10","currency":"USD"},  "condition":"c0nd", "note":"café"}',
  condition: 'c0nd',
  errorCode: null,
  ...overrides,
});

function newQuote(overrides = {}) {
  return {
    quoteId: randomUUID(),
    payerFsp: 'payerfsp',
    payeeFsp: 'payeefsp',
    state: QUOTE_STATE.forwarded,
    requestHash: `hash-${randomUUID()}`,
    requestAt: ACCEPTED_AT,
    answerHash: null,
    answerAt: null,
    request: {
      headers: { 'fspiop-source': 'payerfsp' }, rawBody: '{"quoteId":"…"}', transactionId: randomUUID(), amount: '12.34', currency: 'USD', expiresAt: T1,
    },
    answer: null,
    ...overrides,
  };
}

const rowOf = (quoteId) => db('quote').where({ quote_id: quoteId }).first();
const insert = (quotes, now = T0) => inTransaction(pool, async (tx) => tx.write(insertQuotes(quotes, now)));
const update = (updates, now = T1) => inTransaction(pool, async (tx) => tx.write(...updateQuotes(updates, now)));
/** Quotes by id through `trx` (knex, so that a test can hold a transaction open on a connection it knows). */
const findQuotes = async (trx, quoteIds, options) => quotesFromRows(await runStatement(trx, selectQuotes(quoteIds, options)));
const insertIn = async (trx, quotes, now) => {
  const { sql, values } = insertQuotes(quotes, now);
  await trx.raw(sql, values);
};

test('insertQuotes stores the request; selectQuotes maps quotes back without it, times as exact numbers', async () => {
  const forwarded = newQuote();
  const unpersisted = newQuote({ request: null, requestAt: null });
  const answered = newQuote({ state: QUOTE_STATE.answered, answerHash: 'answer-hash', answerAt: ACCEPTED_AT + 5, answer: payeeAnswer() });
  await insert([forwarded, unpersisted, answered]);

  const found = await findQuotes(db, [answered.quoteId, forwarded.quoteId, unpersisted.quoteId, randomUUID(), forwarded.quoteId]);
  assert.equal(found.size, 3, 'unknown ids are absent, repeats collapse');
  assert.deepEqual(found.get(forwarded.quoteId), {
    quoteId: forwarded.quoteId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', state: QUOTE_STATE.forwarded, requestHash: forwarded.requestHash,
    requestAt: ACCEPTED_AT, answerHash: null, answerAt: null, answer: null,
  });
  assert.equal(found.get(unpersisted.quoteId).requestAt, null);
  assert.deepEqual(found.get(answered.quoteId).answer, {
    headers: payeeAnswer().headers, rawBody: payeeAnswer().rawBody, condition: 'c0nd', errorCode: null,
  });
  assert.equal(found.get(answered.quoteId).answerAt, ACCEPTED_AT + 5);

  const row = await rowOf(forwarded.quoteId);
  assert.deepEqual([row.amount, row.currency, row.transaction_id, row.request_body, JSON.parse(row.request_headers), row.expires_at.getTime()],
    ['12.3400', 'USD', forwarded.request.transactionId, forwarded.request.rawBody, forwarded.request.headers, T1.getTime()]);
  assert.deepEqual([row.created_at.getTime(), row.changed_at.getTime()], [T0.getTime(), T0.getTime()]);
  const bare = await rowOf(unpersisted.quoteId);
  assert.deepEqual([bare.amount, bare.request_body, bare.request_headers], [null, null, null], 'QUOTES_PERSIST=false keeps no request');
  assert.equal(selectQuotes([]), null, 'no ids, no statement');
  assert.equal(insertQuotes([], T0), null);
});

test('a quote id stored twice is refused by the primary key and nothing of that batch is written', async () => {
  const first = newQuote();
  await insert([first]);
  const other = newQuote();
  await assert.rejects(insert([other, { ...newQuote(), quoteId: first.quoteId }]), (error) => isDuplicateKeyError(error));
  assert.equal(await rowOf(other.quoteId), undefined, 'the batch rolled back as a whole');
  assert.equal((await rowOf(first.quoteId)).request_hash, first.requestHash, 'the stored quote is not replaced');
});

test('two transactions inserting the same new quote: the second waits for the first and is refused once it commits', async () => {
  const quote = newQuote();
  const first = await openTransaction(db);
  const second = await openTransaction(db);
  try {
    // Both checked first with a locking read, as the handler does; a missing row locks nothing.
    assert.equal((await findQuotes(first.trx, [quote.quoteId], { forUpdate: true })).size, 0);
    assert.equal((await findQuotes(second.trx, [quote.quoteId], { forUpdate: true })).size, 0);
    await insertIn(first.trx, [quote], T0);
    const racing = insertIn(second.trx, [{ ...quote, requestHash: 'other' }], T0);
    await waitUntilLockWaiting(db, second.threadId, racing);
    await first.trx.commit();
    await assert.rejects(racing, (error) => isDuplicateKeyError(error));
  } finally {
    if (!first.trx.isCompleted()) await first.trx.rollback();
    await second.trx.rollback();
  }
  assert.equal((await rowOf(quote.quoteId)).request_hash, quote.requestHash);
});

test('selectQuotes with forUpdate locks the quotes until the transaction ends', async () => {
  const quote = newQuote();
  await insert([quote]);
  const holder = await openTransaction(db);
  try {
    await findQuotes(holder.trx, [quote.quoteId], { forUpdate: true });
    assert.equal(await isRowLocked(db, 'quote', 'quote_id', quote.quoteId), true);
  } finally {
    await holder.trx.rollback();
  }
  assert.equal(await isRowLocked(db, 'quote', 'quote_id', quote.quoteId), false);
});

test('updateQuotes applies each quote its own changes, touching only those quotes', async () => {
  const toAnswer = newQuote();
  const resent = newQuote({ state: QUOTE_STATE.answered, answerHash: 'old', answerAt: ACCEPTED_AT + 1 });
  const answerDropped = newQuote({ state: QUOTE_STATE.answered, answerHash: 'kept', answerAt: ACCEPTED_AT + 1, answer: payeeAnswer() });
  const untouched = newQuote();
  await insert([toAnswer, resent, answerDropped, untouched]);
  const newRequest = { ...toAnswer.request, rawBody: '{"resent":true}', amount: '99.5', transactionId: randomUUID() };
  const failed = payeeAnswer({ rawBody: '{"errorInformation":{"errorCode":"5100"}}', condition: null, errorCode: '5100' });

  await update([
    { quoteId: toAnswer.quoteId, changes: { state: QUOTE_STATE.failed, answerHash: 'err-hash', answerAt: ACCEPTED_AT + 9, answer: failed } },
    { quoteId: resent.quoteId, changes: { state: QUOTE_STATE.forwarded, answerHash: null, answerAt: null, requestAt: ACCEPTED_AT + 20, request: newRequest } },
    { quoteId: answerDropped.quoteId, changes: { answer: null } },
  ]);

  const found = await findQuotes(db, [toAnswer, resent, answerDropped, untouched].map((quote) => quote.quoteId));
  const answered = found.get(toAnswer.quoteId);
  assert.deepEqual([answered.state, answered.answerHash, answered.answerAt, answered.answer],
    [QUOTE_STATE.failed, 'err-hash', ACCEPTED_AT + 9, { headers: failed.headers, rawBody: failed.rawBody, condition: null, errorCode: '5100' }]);
  const again = found.get(resent.quoteId);
  assert.deepEqual([again.state, again.answerHash, again.answerAt, again.requestAt], [QUOTE_STATE.forwarded, null, null, ACCEPTED_AT + 20]);
  const resentRow = await rowOf(resent.quoteId);
  assert.deepEqual([resentRow.request_body, resentRow.amount, resentRow.transaction_id], ['{"resent":true}', '99.5000', newRequest.transactionId]);
  const dropped = found.get(answerDropped.quoteId);
  assert.deepEqual([dropped.answer, dropped.answerHash, dropped.state], [null, 'kept', QUOTE_STATE.answered], 'only the named change is made');
  const kept = found.get(untouched.quoteId);
  assert.deepEqual([kept.state, kept.requestHash, kept.requestAt, kept.answerHash], [QUOTE_STATE.forwarded, untouched.requestHash, ACCEPTED_AT, null]);
  assert.equal((await rowOf(untouched.quoteId)).changed_at.getTime(), T0.getTime(), 'a quote not in the updates keeps its changed_at');
  assert.equal((await rowOf(toAnswer.quoteId)).changed_at.getTime(), T1.getTime());
});

test('selectParticipantStates answers for the named participants and both DFSPs of the stored quotes, ignoring names that cannot be one', async () => {
  await db.transaction(async (trx) => {
    for (const name of ['activefsp', 'payerofquote', 'payeeofquote']) await insertParticipant(trx, { name, createdBy: 'test', now: T0 });
    const sleepy = await insertParticipant(trx, { name: 'sleepyfsp', createdBy: 'test', now: T0 });
    await setParticipantActive(trx, sleepy, false);
  });
  const stored = newQuote({ payerFsp: 'payerofquote', payeeFsp: 'payeeofquote' });
  await insert([stored]);
  const statesOf = async (names, quoteIds) => [...participantStatesFromRows(await runStatement(db, selectParticipantStates(names, quoteIds))).entries()].sort();

  assert.deepEqual(await statesOf(['activefsp', 'sleepyfsp', 'unknownfsp', '', null, 42, 'activefsp'], []),
    [['activefsp', { isActive: true }], ['sleepyfsp', { isActive: false }]]);
  assert.deepEqual(await statesOf(['activefsp'], [stored.quoteId, randomUUID()]),
    [['activefsp', { isActive: true }], ['payeeofquote', { isActive: true }], ['payerofquote', { isActive: true }]], 'a stored quote brings both its DFSPs');
  assert.deepEqual(await statesOf([undefined], [stored.quoteId]), [['payeeofquote', { isActive: true }], ['payerofquote', { isActive: true }]]);
  assert.equal(selectParticipantStates(['', undefined], []), null, 'nothing to read, no statement');
});

test('a quote that came as ISO 20022 keeps its original in its headers, up to the edge\'s body limit and escaped as JSON', async () => {
  // The edge takes bodies up to PAYLOAD_BYTES_MAX; as a JSON string every '"' doubles, so
  // headers holding such an original outgrow a TEXT column (migration 20261203110000).
  const original = `{"GrpHdr":${JSON.stringify({ MsgId: '"'.repeat(PAYLOAD_BYTES_MAX / 2 - 20) })}}`.slice(0, PAYLOAD_BYTES_MAX);
  const headers = { 'fspiop-source': 'payerfsp', 'content-type': 'application/vnd.interoperability.iso20022.quotes+json;version=2.0', [ORIGINAL_BODY_HEADER]: original };
  const quote = newQuote({ state: QUOTE_STATE.answered, answerHash: 'answer-hash', answerAt: ACCEPTED_AT + 5, answer: payeeAnswer({ headers }) });
  quote.request.headers = headers;
  assert.ok(JSON.stringify(headers).length > 65_535, 'the headers are larger than a TEXT column');
  await insert([quote]);
  const found = await findQuotes(db, [quote.quoteId]);
  assert.equal(found.get(quote.quoteId).answer.headers[ORIGINAL_BODY_HEADER], original);
  assert.equal(JSON.parse((await rowOf(quote.quoteId)).request_headers)[ORIGINAL_BODY_HEADER], original);
});
