// FSPIOP JWS: what the switch signs verifies, and every way a message can differ from what
// was signed is refused. Keys are generated here; Mojaloop's own signer and validator (from
// the SDK interop test's install) prove the format is theirs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FlattenedSign, flattenedVerify } from 'jose';
import { signFspiopMessage, verifyFspiopMessage, privateKeyFromPem, publicKeyFromPem } from '../../platform/fspiop/jws.js';

const PEM = { type: 'spki', format: 'pem' };
const PRIVATE_PEM = { type: 'pkcs8', format: 'pem' };
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: PEM, privateKeyEncoding: PRIVATE_PEM });
const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: PEM, privateKeyEncoding: PRIVATE_PEM });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256', publicKeyEncoding: PEM, privateKeyEncoding: PRIVATE_PEM });

const BODY = JSON.stringify({ transferId: '0195b3c2-aaaa-7bbb-8ccc-000000000001', amount: { amount: '10.5', currency: 'USD' } });
const HEADERS = Object.freeze({
  'content-type': 'application/vnd.interoperability.transfers+json;version=1.1',
  date: 'Sun, 22 Nov 2026 19:00:00 GMT',
  'fspiop-source': 'payerfsp',
  'fspiop-destination': 'payeefsp',
});

async function signed({ key = rsa.privateKey, alg, method = 'POST', uri = '/transfers', headers = HEADERS, body = BODY } = {}) {
  const added = await signFspiopMessage({ privateKey: privateKeyFromPem(key), alg, method, uri, headers, body });
  return { ...headers, ...added };
}

const verify = (headers, { method = 'POST', uri = '/transfers', body = BODY, keys = [publicKeyFromPem(rsa.publicKey)] } = {}) =>
  verifyFspiopMessage({ method, uri, headers, body, keys });

for (const [alg, pair] of [['RS256', rsa], ['PS256', rsa], ['ES256', ec]]) {
  test(`a ${alg} signature over the exact body verifies with the sender's key`, async () => {
    const headers = await signed({ key: pair.privateKey, alg });
    const header = JSON.parse(Buffer.from(JSON.parse(headers['fspiop-signature']).protectedHeader, 'base64url').toString());
    assert.deepEqual(header, {
      alg, 'FSPIOP-URI': '/transfers', 'FSPIOP-HTTP-Method': 'POST', 'FSPIOP-Source': 'payerfsp',
      'FSPIOP-Destination': 'payeefsp', Date: HEADERS.date,
    });
    assert.equal(await verify(headers, { keys: [publicKeyFromPem(pair.publicKey)] }), null);
    assert.equal(await verify(headers, { body: Buffer.from(BODY), keys: [publicKeyFromPem(pair.publicKey)] }), null);
  });
}

test('an RSA key signs RS256 unless told otherwise, as Mojaloop signs', async () => {
  const headers = await signed();
  const { protectedHeader } = JSON.parse(headers['fspiop-signature']);
  assert.equal(JSON.parse(Buffer.from(protectedHeader, 'base64url').toString()).alg, 'RS256');
});

test('a missing or malformed signature is refused', async () => {
  assert.match(await verify(HEADERS), /missing/);
  assert.match(await verify({ ...HEADERS, 'fspiop-signature': 'not json' }), /not JSON/);
  assert.match(await verify({ ...HEADERS, 'fspiop-signature': '{"signature":"x"}' }), /protectedHeader/);
  assert.match(await verify({ ...HEADERS, 'fspiop-signature': '{"signature":"x","protectedHeader":"!!"}' }), /must be base64url/);
  const notJson = Buffer.from('not json').toString('base64url');
  assert.match(await verify({ ...HEADERS, 'fspiop-signature': `{"signature":"x","protectedHeader":"${notJson}"}` }), /base64url JSON/);
});

test('a signature by another key, or with no key registered, is refused', async () => {
  const headers = await signed({ key: otherRsa.privateKey });
  assert.match(await verify(headers), /does not verify/);
  assert.match(await verify(headers, { keys: [] }), /no key is registered/);
});

