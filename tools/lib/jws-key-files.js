// JWS key pairs as PEM files, for the local runtime, the demo and the load test: the hub's
// signing key and each DFSP's. A pair is made once and then reused, because the switch's
// edges keep a DFSP's registered keys for a while (JWS_KEY_CACHE_TTL_MS): a fresh key on
// every run would be refused until that cache expired.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * A new key pair as PEM text: RSA 2048 (RS256, the only algorithm Mojaloop's SDKs accept)
 * unless `type` is 'ec' (P-256, ES256).
 */
export function generateJwsKeyPair(type = 'rsa') {
  return generateKeyPairSync(type, {
    ...(type === 'rsa' ? { modulusLength: 2048 } : { namedCurve: 'P-256' }),
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/**
 * The key pair at `privateKeyPath` and `publicKeyPath`, made there first if the private key
 * is missing (readable by its owner only). A private key without its public file (a
 * mounted Secret holds only private keys) gives its public key without writing anything.
 */
export function ensureKeyPairFiles({ privateKeyPath, publicKeyPath, type = 'rsa' }) {
  if (!existsSync(privateKeyPath)) {
    const pair = generateJwsKeyPair(type);
    for (const path of [privateKeyPath, publicKeyPath]) mkdirSync(dirname(path), { recursive: true });
    writeFileSync(privateKeyPath, pair.privateKey, { mode: 0o600 });
    writeFileSync(publicKeyPath, pair.publicKey);
  }
  const privateKey = readFileSync(privateKeyPath, 'utf8');
  const publicKey = existsSync(publicKeyPath)
    ? readFileSync(publicKeyPath, 'utf8')
    : createPublicKey(privateKey).export({ type: 'spki', format: 'pem' });
  return { privateKey, publicKey };
}

/** A DFSP's pair in `directory`: `<name>.key` (private) and `<name>.pem` (public, as Mojaloop's SDKs name them). */
export function dfspKeyPairFiles(directory, name) {
  return ensureKeyPairFiles({ privateKeyPath: join(directory, `${name}.key`), publicKeyPath: join(directory, `${name}.pem`) });
}

/** Reads a DFSP's private key from `directory` (`<name>.key`), or undefined when it has none. */
export function readDfspPrivateKey(directory, name) {
  const path = join(directory, `${name}.key`);
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}
