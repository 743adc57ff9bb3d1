// The local scheme's certificates (scripts/lib/scheme-certs.js), made by openssl in a temporary
// directory: what each one says, that an edge configured with them admits a DFSP by its
// certificate over a real TLS handshake, and that they are reused until the CA changes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureClientCertificate, ensureSchemeCa, ensureServerCertificate } from '../../scripts/lib/scheme-certs.js';
import { edgeTlsOptions } from '../../platform/fspiop/client-identity.js';

const dir = mkdtempSync(join(tmpdir(), 'scheme-certs-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const certificateAt = (path) => new X509Certificate(readFileSync(path));

test('a CA, the edges\' server certificate for 127.0.0.1 and localhost, and a DFSP\'s client certificate named by its CN', () => {
  const server = ensureServerCertificate(dir);
  const client = ensureClientCertificate(dir, 'payerfsp');
  const ca = certificateAt(ensureSchemeCa(dir).certPath);
  assert.equal(ca.ca, true);
  const serverCertificate = certificateAt(server.certPath);
  assert.equal(serverCertificate.ca, false);
  assert.equal(serverCertificate.subjectAltName, 'IP Address:127.0.0.1, DNS:localhost');
  assert.ok(serverCertificate.verify(ca.publicKey), 'the server certificate is the CA\'s');
  const clientCertificate = new X509Certificate(client.tls.cert);
  assert.match(clientCertificate.subject, /^CN=payerfsp$/m);
  assert.ok(clientCertificate.verify(ca.publicKey), 'the client certificate is the CA\'s');
  assert.equal(client.tls.ca, readFileSync(server.caPath, 'utf8'));
});

test('an edge configured with them admits a DFSP\'s certificate as its CN, over a real handshake', async () => {
  const server = ensureServerCertificate(dir);
  const tls = edgeTlsOptions({ certPath: server.certPath, keyPath: server.keyPath, clientCaPath: server.caPath });
  const edge = https.createServer(tls, (request, response) => {
    response.end(JSON.stringify({ authorized: request.socket.authorized, commonName: request.socket.getPeerCertificate().subject?.CN }));
  });
  edge.listen(0, '127.0.0.1');
  await once(edge, 'listening');
  try {
    const { cert, key, ca } = ensureClientCertificate(dir, 'payeefsp').tls;
    for (const host of ['127.0.0.1', 'localhost']) {
      const response = await new Promise((resolve, reject) => {
        https.get({ host, port: edge.address().port, path: '/', ca, cert, key }, (answer) => {
          let text = '';
          answer.on('data', (chunk) => { text += chunk; });
          answer.on('end', () => resolve(JSON.parse(text)));
        }).on('error', reject);
      });
      assert.deepEqual(response, { authorized: true, commonName: 'payeefsp' }, host);
    }
  } finally {
    edge.close();
  }
});

test('certificates are kept while their CA is; a CA made again gets every certificate made again', () => {
  const first = ensureClientCertificate(dir, 'greenbank');
  assert.equal(ensureClientCertificate(dir, 'greenbank').tls.cert, first.tls.cert, 'made once, then reused');
  const serverBefore = readFileSync(ensureServerCertificate(dir).certPath, 'utf8');
  rmSync(join(dir, 'ca.crt'));
  const again = ensureClientCertificate(dir, 'greenbank');
  assert.notEqual(again.tls.cert, first.tls.cert);
  const ca = certificateAt(join(dir, 'ca.crt'));
  assert.ok(new X509Certificate(again.tls.cert).verify(ca.publicKey), 'issued by the new CA');
  assert.notEqual(readFileSync(ensureServerCertificate(dir).certPath, 'utf8'), serverBefore);
});

test('a name that is not a plain DFSP name gets no certificate (it would be a path and a subject)', () => {
  for (const name of ['../payerfsp', 'a/b', 'O=x,CN=y', '']) {
    assert.throws(() => ensureClientCertificate(dir, name), /no client certificate for/, name);
  }
});
