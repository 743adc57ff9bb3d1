// The FSPIOP headers a DFSP sends: a request (with Accept) or a callback (without, as the
// SDKs send them). One builder for the demo, the test DFSPs and the load-test simulators.

import { Agent, fetch } from 'undici';
import { privateKeyFromPem, signFspiopMessage } from '../../platform/fspiop/jws.js';

const media = (resource, version) => `application/vnd.interoperability.${resource}+json;version=${version}`;

/**
 * `version` (`major.minor`) is the version the message is sent in and, by its major, the one
 * asked for in Accept: 1.1 unless a resource that exists from 2.0 on (/fxQuotes, /fxTransfers,
 * /services) or a 2.0 field (a party's supportedCurrencies) needs 2.0.
 */
export function dfspHeaders(resource, source, destination, { accept = true, version = '1.1' } = {}) {
  return {
    'content-type': media(resource, version),
    ...(accept ? { accept: media(resource, version.split('.')[0]) } : {}),
    date: new Date().toUTCString(),
    'fspiop-source': source,
    ...(destination ? { 'fspiop-destination': destination } : {}),
  };
}

/**
 * The signing companion of dfspHeaders: the same headers plus FSPIOP-URI,
 * FSPIOP-HTTP-Method and FSPIOP-Signature over `body` (the exact text that will be sent),
 * in Mojaloop's JWS form. `privateKey` is a PEM or key object; `uri` the request's path.
 */
export async function signedHeaders(headers, { privateKey, method, uri, body }) {
  const key = typeof privateKey === 'string' ? privateKeyFromPem(privateKey) : privateKey;
  return { ...headers, ...await signFspiopMessage({ privateKey: key, method, uri, headers, body }) };
}

const dispatchers = new WeakMap();

/**
 * undici's connection pool for `tls` (PEM): it trusts `ca` for the edges' certificate and, given
 * `cert` and `key`, presents the DFSP's client certificate (mutual TLS). One per `tls` object,
 * so a DFSP's connections are kept alive across its requests.
 */
export function tlsDispatcher(tls) {
  if (!dispatchers.has(tls)) dispatchers.set(tls, new Agent({ connect: tls }));
  return dispatchers.get(tls);
}

/**
 * fetch() as a signing DFSP: a request is sent with signedHeaders over exactly the text sent
 * (the empty payload when it has no body, which proves its sender just the same), FSPIOP-URI
 * being the URL's path and query. Without a key, or with an FSPIOP-Signature already, it goes
 * as it is. With `tls` (the DFSP's client certificate, tlsDispatcher) an HTTPS edge is called
 * with mutual TLS.
 */
export async function fetchSigned(url, { method = 'GET', headers = {}, body, privateKey, tls }) {
  const dispatcher = tls ? tlsDispatcher(tls) : undefined;
  if (!privateKey || headers['fspiop-signature']) return fetch(url, { method, headers, body, dispatcher });
  const { pathname, search } = new URL(url);
  const signed = await signedHeaders(headers, { privateKey, method, uri: `${pathname}${search}`, body });
  return fetch(url, { method, headers: signed, body, dispatcher });
}
