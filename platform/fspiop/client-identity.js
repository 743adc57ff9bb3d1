// Mutual TLS as a second proof of who is calling, independent of the JWS signature: the DFSP
// named by the client certificate (its subject's CN, as the scheme's CA issues it) must be
// the FSPIOP-Source of every FSPIOP request, with or without a body. Either the edge verifies
// the certificate itself (CLIENT_IDENTITY=certificate: HTTPS with a client CA) or an ingress
// does and passes the verified subject in a header it alone sets (CLIENT_IDENTITY=header).
import { readFileSync } from 'node:fs';
import { FAILURE, failure } from '../domain/failures.js';
import { failureToFspiop } from './errors.js';
import { parseDistinguishedName } from './distinguished-name.js';
import { PROOF, recordProof } from './sender.js';

/**
 * The hapi `tls` options for an edge, or undefined for plain HTTP. The client certificate is
 * requested but not required by the handshake: probes and Prometheus reach /health and
 * /metrics without one, and the FSPIOP routes refuse a caller without a verified one.
 */
export function edgeTlsOptions({ certPath, keyPath, clientCaPath }) {
  if (!certPath) return undefined;
  const options = { cert: readFileSync(certPath), key: readFileSync(keyPath) };
  if (!clientCaPath) return options;
  return { ...options, ca: readFileSync(clientCaPath), requestCert: true, rejectUnauthorized: false };
}

const COMMON_NAME_TYPES = new Set(['cn', 'commonname', '2.5.4.3']);

/**
 * The DFSP a subject names, as ingresses pass it (`CN=payerfsp,O=Scheme` or
 * `/O=Scheme/CN=payerfsp`; distinguished-name.js): the value of its one CN attribute. A
 * subject that does not parse, has no CN or more than one, or whose CN is empty or BER-encoded
 * names nobody, and the request is refused.
 */
export function commonNameOf(subject) {
  const attributes = parseDistinguishedName(subject)?.flat();
  const commonNames = attributes?.filter((attribute) => COMMON_NAME_TYPES.has(attribute.type.toLowerCase())) ?? [];
  if (commonNames.length !== 1 || commonNames[0].encoded || commonNames[0].value === '') return undefined;
  return commonNames[0].value;
}

const CONNECTION_IDENTITY = Symbol('connectionIdentity');

/**
 * The DFSP a connection's verified client certificate names. Node gives a subject attribute
 * that appears more than once as an array: that names nobody. It is read once per connection,
 * not per request (reading the certificate builds a large object): a connection keeps its
 * certificate, since the edge refuses renegotiation (refuseRenegotiation).
 */
function certificateIdentity(request) {
  const socket = request.raw.req.socket;
  if (!socket.authorized) return undefined;
  if (!Object.hasOwn(socket, CONNECTION_IDENTITY)) {
    const commonName = socket.getPeerCertificate().subject?.CN;
    socket[CONNECTION_IDENTITY] = typeof commonName === 'string' ? commonName : undefined;
  }
  return socket[CONNECTION_IDENTITY];
}

/**
 * TLS 1.2 lets a client renegotiate, and so present another certificate, on a connection
 * that is already open. No DFSP needs to, and refusing it lets a connection's identity be
 * read once; it also closes a way to make the edge do handshakes without new connections.
 */
function refuseRenegotiation(server) {
  server.listener.on('secureConnection', (socket) => socket.disableRenegotiation());
}

const IDENTITY_OF = Object.freeze({
  certificate: certificateIdentity,
  header: (request, subjectHeader) => commonNameOf(request.headers[subjectHeader]),
});

const UNCHECKED_PATHS = new Set(['/health', '/metrics']);

/** Refuses, before any route runs, an FSPIOP request whose client identity is not its FSPIOP-Source. */
export function registerClientIdentityCheck(server, { mode, subjectHeader }) {
  if (mode === 'off') return;
  if (mode === 'certificate') refuseRenegotiation(server);
  const identityOf = IDENTITY_OF[mode];
  server.ext('onPreHandler', (request, h) => {
    if (UNCHECKED_PATHS.has(request.route.path)) return h.continue;
    const source = request.headers['fspiop-source'];
    // A request without FSPIOP-Source (or with an empty one) claims no DFSP: its route refuses
    // it for the missing mandatory header (3102), which says more than "not the certificate's
    // DFSP" would.
    if (!source) return h.continue;
    const identity = identityOf(request, subjectHeader);
    if (identity && identity === source) {
      recordProof(request, PROOF.certificate);
      return h.continue;
    }
    const problem = identity
      ? failure(FAILURE.clientIdentityMismatch, `FSPIOP-Source ${source} is not ${identity}, the DFSP of the client certificate`)
      : failure(FAILURE.clientIdentityMismatch, 'no verified client certificate names the calling DFSP');
    const { httpStatus, body } = failureToFspiop(problem);
    return h.response(body).code(httpStatus).takeover();
  });
}
