// What the end-to-end tests of ISO 20022 share: a request sent as a DFSP of either API type sends
// it (test-dfsp.js writes it as ISO 20022 for an ISO 20022 DFSP), and the checks that a DFSP
// received a call in its own type, whole and verified, and that a call the hub converted names
// its original sender, signature and digest in the switch's headers.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { wireMessage } from './test-dfsp.js';
import { HUB_NAME } from './jws-keys.js';
import { dfspHeaders, fetchSigned, signedHeaders } from '../../scripts/lib/fspiop-headers.js';
import { API_TYPE } from '../../platform/iso20022/media-types.js';

/** The digest the switch states of an original body in `fspiop-switch-original-digest`. */
export const digestOf = (text) => `sha-256=${createHash('sha256').update(text, 'utf8').digest('base64url')}`;

/**
 * Sends an FSPIOP `body` as `dfsp` sends it (ISO 20022 for an ISO 20022 DFSP on the resources ISO
 * 20022 carries, FSPIOP 2.0 otherwise), signed; `context` is what the ISO 20022 mapping needs
 * (test-dfsp.js `wireMessage`). Resolves to the edge's status and answer, and the text and
 * headers sent.
 */
export async function sendAs(dfsp, { url, method, resource, destination, body, context, accept = true }) {
  const headers = dfspHeaders(resource, dfsp.name, destination, { accept, version: '2.0' });
  const wire = await wireMessage(dfsp, url, method, headers, body, context);
  const { pathname } = new URL(url);
  const signed = await signedHeaders(wire.headers, { privateKey: dfsp.privateKey, method, uri: pathname, body: wire.text });
  const response = await fetchSigned(url, { method, headers: signed, body: wire.text, tls: dfsp.tlsFor(url) });
  return { status: response.status, answer: await response.text(), text: wire.text, headers: signed };
}

/** The first call `dfsp` received since `sinceMs` with `method` on exactly `path`. */
export const callTo = (dfsp, method, path, sinceMs) => dfsp.waitFor((call) => call.method === method && call.path === path && call.at >= sinceMs, 20000);

/**
 * What a receiver of `type` must see of a call: its own media type, a body that fits the ISO
 * 20022 document when it is ISO 20022, and a signature that verified (the recording server
 * checks it with the sender's key, or the hub's when the hub signed).
 */
export function assertReceivedInOwnType(call, type) {
  const isIso = /iso20022/.test(call.headers['content-type'] ?? '');
  assert.equal(isIso, type === API_TYPE.iso20022, `${call.method} ${call.path} arrived as ${call.headers['content-type']}`);
  if (isIso && call.rawBody) assert.equal(call.isoProblem, null, `${call.method} ${call.path}: ${call.isoProblem}`);
  assert.equal(call.signatureProblem, null, `${call.method} ${call.path}: ${call.signatureProblem}`);
  assert.equal(call.headers['switch-internal-original-body'], undefined);
}

/** A call converted by the hub: signed by it, with the original sender, signature and digest of `sent`. */
export function assertConvertedFrom(call, sender, sent) {
  assert.equal(call.headers['fspiop-switch-signer'], HUB_NAME);
  assert.equal(call.headers['fspiop-source'], sender.name);
  assert.equal(call.headers['fspiop-switch-original-source'], sender.name);
  assert.equal(call.headers['fspiop-switch-original-digest'], digestOf(sent.text));
  assert.equal(call.headers['fspiop-switch-original-signature'], sent.headers['fspiop-signature'] ?? call.headers['fspiop-switch-original-signature']);
  assert.equal(call.headers['fspiop-switch-original-content-type'], sent.headers['content-type']);
}
