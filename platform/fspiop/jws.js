// JWS in the FSPIOP form Mojaloop's SDKs use: the FSPIOP-Signature header is the JSON
// `{"signature", "protectedHeader"}`, the protected header names the algorithm and the
// FSPIOP-URI, FSPIOP-HTTP-Method, FSPIOP-Source (and FSPIOP-Destination and Date when they
// are sent), and the signature covers the protected header and the exact body bytes.
//
// The signing input and the algorithms are RFC 7515/7518's, computed with node:crypto's
// one-shot sign and verify, which run on the calling thread. jose does the same through
// promisified calls that hop to libuv's thread pool and back, which cost twice the CPU of the
// signature itself (measured in perf/bench-jws.js); a payment is five signatures and five
// checks, so the hops cost about 0.8 ms of CPU per payment. The unit
// tests check both directions against jose and against Mojaloop's own signer and validator.
import { constants, createHash, createPrivateKey, createPublicKey, sign as signBytes, verify as verifyBytes } from 'node:crypto';

/** The algorithms a signature may use: Mojaloop's RS256, and the two others its keys allow. */
export const JWS_ALGORITHMS = Object.freeze(['RS256', 'PS256', 'ES256']);

const UTF8 = new TextEncoder();
const BASE64URL = /^[A-Za-z0-9_-]+$/;

// Per algorithm (all three hash with SHA-256): the key type it needs and node:crypto's
// options for it. PS256 uses a salt as long as the digest (RFC 7518 section 3.5).
const ALGORITHMS = Object.freeze({
  RS256: { keyType: 'rsa', options: {} },
  PS256: { keyType: 'rsa', options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 } },
  ES256: { keyType: 'ec', options: { dsaEncoding: 'ieee-p1363' } },
});

/** Whether `key` (a KeyObject) can sign or verify `alg`: an RSA key for RS256 and PS256, a P-256 key for ES256. */
function keyFits(alg, key) {
  const { keyType } = ALGORITHMS[alg];
  if (key.asymmetricKeyType !== keyType) return false;
  return keyType !== 'ec' || key.asymmetricKeyDetails.namedCurve === 'prime256v1';
}

/** A message's payload bytes: a request without a body is signed and verified over no bytes. */
function bytesOf(body) {
  if (body === undefined || body === null) return new Uint8Array(0);
  return typeof body === 'string' ? UTF8.encode(body) : body;
}

/** RFC 7515's signing input: ASCII(BASE64URL(protected header) || '.' || BASE64URL(payload)). */
function signingInput(protectedHeader, bytes) {
  return Buffer.from(`${protectedHeader}.${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url')}`, 'latin1');
}

/** A PEM private key (PKCS#1, PKCS#8 or SEC1) as the key object signFspiopMessage signs with. */
export function privateKeyFromPem(pem) {
  return createPrivateKey(pem);
}

/** A PEM public key (SPKI, PKCS#1) or certificate as the key object verifyFspiopMessage checks with. */
export function publicKeyFromPem(pem) {
  return createPublicKey(pem);
}

const RSA_MODULUS_BITS_MIN = 2048;

/**
 * Checks a PEM public key a DFSP registers and describes it: `{ keyId, publicKey }` with
 * the key re-encoded as SPKI PEM and keyId its SHA-256 thumbprint (base64url of the SPKI
 * bytes' hash), or `{ problem }` for a key no accepted algorithm can use.
 */
export function describePublicKey(pem) {
  let key;
  try {
    key = createPublicKey(pem);
  } catch {
    return { problem: 'not a PEM public key or certificate' };
  }
  const { asymmetricKeyType: type, asymmetricKeyDetails: details } = key;
  const usable = (type === 'rsa' && details.modulusLength >= RSA_MODULUS_BITS_MIN) || (type === 'ec' && details.namedCurve === 'prime256v1');
  if (!usable) return { problem: `an RSA key of at least ${RSA_MODULUS_BITS_MIN} bits or an EC P-256 key is needed` };
  const spki = key.export({ type: 'spki', format: 'der' });
  return { keyId: createHash('sha256').update(spki).digest('base64url'), publicKey: key.export({ type: 'spki', format: 'pem' }) };
}

/** The algorithm a key signs with by default: RS256 for RSA (as Mojaloop signs), ES256 for P-256. */
export function defaultAlgorithmOf(key) {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  throw new Error(`no FSPIOP signature algorithm for a ${key.asymmetricKeyType} key`);
}

const headerOf = (headers, name) => {
  const value = headers[name];
  return value === undefined || value === '' ? undefined : String(value);
};

/** The protected header for a message: every FSPIOP header the signature must bind. */
function protectedHeaderFor({ alg, method, uri, headers }) {
  const header = {
    alg,
    'FSPIOP-URI': uri,
    'FSPIOP-HTTP-Method': method.toUpperCase(),
    'FSPIOP-Source': headerOf(headers, 'fspiop-source'),
  };
  const destination = headerOf(headers, 'fspiop-destination');
  if (destination) header['FSPIOP-Destination'] = destination;
  const date = headerOf(headers, 'date');
  if (date) header.Date = date;
  return header;
}

/**
 * Signs one message. `headers` are the lower-cased FSPIOP headers that will be sent
 * (fspiop-source is required; fspiop-destination and date are bound when present), `uri`
 * the request's path (with any query), `body` the exact bytes or text that will be sent (none
 * for a request without a body: the signature then covers the empty payload).
 * Returns the three headers to add: fspiop-uri, fspiop-http-method and fspiop-signature.
 */
