// JWS settings: signatures are required unless a lab relaxes them, and a process that signs
// as the hub stops at start-up without its key while they are.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../platform/config.js';

const BASE = { DB_PASSWORD: 'x' };
const hubSigner = (env) => loadConfig({ ...BASE, ...env }, { signsAsHub: true });

test('JWS verification is required by default and may be relaxed to optional or off', () => {
  assert.equal(loadConfig(BASE).jws.verification, 'required');
  assert.equal(loadConfig({ ...BASE, JWS_VERIFICATION: 'off' }).jws.verification, 'off');
  assert.throws(() => loadConfig({ ...BASE, JWS_VERIFICATION: 'sometimes' }), /JWS_VERIFICATION must be one of/);
});

test('a hub signer needs its signing key while JWS is required, and not when a lab relaxes it', () => {
  assert.throws(() => hubSigner({}), (error) => error instanceof ConfigError && /JWS_HUB_SIGNING_KEY_PATH is required/.test(error.message));
  assert.equal(hubSigner({ JWS_HUB_SIGNING_KEY_PATH: '/keys/hub.pem' }).jws.hubSigningKeyPath, '/keys/hub.pem');
  assert.equal(hubSigner({ JWS_VERIFICATION: 'optional' }).jws.hubSigningKeyPath, undefined);
  assert.equal(loadConfig(BASE).jws.hubSigningKeyPath, undefined, 'a process that does not sign needs no key');
});
