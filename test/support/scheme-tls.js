// The scheme CA of a test run, made once per test process in a temporary directory (removed
// when the process exits) by scripts/lib/scheme-certs.js: a switch under test with mutual TLS
// serves its FSPIOP edges with its server certificate and asks for client certificates from it
// (edgeTlsEnv), and each test DFSP presents the certificate of its name (testClientTls).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetch } from 'undici';
import { ensureClientCertificate, ensureServerCertificate } from '../../scripts/lib/scheme-certs.js';
import { tlsDispatcher } from '../../scripts/lib/fspiop-headers.js';

let directory;
let server;

/** The directory of this run's CA and certificates (scripts/lib/scheme-certs.js's layout), made on first use. */
export function testSchemeDir() {
  if (!directory) {
    directory = mkdtempSync(join(tmpdir(), 'fspiop-scheme-tls-'));
    process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
    server = ensureServerCertificate(directory);
  }
  return directory;
}

/** The environment that makes a switch process's edges require this run's client certificates. */
export function edgeTlsEnv() {
  testSchemeDir();
  return { CLIENT_IDENTITY: 'certificate', TLS_CERT_PATH: server.certPath, TLS_KEY_PATH: server.keyPath, TLS_CLIENT_CA_PATH: server.caPath };
}

/**
 * The environment that makes a switch process's calls to https: DFSP endpoints present the hub's
 * client certificate from this run's CA and trust that CA alone, as scripts/env.sh sets it up.
 */
export function callbackTlsEnv(hubName = 'Hub') {
  const hub = ensureClientCertificate(testSchemeDir(), hubName);
  return { CALLBACK_TLS_CERT_PATH: hub.certPath, CALLBACK_TLS_KEY_PATH: hub.keyPath, CALLBACK_TLS_CA_PATH: hub.caPath };
}

/**
 * `{ cert, key, ca }` (PEM) a test DFSP serves its endpoints over HTTPS with: the certificate this
 * run's CA issued for 127.0.0.1, and the CA it checks client certificates with.
 */
export function testServerTls() {
  testSchemeDir();
  return server.tls;
}

const clients = new Map();

/**
 * `{ ca, cert, key }` (PEM) of DFSP `name`'s client certificate from this run's CA, made on first
 * use; the same object every time, so a DFSP's connections are pooled (tlsDispatcher).
 */
export function testClientTls(name) {
  if (!clients.has(name)) clients.set(name, ensureClientCertificate(testSchemeDir(), name).tls);
  return clients.get(name);
}

let trust;

/** `{ ca }`: this run's CA, trusted by a caller that presents no client certificate. */
function caTrust() {
  testSchemeDir();
  trust ??= { ca: readFileSync(server.caPath, 'utf8') };
  return trust;
}

/**
 * What `name` presents when it calls `url`: over HTTPS its client certificate (only the trust
 * in this run's CA when it has no name), nothing over HTTP.
 */
export function testClientTlsFor(url, name) {
  if (!String(url).startsWith('https:')) return undefined;
  return name ? testClientTls(name) : caTrust();
}

/** fetch() for a probe of /health or /metrics, which need no client certificate. */
export function probeFetch(url, options = {}) {
  const tls = testClientTlsFor(url);
  return fetch(url, tls ? { ...options, dispatcher: tlsDispatcher(tls) } : options);
}
