// Account lookup's pending lookups against a database of their own: a GET /parties makes
// each payee it went to answerable by that payee, to that requester, until the lookup
// expires; the purge removes only what has expired. Times are passed in, never read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, testConfig } from '../support/environment.js';
import { createSqlPool } from '../../platform/db.js';
import { PURGE_BATCH_ROWS, isPendingLookup, purgeExpiredLookups, recordPendingLookups } from '../../account-lookup/pending-lookups.js';

let env;
let db;
let pool; // the account-lookup process runs these statements on a mysql2 pool

before(async () => {
  env = await createTestDatabase();
  db = env.db;
  pool = createSqlPool(testConfig().db, { database: env.name });
});
after(async () => {
  await pool?.end();
  await env?.drop();
});

const T0 = new Date('2030-05-01T09:00:00.000Z');
const at = (ms) => new Date(T0.getTime() + ms);

test('a lookup is pending for each payee it went to, from that requester, for that party, until it expires', async () => {
  const party = { type: 'MSISDN', id: '27711111111' };
  await recordPendingLookups(pool, { party, requester: 'payerfsp', payees: ['payeefsp', 'secondfsp'], expiresAt: at(60_000) });
  const pending = (overrides) => isPendingLookup(pool, { party, requester: 'payerfsp', payee: 'payeefsp', now: at(1_000), ...overrides });
  assert.equal(await pending(), true);
  assert.equal(await pending({ payee: 'secondfsp' }), true, 'every payee the GET went to may answer');
  assert.equal(await pending({ payee: 'otherfsp' }), false, 'a DFSP that was not asked may not');
  assert.equal(await pending({ requester: 'otherfsp' }), false, 'nor may an answer go to a DFSP that did not ask');
  assert.equal(await pending({ party: { type: 'MSISDN', id: '27711111112' } }), false, 'another party is another lookup');
  assert.equal(await pending({ party: { ...party, subId: 'PASSPORT' } }), false, 'a sub-id is part of the party');
  assert.equal(await pending({ now: at(60_000) }), false, 'expired at its expiry');
});

const countOf = async (party) => Number((await db('party_lookup').where({ party_identifier: party.id }).count({ n: '*' }))[0].n);

test('the purge deletes only what expired at or before its time', async () => {
  const party = { type: 'MSISDN', id: '27722222222', subId: 'WORK' };
  await recordPendingLookups(pool, { party, requester: 'payerfsp', payees: ['a', 'b', 'c'], expiresAt: at(10_000) });
  await recordPendingLookups(pool, { party, requester: 'payerfsp', payees: ['d'], expiresAt: at(90_000) });
  assert.equal(await purgeExpiredLookups(pool, at(9_999), { batchRows: 2 }), 0);
  assert.equal(await countOf(party), 4);
  assert.equal(await purgeExpiredLookups(pool, at(10_000), { batchRows: 2 }), 3, 'a full batch, then the rest');
  assert.equal(await isPendingLookup(pool, { party, requester: 'payerfsp', payee: 'd', now: at(20_000) }), true, 'what has not expired stays');
  assert.equal(await countOf(party), 1);
});

test('one purge call drains a backlog of several batches, each DELETE bounded, and leaves what has not expired', async () => {
  const party = { type: 'MSISDN', id: '27733333333' };
  const backlog = 2 * PURGE_BATCH_ROWS + 500;
  await recordPendingLookups(pool, { party, requester: 'payerfsp', payees: Array.from({ length: backlog }, (_, i) => `payee${i}`), expiresAt: at(5_000) });
  await recordPendingLookups(pool, { party, requester: 'payerfsp', payees: ['e', 'f'], expiresAt: at(90_000) });
  const deletes = [];
  const counting = {
    async query(sql, values) {
      const result = await pool.query(sql, values);
      if (sql.startsWith('DELETE')) deletes.push(result[0].affectedRows);
      return result;
    },
  };
  // Before any other test's lookups expire, so the call's count is this test's backlog.
  assert.equal(await purgeExpiredLookups(counting, at(8_000)), backlog);
  assert.deepEqual(deletes, [PURGE_BATCH_ROWS, PURGE_BATCH_ROWS, 500], 'batch after batch, none past the bound');
  assert.equal(await countOf(party), 2);
  assert.equal(await isPendingLookup(pool, { party, requester: 'payerfsp', payee: 'f', now: at(8_000) }), true);
});
