// The subject names ingresses pass for a verified client certificate: the DFSP is the CN,
// whichever way round the distinguished name is written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commonNameOf } from '../../platform/fspiop/client-identity.js';

test('the DFSP named by a verified subject is its CN, in RFC 2253 or OpenSSL order', () => {
  assert.equal(commonNameOf('CN=payerfsp,O=Scheme,C=ZA'), 'payerfsp');
  assert.equal(commonNameOf('O=Scheme, CN=payerfsp'), 'payerfsp');
  assert.equal(commonNameOf('/C=ZA/O=Scheme/CN=payerfsp'), 'payerfsp');
  assert.equal(commonNameOf('O=Scheme,OU=CN=payerfsp'), undefined, 'a CN inside another attribute\'s value is not the CN');
  assert.equal(commonNameOf('O=Scheme'), undefined);
  assert.equal(commonNameOf(undefined), undefined);
});