test('either of two registered keys verifies (rotation)', async () => {
  const headers = await signed({ key: otherRsa.privateKey });
  assert.equal(await verify(headers, { keys: [publicKeyFromPem(rsa.publicKey), publicKeyFromPem(otherRsa.publicKey)] }), null);
});

test('a tampered body is refused, even one that differs only in white space', async () => {
  const headers = await signed();
  assert.match(await verify(headers, { body: BODY.replace('10.5', '1000') }), /does not verify/);
  assert.match(await verify(headers, { body: `${BODY} ` }), /does not verify/);
});

test('a replay to another URI or with another method is refused', async () => {
  const headers = await signed({ uri: '/transfers/abc', method: 'PUT' });
  assert.equal(await verify(headers, { uri: '/transfers/abc', method: 'PUT' }), null);
  assert.match(await verify(headers, { uri: '/transfers/abc/error', method: 'PUT' }), /FSPIOP-URI/);
  assert.match(await verify(headers, { uri: '/transfers/abc', method: 'POST' }), /FSPIOP-HTTP-Method/);
});

test('a signed header changed after signing is refused', async () => {
  const headers = await signed();
  assert.match(await verify({ ...headers, 'fspiop-source': 'mallory' }), /FSPIOP-Source/);
  assert.match(await verify({ ...headers, 'fspiop-destination': 'otherfsp' }), /FSPIOP-Destination/);
  const { 'fspiop-destination': _dropped, ...withoutDestination } = headers;
  assert.match(await verify(withoutDestination), /FSPIOP-Destination/);
  assert.match(await verify({ ...headers, date: 'Mon, 23 Nov 2026 19:00:00 GMT' }), /Date/);
  assert.match(await verify({ ...headers, 'fspiop-uri': '/quotes' }), /FSPIOP-URI header/);
});

test('a destination added to an unsigned-destination message is refused', async () => {
  const { 'fspiop-destination': _dropped, ...headersWithout } = HEADERS;
  const headers = await signed({ headers: headersWithout });
  assert.equal(await verify(headers), null);
  assert.match(await verify({ ...headers, 'fspiop-destination': 'payeefsp' }), /FSPIOP-Destination/);
});

test('an algorithm outside the accepted set is refused before any key is tried', async () => {
  const headers = await signed();
  const parsed = JSON.parse(headers['fspiop-signature']);
  const header = JSON.parse(Buffer.from(parsed.protectedHeader, 'base64url').toString());
  const none = Buffer.from(JSON.stringify({ ...header, alg: 'none' })).toString('base64url');
  assert.match(await verify({ ...headers, 'fspiop-signature': JSON.stringify({ ...parsed, protectedHeader: none }) }), /not accepted/);
});

// Mojaloop's SDK, installed for the interop test; absent on a machine that has not run it.
const SDK_JWS = new URL('../sdk-scheme-adapter/node_modules/@mojaloop/sdk-standard-components/src/lib/jws/', import.meta.url);
const sdkInstalled = existsSync(new URL('jwsSigner.js', SDK_JWS));
const quietLogger = { isDebugEnabled: () => false, debug() {} };

test("a signature made by Mojaloop's jwsSigner verifies here", { skip: !sdkInstalled && 'SDK not installed' }, async () => {
  const require = createRequire(SDK_JWS);
  const JwsSigner = require('./jwsSigner.js');
  const signer = new JwsSigner({ signingKey: rsa.privateKey, logger: quietLogger });
  const request = { method: 'POST', uri: 'http://switch:3000/transfers', headers: { ...HEADERS }, body: JSON.parse(BODY) };
  signer.sign(request);
  assert.equal(request.body, BODY);
  assert.equal(await verify(request.headers), null);
  assert.match(await verify(request.headers, { uri: '/quotes' }), /FSPIOP-URI/);
});

