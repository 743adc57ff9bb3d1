// Makes the local scheme's certificates in SCHEME_TLS_DIR if they are missing
// (scripts/lib/scheme-certs.js): its CA, the FSPIOP edges' server certificate, the hub's client
// certificate, and one for each DFSP named on the command line. scripts/up.sh runs it before the
// services start; what exists is kept, so DFSPs keep the certificates they were given.
//   node scripts/scheme-ca.js [<fsp> ...]   (prints the paths of each DFSP's certificate and key)
import { ensureClientCertificate, ensureServerCertificate } from './lib/scheme-certs.js';

const dir = process.env.SCHEME_TLS_DIR;
if (!dir) {
  console.error('SCHEME_TLS_DIR must be set (scripts/env.sh sets it)');
  process.exit(1);
}
const server = ensureServerCertificate(dir);
ensureClientCertificate(dir, process.env.HUB_NAME ?? 'Hub');
console.log(`scheme CA ${server.caPath}; the edges' certificate ${server.certPath}`);
for (const name of process.argv.slice(2)) {
  const client = ensureClientCertificate(dir, name);
  console.log(`${name}: ${client.certPath} ${client.keyPath}`);
}
