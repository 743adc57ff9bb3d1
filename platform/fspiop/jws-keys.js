// The DFSP public keys the FSPIOP edges verify signatures with, and the check itself. Keys
// come from the admin API (registered per DFSP) and, when set, a directory of `<fsp>.pem`
// files as Mojaloop's SDKs read them (a Kubernetes Secret). Every request asks about its
// FSPIOP-Source, so each DFSP's keys are kept for `ttlMs`: a key registered or removed
// through the admin API is honoured by every edge within that bound, without a restart.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { publicKeyFromPem, verifyFspiopMessage } from './jws.js';
import { fspiopFailure } from './edge.js';
import { LRUCache } from 'lru-cache';
import { createTtlCache } from '../ttl-cache.js';
import { fullBucket, takeToken } from './rate-limit.js';
import { PROOF, recordProof } from './sender.js';

const EMPTY_BODY = Buffer.alloc(0);
// Names come from request headers: only these characters reach a file path.
const FSP_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;
const PEM_BLOCK = /-----BEGIN [A-Z ]+-----[\s\S]+?-----END [A-Z ]+-----/g;

/** Every PEM block in a text: one `<fsp>.pem` file may hold two keys during a rotation. */
export function pemBlocksOf(text) {
  return text.match(PEM_BLOCK) ?? [];
}

/** Reads `<directory>/<fsp>.pem`; a DFSP without a file has no keys there. */
export function directoryKeySource(directory) {
  return async (fsp) => {
    try {
      return pemBlocksOf(await readFile(join(directory, `${fsp}.pem`), 'utf8'));
    } catch (error) {
      if (error.code === 'ENOENT') return [];
      throw error;
    }
  };
}

/**
 * Asks the admin API for a DFSP's registered keys (`GET /participants/{fsp}/jwsKeys`);
 * `headers` authenticate the call. An unknown DFSP has no keys.
 */
export function adminApiKeySource({ adminApiUrl, headers = {}, timeoutMs = 5_000 }) {
  const baseUrl = adminApiUrl.replace(/\/+$/, '');
  return async (fsp) => {
    const response = await fetch(`${baseUrl}/participants/${encodeURIComponent(fsp)}/jwsKeys`, {
      headers, signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    if (response.status === 400 || response.status === 404) return [];
    if (!response.ok) throw new Error(`the admin API answered ${response.status} for ${fsp}'s keys: ${text.slice(0, 200)}`);
    return JSON.parse(text).map((key) => key.publicKey);
  };
}

/** A name never seen with keys could not be looked up now: too many such names were asked about. */
export class KeyLookupLimitedError extends Error {}

/** How often names without known keys may be looked up, per process: invented names cost little. */
const UNKNOWN_LOOKUPS = Object.freeze({ perSecond: 20, burst: 100 });
const KNOWN_NAMES_MAX = 10_000;

/**
 * `sources` are functions `(fsp) => Promise<pem[]>`; `keysOf(fsp)` resolves to the union
 * of their keys as key objects. Concurrent questions about one DFSP share one read; a
 * failed read is not cached, so the next request asks again. A name without keys is an answer
 * too, kept as long as any. Since every name comes from a request header, reads of names never
 * seen with keys share one token bucket (`unknownLookups`): past it, keysOf rejects with
 * KeyLookupLimitedError before any read, so a client inventing names cannot make the edge
 * query the admin API at its own pace. Refreshes of DFSPs that had keys are not limited.
 */
export function createJwsKeyStore({ sources, ttlMs, unknownLookups = UNKNOWN_LOOKUPS, now = Date.now }) {
  const cache = createTtlCache({ ttlMs, now });
  const namesWithKeys = new LRUCache({ max: KNOWN_NAMES_MAX });
  const bucket = fullBucket(unknownLookups, now());

  async function read(fsp) {
    const pems = (await Promise.all(sources.map((source) => source(fsp)))).flat();
    if (pems.length > 0) namesWithKeys.set(fsp, true);
    return pems.map(publicKeyFromPem);
  }

  function keysOf(fsp) {
    if (typeof fsp !== 'string' || !FSP_NAME_PATTERN.test(fsp)) return Promise.resolve([]);
    const limited = !namesWithKeys.has(fsp) && !cache.has(fsp) && takeToken(bucket, unknownLookups, now()) > 0;
    if (limited) return Promise.reject(new KeyLookupLimitedError(`too many unknown DFSP names are being looked up: ${fsp} was not`));
    return cache.get(fsp, read);
  }

  return { keysOf };
}

/**
 * Registers the signature check on an FSPIOP edge's hapi server, before any route runs, so a
 * refused request produces nothing. `mode` is required (a request with a body must be signed),
 * optional (a body without FSPIOP-Signature passes) or off. A request without a body need not
 * be signed, as Mojaloop's SDKs sign none; one that is signed (over the empty payload) is
 * verified like any other, and then proves its sender (sender.js). A refusal is 3105; keys
 * that cannot be read are 2003, as the request may be valid.
 */
export function registerSignatureCheck(server, { mode, keyStore, logger }) {
  if (mode === 'off') return;
  server.ext('onPreHandler', async (request, h) => {
    const body = Buffer.isBuffer(request.payload) ? request.payload : EMPTY_BODY;
    const { headers } = request;
    if (!headers['fspiop-signature'] && (body.length === 0 || mode === 'optional')) return h.continue;
    let keys;
    try {
      keys = await keyStore.keysOf(headers['fspiop-source']);
    } catch (error) {
      if (error instanceof KeyLookupLimitedError) return refuse(h, fspiopFailure(2005, error.message));
      logger.warn({ err: error, fsp: headers['fspiop-source'] }, 'JWS keys could not be read');
      return refuse(h, fspiopFailure(2003, 'the keys of FSPIOP-Source cannot be read'));
    }
    // The signer signed the request target it sent, byte for byte; hapi's request.url has
    // already decoded escapes such as %2B and %40, which would make a true signature fail.
    const uri = request.raw.req.url;
    const problem = await verifyFspiopMessage({ method: request.method, uri, headers, body, keys });
    if (problem) return refuse(h, fspiopFailure(3105, problem));
    recordProof(request, PROOF.signature);
    return h.continue;
  });
}

function refuse(h, failure) {
  return h.response(failure.body).code(failure.httpStatus).takeover();
}



/**
 * The key store an edge process verifies with, from its configuration: the admin API (with
 * the DFSP directory token, when operator authentication is on) and the keys directory.
 */
export function createDfspKeyStore(config) {
  const token = config.operatorAuth?.tokens?.dfspDirectoryRead;
  const headers = token ? { authorization: `Bearer ${token}` } : {};
  const sources = [adminApiKeySource({ adminApiUrl: config.adminApiUrl, headers })];
  if (config.jws.keysDirectory) sources.push(directoryKeySource(config.jws.keysDirectory));
  return createJwsKeyStore({ sources, ttlMs: config.jws.keyCacheTtlMs });
}
