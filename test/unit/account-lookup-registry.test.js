// Which oracle serves a party id type, and how long the edge trusts what it read: the oracle
// registry and the participant directory, with fake reads and a fake clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseOracleUrl } from '../../account-lookup/domain/oracles.js';
import { createOracleRegistry } from '../../account-lookup/oracle-registry.js';
import { createParticipantDirectory } from '../../account-lookup/participant-directory.js';

const BUILT_IN = 'http://builtin';
const oracle = (id, type, url, { currency = null, isDefault = false } = {}) => ({ id, type, url, currency, isDefault });

test('an id type nobody registered is served by the built-in oracle', () => {
  assert.equal(chooseOracleUrl([], { type: 'MSISDN' }, BUILT_IN), BUILT_IN);
  assert.equal(chooseOracleUrl([oracle(1, 'EMAIL', 'http://mail')], { type: 'MSISDN' }, BUILT_IN), BUILT_IN);
});

test('the default wins among several, then the oldest', () => {
  const oracles = [oracle(3, 'MSISDN', 'http://c'), oracle(2, 'MSISDN', 'http://b', { isDefault: true }), oracle(1, 'MSISDN', 'http://a')];
  assert.equal(chooseOracleUrl(oracles, { type: 'MSISDN' }, BUILT_IN), 'http://b');
  assert.equal(chooseOracleUrl(oracles.filter((o) => !o.isDefault), { type: 'MSISDN' }, BUILT_IN), 'http://a');
});

test('a currency picks its own oracle, then one for every currency, then the built-in one', () => {
  const oracles = [oracle(1, 'MSISDN', 'http://usd', { currency: 'USD' }), oracle(2, 'MSISDN', 'http://any')];
  assert.equal(chooseOracleUrl(oracles, { type: 'MSISDN', currency: 'USD' }, BUILT_IN), 'http://usd');
  assert.equal(chooseOracleUrl(oracles, { type: 'MSISDN', currency: 'EUR' }, BUILT_IN), 'http://any');
  assert.equal(chooseOracleUrl(oracles, { type: 'MSISDN' }, BUILT_IN), 'http://any');
  const usdOnly = [oracle(1, 'MSISDN', 'http://usd', { currency: 'USD' })];
  assert.equal(chooseOracleUrl(usdOnly, { type: 'MSISDN', currency: 'EUR' }, BUILT_IN), BUILT_IN);
  assert.equal(chooseOracleUrl(usdOnly, { type: 'MSISDN' }, BUILT_IN), 'http://usd', 'a lookup without currency uses any oracle of the type');
});

test('the registry is read once per TTL, shared by concurrent requests, and kept when a refresh fails', async () => {
  let clock = 0;
  let reads = 0;
  let rows = [oracle(1, 'MSISDN', 'http://one')];
  let failing = false;
  const registry = createOracleRegistry({
    readAll: async () => { reads += 1; if (failing) throw new Error('database away'); return rows; },
    builtInUrl: BUILT_IN, ttlMs: 1000, now: () => clock,
  });
  const urls = await Promise.all([registry.urlFor({ type: 'MSISDN' }), registry.urlFor({ type: 'MSISDN' })]);
  assert.deepEqual(urls, ['http://one', 'http://one']);
  assert.equal(reads, 1);
  rows = [oracle(2, 'MSISDN', 'http://two')];
  clock = 999;
  assert.equal(await registry.urlFor({ type: 'MSISDN' }), 'http://one');
  clock = 1001;
  assert.equal(await registry.urlFor({ type: 'MSISDN' }), 'http://two');
  failing = true;
  clock = 5000;
  assert.equal(await registry.urlFor({ type: 'MSISDN' }), 'http://two', 'a stale registry beats none');
});

test('with TTL 0 every request reads the registry; a first read that fails rejects', async () => {
  let reads = 0;
  const registry = createOracleRegistry({ readAll: async () => { reads += 1; return []; }, builtInUrl: BUILT_IN, ttlMs: 0 });
  await registry.urlFor({ type: 'MSISDN' });
  await registry.urlFor({ type: 'MSISDN' });
  assert.equal(reads, 2);
  const broken = createOracleRegistry({ readAll: async () => { throw new Error('no database'); }, builtInUrl: BUILT_IN, ttlMs: 10 });
  await assert.rejects(broken.urlFor({ type: 'MSISDN' }), /no database/);
});

test('the directory admits active DFSPs only, never the hub, and caches answers for the TTL', async () => {
  let clock = 0;
  const participants = new Map([['payerfsp', { name: 'payerfsp', isActive: true }], ['Hub', { name: 'Hub', isActive: true }]]);
  let reads = 0;
  const directory = createParticipantDirectory({
    findParticipant: async (name) => { reads += 1; return participants.get(name) ?? null; }, hubName: 'Hub', ttlMs: 100, now: () => clock,
  });
  assert.equal(await directory.isActiveDfsp('payerfsp'), true);
  assert.equal(await directory.isActiveDfsp('Hub'), false);
  assert.equal(await directory.isActiveDfsp('nobody'), false);
  assert.equal(await directory.isActiveDfsp(undefined), false);
  participants.set('payerfsp', { name: 'payerfsp', isActive: false });
  assert.equal(await directory.isActiveDfsp('payerfsp'), true, 'cached within the TTL');
  clock = 101;
  assert.equal(await directory.isActiveDfsp('payerfsp'), false, 'a deactivated DFSP is refused after the TTL');
  assert.equal(reads, 4);
});

test('a failed participant read is not cached', async () => {
  let fail = true;
  const directory = createParticipantDirectory({
    findParticipant: async (name) => { if (fail) throw new Error('db'); return { name, isActive: true }; }, hubName: 'Hub', ttlMs: 10_000,
  });
  await assert.rejects(directory.isActiveDfsp('payerfsp'));
  fail = false;
  assert.equal(await directory.isActiveDfsp('payerfsp'), true);
});
