// Account lookup's pending lookups against a database of their own: a GET /parties makes
// each payee it went to answerable by that payee, to that requester, until the lookup
// expires; the purge removes only what has expired. Times are passed in, never read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, testConfig } from '../support/environment.js';
import { createSqlPool } from '../../platform/db.js';
import { isPendingLookup, purgeExpiredLookups, recordPendingLookups } from '../../account-lookup/pending-lookups.js';

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

test('the purge deletes only expired lookups, at most `limit` of them', async () => {
  const party = { type: 'MSISDN', id: '27722222222', subId: 'WORK' };
  await recordPendingLookups(pool, { party, requester: 'payerfsp', payees: ['a', 'b', 'c'], expiresAt: at(10_000) });
  await recordPendingLookups(pool, { party, requester: 'payerfsp', payees: ['d'], expiresAt: at(90_000) });
  const count = async () => Number((await db('party_lookup').where({ party_identifier: party.id }).count({ n: '*' }))[0].n);
  assert.equal(await purgeExpiredLookups(pool, at(20_000), 2), 2);
  assert.equal(await count(), 2);
  assert.equal(await purgeExpiredLookups(pool, at(20_000), 100), 1);
  assert.equal(await isPendingLookup(pool, { party, requester: 'payerfsp', payee: 'd', now: at(20_000) }), true, 'what has not expired stays');
  assert.equal(await count(), 1);
});
