// quoting/repositories/transaction-requests.js and authorizations.js against a real MariaDB,
// run as the handler runs them (platform/db.js inTransaction): what the decisions insert is
// read back as they decided it, the link to the paying quote is written on the transaction
// request, and an authorization's new round replaces its request and forgets its answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, testConfig } from '../support/environment.js';
import { createSqlPool, inTransaction } from '../../platform/db.js';
import { QUOTE_STATE } from '../../quoting/domain/quotes.js';
import { decideTransactionRequestBatch } from '../../quoting/domain/transaction-requests.js';
import { decideAuthorizationBatch } from '../../quoting/domain/authorizations.js';
import {
  insertTransactionRequests, selectTransactionRequests, transactionRequestsFromRows, updateTransactionRequests,
} from '../../quoting/repositories/transaction-requests.js';
import {
  authorizationsFromRows, insertAuthorizations, selectAuthorizations, updateAuthorizations,
} from '../../quoting/repositories/authorizations.js';

const NOW = new Date('2030-05-01T09:00:00.000Z');
const PARTIES = new Map([['merchantfsp', { isActive: true }], ['walletfsp', { isActive: true }]]);

let env;
let pool;

before(async () => {
  env = await createTestDatabase();
  pool = createSqlPool(testConfig().db, { database: env.name });
});
after(async () => {
  await pool?.end();
  await env?.drop();
});

const read = (statements) => inTransaction(pool, (tx) => tx.read(...statements));
const write = (statements) => inTransaction(pool, async (tx) => { tx.write(...statements); });

function event(type, action, id, { from, to, body, query, at }) {
  const headers = { 'fspiop-source': from, 'fspiop-destination': to };
  return { id, type, action, from, to, headers, body, rawBody: body === undefined ? undefined : JSON.stringify(body), at, ...(query ? { query } : {}) };
}

async function relayedTransactionRequest() {
  const id = randomUUID();
  const body = {
    transactionRequestId: id,
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '1', fspId: 'merchantfsp' } },
    payer: { partyIdType: 'MSISDN', partyIdentifier: '2', fspId: 'walletfsp' },
    amount: { amount: '12.5', currency: 'USD' },
    transactionType: { scenario: 'PAYMENT', initiator: 'PAYEE', initiatorType: 'BUSINESS' },
  };
  const decided = decideTransactionRequestBatch({
    events: [event('transactionRequest', 'request', id, { from: 'merchantfsp', to: 'walletfsp', body, at: 1000 })], transactionRequests: new Map(), participants: PARTIES, persist: true,
  });
  await write([insertTransactionRequests(decided.inserts, NOW)]);
  return id;
}

test('a transaction request is stored as decided, and the quote that pays it is linked to it', async () => {
  const id = await relayedTransactionRequest();
  const [rows] = await read([selectTransactionRequests([id], { forUpdate: true })]);
  const stored = transactionRequestsFromRows(rows).get(id);
  assert.deepEqual([stored.payeeFsp, stored.payerFsp, stored.state, stored.requestAt], ['merchantfsp', 'walletfsp', QUOTE_STATE.forwarded, 1000]);
  const quoteId = randomUUID();
  const transactionId = randomUUID();
  await write(updateTransactionRequests([{ transactionRequestId: id, changes: { quoteId, transactionId } }], NOW));
  const row = await env.db('transaction_request').where({ transaction_request_id: id }).first();
  assert.deepEqual([row.quote_id, row.transaction_id, row.amount, row.currency, row.state], [quoteId, transactionId, '12.5000', 'USD', 'FORWARDED']);
});

test('an authorization is stored with its query; a new round after the answer replaces the request and forgets the answer', async () => {
  const id = await relayedTransactionRequest();
  const [trRows] = await read([selectTransactionRequests([id])]);
  const transactionRequests = transactionRequestsFromRows(trRows);
  const decide = async (events) => {
    const [rows] = await read([selectAuthorizations([id], { forUpdate: true })]);
    const decided = decideAuthorizationBatch({ events, authorizations: authorizationsFromRows(rows), transactionRequests, participants: PARTIES, persist: true });
    await write([insertAuthorizations(decided.inserts, NOW), ...updateAuthorizations(decided.updates, NOW)]);
    return decided;
  };
  const query = { authenticationType: 'OTP', retriesLeft: '2', amount: '12.5', currency: 'USD' };
  await decide([event('authorization', 'request', id, { from: 'walletfsp', to: 'merchantfsp', query, at: 1000 })]);
  const answer = { authenticationInfo: { authentication: 'OTP', authenticationValue: '1234' }, responseType: 'ENTERED' };
  await decide([event('authorization', 'response', id, { from: 'merchantfsp', to: 'walletfsp', body: answer, at: 2000 })]);
  let row = await env.db('authorization').where({ transaction_request_id: id }).first();
  assert.deepEqual([row.payer_fsp, row.payee_fsp, row.state, row.retries_left, row.answer_body], ['walletfsp', 'merchantfsp', 'ANSWERED', '2', JSON.stringify(answer)]);
  const firstHash = row.request_hash;
  const round = await decide([event('authorization', 'request', id, { from: 'walletfsp', to: 'merchantfsp', query: { ...query, retriesLeft: '1' }, at: 3000 })]);
  assert.equal(round.outcomes.length, 1);
  row = await env.db('authorization').where({ transaction_request_id: id }).first();
  assert.deepEqual([row.state, row.retries_left, row.answer_hash, row.answer_body, String(row.request_at)], ['FORWARDED', '1', null, null, '3000']);
  assert.notEqual(row.request_hash, firstHash);
});
