// The TLS of the hub's own calls to DFSP endpoints that are https: URLs (the notification
// handler's callbacks, account-lookup's /parties calls): the hub's client certificate, which it
// presents so that a DFSP can require it (mutual TLS), and the CAs a DFSP's server certificate
// must chain to. An http: endpoint is called without TLS whatever is configured here; the URL a
// DFSP registers decides. Read once at start-up by each process that calls DFSPs, so that a
// missing file, a key that is not its certificate's or a CA that is not a certificate stops the
// process there, not at its first callback.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates } from 'node:tls';
import { ConfigError } from '../config.js';

function readPem(variable, path) {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${variable} names ${path}, which cannot be read: ${error.message}`);
  }
}

function holdsCertificate(pem) {
  try {
    return Boolean(new X509Certificate(pem).subject);
  } catch {
    return false;
  }
}

/**
 * The TLS options `{ cert?, key?, ca? }` (PEM) of the callbacks, from the settings
 * config.js reads (`readDeliveryConfig(env).tls`). Without `ca` Node's bundled public
 * roots are trusted, as by any HTTPS client; with it only the scheme's CA is, unless
 * `publicRoots` adds those roots back for DFSPs whose servers have publicly issued certificates.
 */
export function readCallbackTls({ certPath, keyPath, caPath, publicRoots }) {
  const options = {};
  if (certPath) {
    options.cert = readPem('CALLBACK_TLS_CERT_PATH', certPath);
    options.key = readPem('CALLBACK_TLS_KEY_PATH', keyPath);
  }
  if (caPath) {
    const schemeCa = readPem('CALLBACK_TLS_CA_PATH', caPath);
    // node:tls takes a file without a certificate in it silently, and would then trust nobody.
    if (!holdsCertificate(schemeCa)) throw new ConfigError(`CALLBACK_TLS_CA_PATH names ${caPath}, which holds no PEM certificate`);
    options.ca = publicRoots ? [...rootCertificates, schemeCa] : schemeCa;
  }
  try {
    createSecureContext(options); // what every connection will do: a key that does not match its certificate fails here
  } catch (error) {
    throw new ConfigError(`CALLBACK_TLS_CERT_PATH and CALLBACK_TLS_KEY_PATH (${certPath}, ${keyPath}) are not a usable certificate and key: ${error.message}`);
  }
  return options;
}