export async function signFspiopMessage({ privateKey, alg = defaultAlgorithmOf(privateKey), method, uri, headers, body }) {
  if (!headerOf(headers, 'fspiop-source')) throw new Error('a signed FSPIOP message needs FSPIOP-Source');
  if (!ALGORITHMS[alg]) throw new Error(`${alg} is not an FSPIOP signature algorithm`);
  if (!keyFits(alg, privateKey)) throw new Error(`a ${privateKey.asymmetricKeyType} key cannot sign ${alg}`);
  const bytes = bytesOf(body);
  const protectedHeader = Buffer.from(JSON.stringify(protectedHeaderFor({ alg, method, uri, headers }))).toString('base64url');
  const signature = signBytes('sha256', signingInput(protectedHeader, bytes), { key: privateKey, ...ALGORITHMS[alg].options });
  return {
    'fspiop-uri': uri,
    'fspiop-http-method': method.toUpperCase(),
    'fspiop-signature': JSON.stringify({ signature: signature.toString('base64url'), protectedHeader }),
  };
}

/** The FSPIOP-Signature header as `{ signature, protectedHeader, header }` or a reason it is unusable. */
function parseSignatureHeader(text) {
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'FSPIOP-Signature is not JSON' };
  }
  const { signature, protectedHeader } = parsed ?? {};
  if (typeof signature !== 'string' || typeof protectedHeader !== 'string') {
    return { problem: 'FSPIOP-Signature needs signature and protectedHeader' };
  }
  // Node's base64url decoding skips characters outside the alphabet, which the signing input
  // would still contain; RFC 7515 allows none.
  if (!BASE64URL.test(signature) || !BASE64URL.test(protectedHeader)) return { problem: 'signature and protectedHeader must be base64url' };
  try {
    const header = JSON.parse(Buffer.from(protectedHeader, 'base64url').toString('utf8'));
    if (header === null || typeof header !== 'object') throw new Error('not an object');
    return { signature, protectedHeader, header };
  } catch {
    return { problem: 'the protected header is not base64url JSON' };
  }
}

/**
 * Why the signed headers do not describe the request received, or null when they do. A
 * signed value must equal the request's own; a destination or an FSPIOP-URI or
 * FSPIOP-HTTP-Method header sent but not signed as sent is a mismatch too, so that nothing
 * the receiver routes on can be changed after signing.
 */
function headerMismatch(signed, { method, uri, headers }) {
  const expected = [
    ['FSPIOP-URI', uri],
    ['FSPIOP-HTTP-Method', method.toUpperCase()],
    ['FSPIOP-Source', headerOf(headers, 'fspiop-source')],
    ['FSPIOP-Destination', headerOf(headers, 'fspiop-destination')],
  ];
  for (const [name, actual] of expected) {
    if (signed[name] !== actual) return `${name} ${actual ?? '(absent)'} is not the signed ${signed[name] ?? '(absent)'}`;
  }
  if (signed.Date !== undefined && signed.Date !== headerOf(headers, 'date')) return 'Date is not the signed Date';
  const sentUri = headerOf(headers, 'fspiop-uri');
  if (sentUri !== undefined && sentUri !== signed['FSPIOP-URI']) return 'the FSPIOP-URI header is not the signed one';
  const sentMethod = headerOf(headers, 'fspiop-http-method');
  if (sentMethod !== undefined && sentMethod !== signed['FSPIOP-HTTP-Method']) return 'the FSPIOP-HTTP-Method header is not the signed one';
  return null;
}

function verifiesWithAnyKey({ signature, protectedHeader, alg }, bytes, keys) {
  const input = signingInput(protectedHeader, bytes);
  const signatureBytes = Buffer.from(signature, 'base64url');
  // Two keys are valid at once during a rotation, so any registered key may be the signer's.
  return keys.some((key) => {
    if (!keyFits(alg, key)) return false;
    try {
      return verifyBytes('sha256', input, { key, ...ALGORITHMS[alg].options }, signatureBytes);
    } catch {
      // OpenSSL refuses some malformed signatures outright rather than answering false.
      return false;
    }
  });
}

/**
 * Checks a received message's FSPIOP-Signature. `uri` is the path (with any query) the
 * request actually arrived on, `body` its exact bytes, `keys` the public key objects
 * registered for its FSPIOP-Source. Resolves to null when the signature holds, otherwise
 * to the reason it does not (for the 3105 answer's description).
 */
export async function verifyFspiopMessage({ method, uri, headers, body, keys }) {
  const text = headerOf(headers, 'fspiop-signature');
  if (!text) return 'FSPIOP-Signature is missing';
  const parsed = parseSignatureHeader(text);
  if (parsed.problem) return parsed.problem;
  const { alg } = parsed.header;
  if (!JWS_ALGORITHMS.includes(alg)) return `algorithm ${alg} is not accepted`;
  const mismatch = headerMismatch(parsed.header, { method, uri, headers });
  if (mismatch) return mismatch;
  if (keys.length === 0) return `no key is registered for ${headerOf(headers, 'fspiop-source')}`;
  const bytes = bytesOf(body);
  const holds = verifiesWithAnyKey({ ...parsed, alg }, bytes, keys);
  return holds ? null : 'the signature does not verify with the key registered for FSPIOP-Source';
}