test("a signature made here verifies with Mojaloop's jwsValidator", { skip: !sdkInstalled && 'SDK not installed' }, async () => {
  const require = createRequire(SDK_JWS);
  const JwsValidator = require('./jwsValidator.js');
  const validator = new JwsValidator({ validationKeys: { payerfsp: rsa.publicKey }, logger: quietLogger });
  const headers = await signed({ uri: '/transfers/abc', method: 'PUT' });
  validator.validate({ headers, body: JSON.parse(BODY) });
  assert.throws(() => validator.validate({ headers, body: { ...JSON.parse(BODY), transferId: 'x' } }));
});

// jose, a JWS library with no FSPIOP knowledge, checks the RFC 7515 half of the format: its
// flattened JWS is exactly the FSPIOP-Signature's signature and protected header.
for (const [alg, pair] of [['RS256', rsa], ['PS256', rsa], ['ES256', ec]]) {
  test(`${alg}: a signature made here verifies with jose, and jose's verifies here`, async () => {
    const headers = await signed({ key: pair.privateKey, alg });
    const { signature, protectedHeader } = JSON.parse(headers['fspiop-signature']);
    const publicKey = publicKeyFromPem(pair.publicKey);
    const jws = { protected: protectedHeader, payload: Buffer.from(BODY).toString('base64url'), signature };
    const { protectedHeader: header } = await flattenedVerify(jws, publicKey, { algorithms: [alg] });
    assert.equal(header.alg, alg);

    const joseSigned = await new FlattenedSign(Buffer.from(BODY))
      .setProtectedHeader(JSON.parse(Buffer.from(protectedHeader, 'base64url').toString()))
      .sign(privateKeyFromPem(pair.privateKey));
    const fromJose = { ...headers, 'fspiop-signature': JSON.stringify({ signature: joseSigned.signature, protectedHeader: joseSigned.protected }) };
    assert.equal(await verify(fromJose, { keys: [publicKey] }), null);
  });
}

test('a signature of the wrong length, or a key of the wrong type for the algorithm, is refused, not thrown', async () => {
  const headers = await signed({ key: ec.privateKey, alg: 'ES256' });
  const parsed = JSON.parse(headers['fspiop-signature']);
  const short = { ...headers, 'fspiop-signature': JSON.stringify({ ...parsed, signature: parsed.signature.slice(0, 20) }) };
  assert.match(await verify(short, { keys: [publicKeyFromPem(ec.publicKey)] }), /does not verify/);
  assert.match(await verify(headers, { keys: [publicKeyFromPem(rsa.publicKey)] }), /does not verify/);
  await assert.rejects(signed({ key: ec.privateKey, alg: 'RS256' }), /cannot sign RS256/);
});

test('a signature or protected header with characters outside base64url is refused', async () => {
  const headers = await signed({ key: ec.privateKey, alg: 'ES256' });
  const parsed = JSON.parse(headers['fspiop-signature']);
  // Node's decoder would skip the '$', so the decoded header is unchanged; the text is not.
  const padded = { ...headers, 'fspiop-signature': JSON.stringify({ ...parsed, protectedHeader: `${parsed.protectedHeader}$` }) };
  assert.match(await verify(padded, { keys: [publicKeyFromPem(ec.publicKey)] }), /base64url/);
});

test('a request without a body is signed over the empty payload; a body added after signing is refused', async () => {
  const uri = '/participants/MSISDN/27710000002';
  const headers = { ...HEADERS, ...await signFspiopMessage({ privateKey: privateKeyFromPem(rsa.privateKey), method: 'DELETE', uri, headers: HEADERS }) };
  const check = (method, body) => verifyFspiopMessage({ method, uri, headers, body, keys: [publicKeyFromPem(rsa.publicKey)] });
  assert.equal(await check('DELETE', undefined), null);
  assert.equal(await check('DELETE', Buffer.alloc(0)), null, 'no body and an empty one are the same payload');
  assert.match(await check('DELETE', '{}'), /does not verify/);
  assert.match(await check('GET', undefined), /FSPIOP-HTTP-Method/, 'a signed DELETE is no GET');
});
