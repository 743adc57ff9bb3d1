// Mutual TLS as a second proof of who is calling, independent of the JWS signature: the DFSP
// named by the client certificate (its subject's CN, as the scheme's CA issues it) must be
// the FSPIOP-Source of every FSPIOP request, with or without a body. Either the edge verifies
// the certificate itself (CLIENT_IDENTITY=certificate: HTTPS with a client CA) or an ingress
// does and passes the verified subject in a header it alone sets (CLIENT_IDENTITY=header).
import { readFileSync } from 'node:fs';
import { FAILURE, failure } from '../domain/failures.js';
import { failureToFspiop } from './errors.js';
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

/** The CN of a distinguished name as ingresses pass it ("CN=payerfsp,O=Scheme" or "/O=Scheme/CN=payerfsp"). */
export function commonNameOf(subject) {
  const match = /(?:^|[,/]\s*)CN=([^,/]+)/.exec(subject ?? '');
  return match ? match[1].trim() : undefined;
}

function certificateIdentity(request) {
  const socket = request.raw.req.socket;
  if (!socket.authorized) return undefined;
  return socket.getPeerCertificate().subject?.CN;
}

const IDENTITY_OF = Object.freeze({
  certificate: certificateIdentity,
  header: (request, subjectHeader) => commonNameOf(request.headers[subjectHeader]),
});

const UNCHECKED_PATHS = new Set(['/health', '/metrics']);

/** Refuses, before any route runs, an FSPIOP request whose client identity is not its FSPIOP-Source. */
export function registerClientIdentityCheck(server, { mode, subjectHeader }) {
  if (mode === 'off') return;
  const identityOf = IDENTITY_OF[mode];
  server.ext('onPreHandler', (request, h) => {
    if (UNCHECKED_PATHS.has(request.route.path)) return h.continue;
    const source = request.headers['fspiop-source'];
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
