// The HTTP side every test DFSP shares: it records each call it receives (method, path,
// headers, exact body), answers as FSPIOP does (202 to requests, 200 to callbacks), hands
// the call to `onCall` for the DFSP's own answer, and lets a test wait for a call. Like a
// DFSP with JWS on, it verifies every call that carries a body or a signature with the key of its
// FSPIOP-Source (a DFSP's or the hub's) and keeps each failure in `signatureFailures`, so a
// test can assert that everything the switch sent or passed on was signed by its sender.
// Served over HTTPS (`tls`), it asks every caller for a client certificate from its CA and
// refuses the handshake without one, as a DFSP that requires the hub's certificate does.
import http from 'node:http';
import https from 'node:https';
import { testPublicKeysOf, verifyReceivedCall } from './jws-keys.js';

function waitFor(name, received, waiters, predicate, timeoutMs) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = received.find(predicate);
      if (!found) return;
      clearTimeout(timer);
      waiters.delete(check);
      resolve(found);
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(`${name} received no matching call within ${timeoutMs} ms; got ${received.map((call) => `${call.method} ${call.path}`).join(', ')}`));
    }, timeoutMs);
    waiters.add(check);
    check();
  });
}

/** The signature check of one call: null when it has neither body nor signature, or its signature verifies. */
async function signatureProblemOf(call, publicKeysOf) {
  if (!call.rawBody && !call.headers['fspiop-signature']) return null;
  try {
    return await verifyReceivedCall(call, publicKeysOf);
  } catch (error) {
    return `verification failed: ${error.message}`;
  }
}

/** The subject CN of the client certificate a request came over, or undefined over HTTP or without one. */
function clientCommonNameOf(request) {
  return request.socket.getPeerCertificate?.()?.subject?.CN;
}

/**
 * Resolves to `{ url, received, signatureFailures, tlsClientErrors, waitFor(predicate, timeoutMs), close() }`;
 * it listens on `host` (any loopback address), on `port` or a free one.
 * `publicKeysOf(fsp)` gives, or resolves to, the keys a sender's signature must verify with (the test run's
 * keys by default); a call is recorded only after its signature has been checked. With `tls`
 * (`{ cert, key, ca }`, PEM) it serves HTTPS and admits only callers with a client certificate from `ca`;
 * each call records the certificate's subject CN (`clientCommonName`), each refused handshake its error.
 * `readCall(call)` may add to a call what the DFSP reads from it (an ISO 20022 body in FSPIOP
 * terms) before it is recorded.
 */
export async function startRecordingServer({ name, host = '127.0.0.1', port = 0, onCall = () => {}, publicKeysOf = testPublicKeysOf, tls, readCall = async () => {} }) {
  const received = [];
  const signatureFailures = [];
  const tlsClientErrors = [];
  const waiters = new Set();
  const handle = (request, response) => {
    const clientCommonName = clientCommonNameOf(request);
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => { text += chunk; });
    request.on('end', async () => {
      const call = {
        method: request.method, path: request.url, headers: request.headers, rawBody: text, body: text ? JSON.parse(text) : undefined, at: Date.now(),
        clientCommonName,
      };
      call.signatureProblem = await signatureProblemOf(call, publicKeysOf);
      if (call.signatureProblem) {
        signatureFailures.push({ method: call.method, path: call.path, source: call.headers['fspiop-source'], problem: call.signatureProblem });
      }
      await readCall(call);
      received.push(call);
      for (const waiter of waiters) waiter();
      response.writeHead(['PUT', 'PATCH'].includes(request.method) ? 200 : 202).end();
      onCall(call);
    });
  };
  const server = tls ? https.createServer({ ...tls, requestCert: true, rejectUnauthorized: true }, handle) : http.createServer(handle);
  server.on('tlsClientError', (error) => tlsClientErrors.push(error));
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return {
    url: `${tls ? 'https' : 'http'}://${host}:${server.address().port}`,
    received,
    signatureFailures,
    tlsClientErrors,
    waitFor: (predicate, timeoutMs = 15000) => waitFor(name, received, waiters, predicate, timeoutMs),
    // The switch keeps connections alive; close them, or close() waits for their idle timeout.
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}
