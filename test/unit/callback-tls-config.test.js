// The TLS of the hub's calls to DFSPs (CALLBACK_TLS_*): parsed by platform/delivery/config.js, read by
// platform/delivery/callback-tls.js at start-up, where anything unusable stops the process.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { ConfigError } from '../../platform/config.js';
import { readDeliveryConfig } from '../../platform/delivery/config.js';
import { readCallbackTls } from '../../platform/delivery/callback-tls.js';
import { ensureClientCertificate } from '../../scripts/lib/scheme-certs.js';

const dir = mkdtempSync(join(tmpdir(), 'callback-tls-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const hub = ensureClientCertificate(dir, 'Hub');
const other = ensureClientCertificate(dir, 'otherfsp');

const settingsOf = (env) => readDeliveryConfig(env).tls;

test('no setting: no client certificate, and the public roots as any HTTPS client trusts them', () => {
  assert.deepEqual(readCallbackTls(settingsOf({})), {});
});

test('the hub\'s certificate and the scheme\'s CA, alone unless the public roots are asked for too', () => {
  const env = { CALLBACK_TLS_CERT_PATH: hub.certPath, CALLBACK_TLS_KEY_PATH: hub.keyPath, CALLBACK_TLS_CA_PATH: hub.caPath };
  const options = readCallbackTls(settingsOf(env));
  assert.deepEqual(options, { cert: hub.tls.cert, key: hub.tls.key, ca: hub.tls.ca });
  const withRoots = readCallbackTls(settingsOf({ ...env, CALLBACK_TLS_PUBLIC_ROOTS: 'true' }));
  assert.deepEqual(withRoots.ca, [...rootCertificates, hub.tls.ca]);
});

test('what cannot work stops the process at start-up, with the variable that names it', () => {
  assert.throws(() => settingsOf({ CALLBACK_TLS_CERT_PATH: hub.certPath }), /CALLBACK_TLS_CERT_PATH and CALLBACK_TLS_KEY_PATH go together/);
  assert.throws(() => settingsOf({ CALLBACK_TLS_PUBLIC_ROOTS: 'yes' }), /CALLBACK_TLS_PUBLIC_ROOTS must be true or false/);
  const missing = join(dir, 'missing.crt');
  assert.throws(() => readCallbackTls(settingsOf({ CALLBACK_TLS_CERT_PATH: missing, CALLBACK_TLS_KEY_PATH: hub.keyPath })),
    (error) => error instanceof ConfigError && /CALLBACK_TLS_CERT_PATH names .*missing\.crt, which cannot be read/.test(error.message));
  assert.throws(() => readCallbackTls(settingsOf({ CALLBACK_TLS_CERT_PATH: hub.certPath, CALLBACK_TLS_KEY_PATH: other.keyPath })),
    /are not a usable certificate and key/);
  const notCertificate = join(dir, 'not-a-certificate.pem');
  writeFileSync(notCertificate, 'not a certificate\n');
  assert.throws(() => readCallbackTls(settingsOf({ CALLBACK_TLS_CA_PATH: notCertificate })), /CALLBACK_TLS_CA_PATH names .* which holds no PEM certificate/);
});
