// Who sent an FSPIOP request, and how the edge knows: computed once per request by the edge's
// checks, before any route runs, and read by every rule after them (the rate limit, the
// oracle's ownership rule, the relay rights of discovery). FSPIOP-Source alone is a claim
// anybody can make; a request's sender is proven by a verified client certificate naming it
// (mutual TLS) or by its FSPIOP-Signature verifying with its key, a body or none.
//
// A request without either proof may read: what it asks is answered to the DFSP it names, not
// to whoever sent it. It may not change what the switch holds for a DFSP (an oracle entry) nor
// create the right to relay an answer to it (a pending lookup at a destination it chose).
import { FAILURE, failure } from '../domain/failures.js';
import { failureToFspiop } from './errors.js';
import { checkFspiopSource } from './headers.js';

export const PROOF = Object.freeze({
  /** A client certificate from the scheme's CA names FSPIOP-Source (CLIENT_IDENTITY). */
  certificate: 'certificate',
  /** FSPIOP-Signature verified with a key registered for FSPIOP-Source. */
  signature: 'signature',
  /** Neither check runs (JWS_VERIFICATION=off and CLIENT_IDENTITY=off): a lab trusts the header. */
  configuration: 'configuration',
  /** Nothing proves the header. */
  none: 'none',
});

const UNCHECKED_PATHS = new Set(['/health', '/metrics']);

/** Records the proof a check found for the request's FSPIOP-Source; a certificate outranks a signature. */
export function recordProof(request, proof) {
  if (request.app.proof !== PROOF.certificate) request.app.proof = proof;
}

/** `{ fsp, proof }` of a request, as the edge's checks left it. */
export function senderOf(request) {
  return { fsp: request.headers['fspiop-source'], proof: request.app.proof ?? PROOF.none };
}

/** Whether a sender may change state in its own name. */
export function isProven(sender) {
  return sender.proof !== PROOF.none;
}

/**
 * The refusal of a change an unproven sender asked for: 3105, answered synchronously, since an
 * asynchronous error would go to the DFSP the sender claims to be.
 */
export function unprovenSenderFailure(what) {
  return failure(FAILURE.invalidSignature,
    `${what} needs proof of FSPIOP-Source: an FSPIOP-Signature (over the empty body when there is none) or a client certificate`);
}

function refuse(h, problem) {
  const { httpStatus, body } = failureToFspiop(problem);
  return h.response(body).code(httpStatus).takeover();
}

/**
 * Refuses, before the checks that compare FSPIOP-Source with a certificate or a key, a source
 * that can name no DFSP (3101, as the route's own header check answers it, whatever
 * certificate came with it) and a request in the hub's own name (the hub originates
 * callbacks, no DFSP speaks as it). An absent source is left to the route (3102).
 */
export function registerSourceRefusals(server, { hubName }) {
  const hub = hubName.toLowerCase();
  server.ext('onPreHandler', (request, h) => {
    if (UNCHECKED_PATHS.has(request.route.path)) return h.continue;
    const source = request.headers['fspiop-source'];
    if (typeof source !== 'string' || source.trim() === '') return h.continue;
    const malformed = checkFspiopSource(source);
    if (malformed) return refuse(h, failure(FAILURE.malformedSyntax, malformed.detail));
    if (source.toLowerCase() !== hub) return h.continue;
    return refuse(h, failure(FAILURE.clientIdentityMismatch, `FSPIOP-Source ${source} is the hub: no DFSP sends in its name`));
  });
}

/**
 * Registers, after the checks that prove a sender, the proof of a request none of them proved:
 * `configuration` when the edge runs neither check (a lab), otherwise `none`.
 */
export function registerUnprovenSender(server, { checksOff }) {
  const unproven = checksOff ? PROOF.configuration : PROOF.none;
  server.ext('onPreHandler', (request, h) => {
    if (request.app.proof === undefined) request.app.proof = unproven;
    return h.continue;
  });
}
