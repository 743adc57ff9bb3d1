// A scheme's certificate authority for one machine: the CA that issues the DFSPs' client
// certificates (mutual TLS at the FSPIOP edges, CLIENT_IDENTITY=certificate), the edges' server
// certificate and a client certificate per DFSP, made with the openssl CLI (Node can parse
// certificates but not issue them). The local runtime keeps them in $RUN_DIR/tls
// (scripts/scheme-ca.js, run by `make up`); the demo, the load test, the fuzzer and the tests
// ask here for a DFSP's certificate. Layout of `dir`:
//   ca.crt, ca.key            the scheme's CA (the edges' TLS_CLIENT_CA_PATH)
//   server.crt, server.key    the edges' certificate, for 127.0.0.1 and localhost
//   clients/<name>.crt, .key  a DFSP's (or the hub's) client certificate, CN=<name>
// Everything is made once and then reused; a certificate that expires within a day, or that
// the present CA did not issue (the CA was made again), is made again. Keys are P-256.
import { execFileSync } from 'node:child_process';
import { X509Certificate, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';

/** The services that serve DFSPs (platform/fspiop/edge-process.js): HTTPS with this server certificate when TLS_CERT_PATH is set. */
export const FSPIOP_EDGES = Object.freeze(['api-adapter', 'quoting', 'account-lookup']);

const CA_DAYS = 3650;
const LEAF_DAYS = 825;
const RENEW_BEFORE_MS = 24 * 60 * 60 * 1000;
// A name becomes a file name and a subject's CN: letters, digits, '.', '_' and '-' only.
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const caPaths = (dir) => ({ certPath: join(dir, 'ca.crt'), keyPath: join(dir, 'ca.key') });

/** Whether the certificate at `certPath` is valid for another day and, given `ca`, issued by it. */
function usable(certPath, ca) {
  if (!existsSync(certPath)) return false;
  try {
    const certificate = new X509Certificate(readFileSync(certPath));
    if (Date.parse(certificate.validTo) - Date.now() < RENEW_BEFORE_MS) return false;
    return !ca || (certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
  } catch {
    return false;
  }
}

/**
 * Makes a key and a certificate with `openssl req -x509`: self-signed, or signed by `issuer`
 * ({ certPath, keyPath }). Both are written beside their final names and renamed into place,
 * the certificate last, so a reader never sees half a pair; openssl writes the key readable by
 * its owner only.
 */
function issue({ certPath, keyPath }, { subject, days, extensions, issuer }) {
  const suffix = `.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  execFileSync('openssl', [
    'req', '-x509', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
    '-keyout', keyPath + suffix, '-out', certPath + suffix, '-subj', subject, '-days', String(days),
    ...(issuer ? ['-CA', issuer.certPath, '-CAkey', issuer.keyPath] : []),
    ...extensions.flatMap((extension) => ['-addext', extension]),
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  renameSync(keyPath + suffix, keyPath);
  renameSync(certPath + suffix, certPath);
}

/** The scheme's CA in `dir`, made there first if it is missing or expires: `{ certPath, keyPath }`. */
export function ensureSchemeCa(dir) {
  const paths = caPaths(dir);
  if (!usable(paths.certPath)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    issue(paths, {
      subject: '/O=fspiop-switch local scheme/CN=Local scheme CA', days: CA_DAYS,
      extensions: ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign,cRLSign'],
    });
  }
  return paths;
}

/** A certificate `{ certPath, keyPath }` issued by the scheme's CA in `dir`, made if it is not usable. */
function ensureIssued(dir, paths, { subject, extensions }) {
  const issuer = ensureSchemeCa(dir);
  if (!usable(paths.certPath, new X509Certificate(readFileSync(issuer.certPath)))) {
    issue(paths, { subject, days: LEAF_DAYS, issuer, extensions: ['basicConstraints=critical,CA:FALSE', ...extensions] });
  }
  return { ...paths, caPath: issuer.certPath };
}

/** `{ ca, cert, key }` of issued `paths` as PEM text, what node:tls takes. */
const pemsOf = ({ certPath, keyPath, caPath }) => ({ ca: readFileSync(caPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), key: readFileSync(keyPath, 'utf8') });

/**
 * The FSPIOP edges' server certificate (127.0.0.1 and localhost): `{ certPath, keyPath, caPath, tls }`,
 * `tls` being `{ ca, cert, key }` as PEM text, what a local HTTPS server takes (the demo's DFSPs
 * serve their callback endpoints with it too).
 */
export function ensureServerCertificate(dir) {
  const paths = ensureIssued(dir, { certPath: join(dir, 'server.crt'), keyPath: join(dir, 'server.key') }, {
    subject: '/O=fspiop-switch local scheme/CN=localhost',
    extensions: ['subjectAltName=IP:127.0.0.1,DNS:localhost', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth'],
  });
  return { ...paths, tls: pemsOf(paths) };
}

/**
 * The client certificate of DFSP `name` (CN=<name>, as the edges read it), made if it is
 * missing: `{ certPath, keyPath, caPath, tls }`, `tls` being `{ ca, cert, key }` as PEM text,
 * what a TLS client takes to trust the edges and present the certificate.
 */
export function ensureClientCertificate(dir, name) {
  if (!NAME.test(name)) throw new Error(`no client certificate for "${name}": a name is letters, digits, '.', '_' and '-'`);
  const clients = join(dir, 'clients');
  mkdirSync(clients, { recursive: true, mode: 0o700 });
  const paths = ensureIssued(dir, { certPath: join(clients, `${name}.crt`), keyPath: join(clients, `${name}.key`) }, {
    subject: `/O=fspiop-switch local scheme/CN=${name}`,
    extensions: ['keyUsage=critical,digitalSignature', 'extendedKeyUsage=clientAuth'],
  });
  return { ...paths, tls: pemsOf(paths) };
}
