// The edges' key store: keys from a directory of <fsp>.pem files (two blocks during a
// rotation), a change seen within the cache bound, names that cannot reach a file path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KeyLookupLimitedError, createJwsKeyStore, directoryKeySource } from '../../platform/fspiop/jws-keys.js';
import { describePublicKey } from '../../platform/fspiop/jws.js';

const publicPem = () => generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: { type: 'spki', format: 'pem' } }).publicKey;

test('a <fsp>.pem file gives its keys, both blocks of a rotation; a DFSP without a file has none', async () => {
  const directory = mkdtempSync(join(tmpdir(), 'jws-keys-'));
  try {
    const [first, second] = [publicPem(), publicPem()];
    writeFileSync(join(directory, 'payerfsp.pem'), `${first}\n${second}`);
    const store = createJwsKeyStore({ sources: [directoryKeySource(directory)], ttlMs: 0 });
    assert.equal((await store.keysOf('payerfsp')).length, 2);
    assert.deepEqual(await store.keysOf('payeefsp'), []);
    assert.deepEqual(await store.keysOf('../payerfsp'), [], 'a name with a path separator reads no file');
  } finally {
    rmSync(directory, { recursive: true });
  }
});

test('a changed key set is read again once the cache bound has passed, not before', async () => {
  let clock = 0;
  let registered = [publicPem()];
  let reads = 0;
  const source = async () => { reads += 1; return registered; };
  const store = createJwsKeyStore({ sources: [source], ttlMs: 5_000, now: () => clock });
  assert.equal((await store.keysOf('payerfsp')).length, 1);
  registered = [registered[0], publicPem()];
  clock = 4_999;
  assert.equal((await store.keysOf('payerfsp')).length, 1, 'within the bound the cached set is used');
  clock = 5_001;
  assert.equal((await store.keysOf('payerfsp')).length, 2, 'past the bound the new set is read');
  assert.equal(reads, 2);
});

test('a failed read is not cached', async () => {
  let fail = true;
  const store = createJwsKeyStore({ sources: [async () => { if (fail) throw new Error('down'); return [publicPem()]; }], ttlMs: 60_000 });
  await assert.rejects(store.keysOf('payerfsp'));
  fail = false;
  assert.equal((await store.keysOf('payerfsp')).length, 1);
});

test('only RSA of 2048 bits or more and EC P-256 public keys can be registered', () => {
  assert.match(describePublicKey(publicPem()).keyId, /^[A-Za-z0-9_-]{43}$/);
  const small = generateKeyPairSync('rsa', { modulusLength: 1024, publicKeyEncoding: { type: 'spki', format: 'pem' } }).publicKey;
  assert.ok(describePublicKey(small).problem);
  assert.ok(describePublicKey('not a key').problem);
});

test('names never seen with keys are looked up at a bounded rate; known DFSPs and cached answers are not held back', async () => {
  let clock = 0;
  const reads = [];
  const source = async (fsp) => { reads.push(fsp); return fsp === 'payerfsp' ? [publicPem()] : []; };
  const store = createJwsKeyStore({ sources: [source], ttlMs: 5_000, unknownLookups: { perSecond: 1, burst: 3 }, now: () => clock });
  assert.equal((await store.keysOf('payerfsp')).length, 1, 'a first lookup takes a token');
  assert.deepEqual(await store.keysOf('invented1'), []);
  assert.deepEqual(await store.keysOf('invented2'), []);
  await assert.rejects(store.keysOf('invented3'), KeyLookupLimitedError, 'the bucket is empty: no read');
  assert.deepEqual(reads, ['payerfsp', 'invented1', 'invented2']);
  assert.deepEqual(await store.keysOf('invented1'), [], 'a cached "no keys" answer needs no token');
  clock += 6_000; // every cached answer has expired, and the bucket has refilled
  for (let index = 0; index < 5; index += 1) await store.keysOf('payerfsp');
  assert.equal(reads.filter((fsp) => fsp === 'payerfsp').length, 2, 'a DFSP with keys is read again when its answer expires, at no token');
  for (let index = 4; index < 7; index += 1) await store.keysOf(`invented${index}`);
  await assert.rejects(store.keysOf('invented7'), KeyLookupLimitedError);
});
