// The hub's signature on the callbacks it makes in its own name (errors it creates, GET
// answers, the PATCH to a payee, expiries, state PUTs, account-lookup and quoting errors and
// confirmations): Mojaloop's FSPIOP-Signature over the exact body bytes sent, binding the
// path called, the method, FSPIOP-Source (the hub), FSPIOP-Destination and Date, so that
// every DFSP can check a callback with the hub's published key. A forward is not signed
// again: the DFSP's own signature and headers pass through byte for byte, unless the switch
// converted its body into the receiver's API (platform/iso20022/egress.js), when the DFSP's
// signature no longer covers what is sent and the hub signs the bytes it sends instead.
import { readFileSync } from 'node:fs';
import { privateKeyFromPem, signFspiopMessage } from '../fspiop/jws.js';
import { isForward } from './callback-request.js';

/** The hub's private key from the configured file, or undefined when the hub does not sign. */
export function readHubSigningKey(jwsConfig) {
  if (!jwsConfig.hubSigningKeyPath) return undefined;
  return privateKeyFromPem(readFileSync(jwsConfig.hubSigningKeyPath, 'utf8'));
}

/**
 * `signCallback({ event, method, url, headers, body, byHub? })` resolves to the headers to
 * send: a hub-originated call with a body, or any call with a body and `byHub` (a converted
 * forward), gets FSPIOP-URI, FSPIOP-HTTP-Method and FSPIOP-Signature; anything else (a
 * forward, a call without a body, or a hub without a key) is unchanged.
 */
export function createHubSigner(privateKey) {
  return async function signCallback({ event, method, url, headers, body, byHub = !isForward(event) }) {
    if (!privateKey || !byHub || body.length === 0) return headers;
    const uri = `${url.pathname}${url.search}`;
    return { ...headers, ...await signFspiopMessage({ privateKey, method, uri, headers, body }) };
  };
}

/** The signer of a hub that signs nothing (handler factories built without a key). */
export const unsignedCallbacks = async ({ headers }) => headers;
