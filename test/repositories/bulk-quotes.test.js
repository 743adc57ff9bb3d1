// quoting/repositories/bulk-quotes.js's statements against a real MariaDB, run as the handler
// runs them (platform/db.js inTransaction): what insertBulkQuotes stores and selectBulkQuotes
// maps back (the quoteIds with and without a kept request), what updateBulkQuotes changes, and
// the parties' active position currencies read through the ledger's port.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, testConfig } from '../support/environment.js';
import { createSqlPool, inTransaction } from '../../platform/db.js';
import { QUOTE_STATE } from '../../quoting/domain/quotes.js';
import {
  bulkPartiesFromRows, bulkQuotesFromRows, insertBulkQuotes, selectBulkParties, selectBulkQuotes, updateBulkQuotes,
} from '../../quoting/repositories/bulk-quotes.js';
import { insertAccounts, insertParticipant, setParticipantActive } from '../../ledger/repositories/participants.js';

const NOW = new Date('2030-05-01T09:00:00.000Z');
const ACCEPTED_AT = 1_900_000_000_123;

let env;
let pool;

async function participant(name, currencies, { isActive = true } = {}) {
  const { db } = env;
  const participantId = await insertParticipant(db, { name, createdBy: 'test', now: NOW });
  for (const currency of currencies) await insertAccounts(db, { participantId, currency, types: ['POSITION', 'SETTLEMENT'], isActive: true, createdBy: 'test', now: NOW });
  if (!isActive) await setParticipantActive(db, participantId, false);
}

before(async () => {
  env = await createTestDatabase();
  pool = createSqlPool(testConfig().db, { database: env.name });
  await participant('payerfsp', ['USD', 'EUR']);
  await participant('payeefsp', ['USD']);
  await participant('sleepyfsp', ['USD'], { isActive: false });
});
after(async () => {
  await pool?.end();
  await env?.drop();
});

const read = (statements) => inTransaction(pool, (tx) => tx.read(...statements));

const bulkQuote = (id, quoteIds, request) => ({
  bulkQuoteId: id, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', quoteIds, state: QUOTE_STATE.forwarded, requestHash: 'h1',
  requestAt: ACCEPTED_AT, answerHash: null, answerAt: null, answer: null, request,
});

test('the parties\' states and active position currencies, and the stored bulk quotes\' parties', async () => {
  const [factRows, stateRows] = await read(selectBulkParties(['payerfsp', 'payeefsp', 'sleepyfsp', 'ghostfsp'], []));
  const parties = bulkPartiesFromRows(factRows, stateRows);
  assert.deepEqual([...parties.get('payerfsp').activePositionCurrencies].sort(), ['EUR', 'USD']);
  assert.deepEqual([parties.get('payeefsp').isActive, parties.get('payeefsp').activePositionCurrencies], [true, ['USD']]);
  assert.equal(parties.get('sleepyfsp').isActive, false);
  assert.equal(parties.has('ghostfsp'), false);
});

test('a bulk quote stored with its quoteIds, count and currencies, read back locked, and answered; without a kept request the quoteIds stay', async () => {
  const id = randomUUID();
  const quoteIds = Array.from({ length: 1000 }, () => randomUUID());
  const request = { headers: { 'fspiop-source': 'payerfsp' }, rawBody: '{ "bulkQuoteId" : "x" }', itemCount: 1000, currencies: ['USD', 'EUR'] };
  const unkeptId = randomUUID();
  await inTransaction(pool, async (tx) => { tx.write(insertBulkQuotes([bulkQuote(id, quoteIds, request), bulkQuote(unkeptId, quoteIds.slice(0, 2), null)], NOW)); });
  const rawAnswer = '{"individualQuoteResults": [{"quoteId":"q"}],  "expiration":"e"}';
  const changes = { state: QUOTE_STATE.answered, answerHash: 'h2', answerAt: ACCEPTED_AT + 1, answer: { headers: { 'fspiop-source': 'payeefsp' }, rawBody: rawAnswer, errorCode: null } };
  await inTransaction(pool, async (tx) => {
    const [rows, factRows, stateRows] = await tx.read(selectBulkQuotes([id, unkeptId], { forUpdate: true }), ...selectBulkParties([], [id]));
    const records = bulkQuotesFromRows(rows);
    const { request: kept, ...withoutRequest } = bulkQuote(id, quoteIds, request);
    assert.ok(kept, 'the request is stored but no decision reads it back');
    assert.deepEqual(records.get(id), withoutRequest);
    assert.deepEqual(records.get(unkeptId).quoteIds, quoteIds.slice(0, 2));
    const parties = bulkPartiesFromRows(factRows, stateRows);
    assert.deepEqual([parties.get('payerfsp'), parties.get('payeefsp')], [{ isActive: true }, { isActive: true }]);
    tx.write(...updateBulkQuotes([{ bulkQuoteId: id, changes }], NOW));
  });
  const [rows] = await read([selectBulkQuotes([id])]);
  const stored = bulkQuotesFromRows(rows).get(id);
  assert.deepEqual([stored.state, stored.answerHash, stored.answer.rawBody, stored.quoteIds.length], ['ANSWERED', 'h2', rawAnswer, 1000]);
  const row = await env.db('bulk_quote').where({ bulk_quote_id: id }).first();
  assert.deepEqual([row.item_count, row.currencies, row.request_body], [1000, 'USD,EUR', request.rawBody]);
  const unkept = await env.db('bulk_quote').where({ bulk_quote_id: unkeptId }).first();
  assert.deepEqual([unkept.item_count, unkept.currencies, unkept.request_body], [null, null, null]);
});
