// The JWS keys of a test run: one key pair per DFSP name and one for the hub, made once per
// test process with node:crypto (RSA 2048: RS256 is what Mojaloop's SDKs sign and accept).
// The test DFSPs sign with them, onboarding registers the DFSPs' public keys, the switch
// under test signs as the hub with the hub's (written to a temporary directory for its
// processes), and the recording servers verify every callback with them.
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyFromPem, verifyFspiopMessage } from '../../platform/fspiop/jws.js';
import { generateJwsKeyPair } from '../../tools/lib/jws-key-files.js';
import { fetchSigned } from '../../scripts/lib/fspiop-headers.js';
import { testClientTlsFor } from './scheme-tls.js';

export const HUB_NAME = 'Hub';
const pairs = new Map();

/** `{ publicKey (PEM), privateKey (key object) }` of `name` (a DFSP, or the hub), made on first use. */
export function jwsKeyPair(name) {
  if (!pairs.has(name)) {
    const pair = generateJwsKeyPair('rsa');
    pairs.set(name, { publicKey: pair.publicKey, privateKey: privateKeyFromPem(pair.privateKey), privateKeyPem: pair.privateKey });
  }
  return pairs.get(name);
}

let hubFiles;

/** The hub's key pair as files (made once per test process) for the switch's processes. */
export function hubKeyFiles() {
  if (!hubFiles) {
    const directory = mkdtempSync(join(tmpdir(), 'fspiop-hub-jws-'));
    const { publicKey, privateKeyPem } = jwsKeyPair(HUB_NAME);
    hubFiles = { directory, signingKeyPath: join(directory, 'hub-private.pem'), publicKeyPath: join(directory, 'hub-public.pem'), publicKey };
    writeFileSync(hubFiles.signingKeyPath, privateKeyPem, { mode: 0o600 });
    writeFileSync(hubFiles.publicKeyPath, publicKey);
  }
  return hubFiles;
}

/** The environment that makes a switch process sign as the hub with the test run's key. */
export function hubSigningEnv() {
  const { signingKeyPath, publicKeyPath } = hubKeyFiles();
  return { JWS_HUB_SIGNING_KEY_PATH: signingKeyPath, JWS_HUB_PUBLIC_KEY_PATH: publicKeyPath };
}

/**
 * Writes the public keys of `names` as `<name>.pem` into a new directory, as Mojaloop's SDKs
 * (JWS_VERIFICATION_KEYS_DIRECTORY) and the switch (JWS_KEYS_DIRECTORY) read them.
 */
export function publicKeysDirectory(names) {
  const directory = mkdtempSync(join(tmpdir(), 'fspiop-jws-keys-'));
  for (const name of names) writeFileSync(join(directory, `${name}.pem`), jwsKeyPair(name).publicKey);
  return directory;
}

/**
 * fetch() as a test DFSP sends: a request is signed with the key of its FSPIOP-Source over
 * exactly the text sent (the empty payload without a body), unless it carries an
 * FSPIOP-Signature already (a test that sends a made-up or deliberately wrong one). An HTTPS
 * edge is called with the client certificate of FSPIOP-Source (scheme-tls.js).
 */
export function signedFetch(url, { method = 'GET', headers = {}, body } = {}) {
  const source = headers['fspiop-source'];
  return fetchSigned(url, { method, headers, body, privateKey: source ? jwsKeyPair(source).privateKey : undefined, tls: testClientTlsFor(url, source) });
}

/** The same without a signature: what a DFSP sends that does not sign (Mojaloop's SDKs sign no GET). */
export function unsignedFetch(url, { method = 'GET', headers = {}, body } = {}) {
  return fetchSigned(url, { method, headers, body, tls: testClientTlsFor(url, headers['fspiop-source']) });
}

/** The public key objects a callback from `source` verifies with: the test run's key of that name. */
export function testPublicKeysOf(source) {
  return typeof source === 'string' && source !== '' ? [createPublicKey(jwsKeyPair(source).publicKey)] : [];
}

/**
 * Why a call a test DFSP received does not verify, or null when it does: its
 * FSPIOP-Signature must verify with the sender's (or the hub's) key over the exact body,
 * and the signed URI and method must be the ones it arrived with. A message the hub converted
 * between FSPIOP and ISO 20022 names its signer in FSPIOP-Switch-Signer (docs/iso20022.md).
 */
export async function verifyReceivedCall({ method, path, headers, rawBody }, publicKeysOf = testPublicKeysOf) {
  const keys = await publicKeysOf(headers['fspiop-switch-signer'] ?? headers['fspiop-source']);
  return verifyFspiopMessage({ method, uri: path, headers, body: rawBody, keys });
}
