// What reading a DFSP's identity from its client certificate costs an edge per request: Node's
// getPeerCertificate() builds the whole certificate as an object (subject, issuer, key,
// fingerprints) on every call. The edges used to call it on every FSPIOP request; they now
// read it once per connection (platform/fspiop/client-identity.js), which a payment's six
// requests through the edges share.
//
// One mutual-TLS connection to a local server, with P-256 certificates from a scheme CA made
// for the run; CPU per call by process.cpuUsage(), the median of `--rounds`.
//   node perf/bench-client-identity.js [--calls 20000] [--rounds 5]
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import tls from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ensureClientCertificate, ensureServerCertificate } from '../scripts/lib/scheme-certs.js';

function cpuMicrosecondsPerCall(calls, read) {
  const start = process.cpuUsage();
  for (let call = 0; call < calls; call += 1) read();
  const { user, system } = process.cpuUsage(start);
  return (user + system) / calls;
}

const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  const { values } = parseArgs({ options: { calls: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '5' } } });
  const schemeDir = mkdtempSync(join(tmpdir(), 'bench-client-identity-'));
  try {
    const server = tls.createServer({ ...ensureServerCertificate(schemeDir).tls, requestCert: true, rejectUnauthorized: true });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'secureConnection');
    const client = tls.connect({ port: server.address().port, host: '127.0.0.1', ...ensureClientCertificate(schemeDir, 'benchfsp').tls });
    const [socket] = await accepted;
    const identity = Symbol('identity');
    const perRequest = [];
    const perConnection = [];
    for (let round = 0; round < Number(values.rounds); round += 1) {
      perRequest.push(cpuMicrosecondsPerCall(Number(values.calls), () => socket.getPeerCertificate().subject?.CN));
      perConnection.push(cpuMicrosecondsPerCall(Number(values.calls), () => {
        if (!Object.hasOwn(socket, identity)) socket[identity] = socket.getPeerCertificate().subject?.CN;
        return socket[identity];
      }));
    }
    console.log(`${values.calls} reads per round, median of ${values.rounds} rounds, CPU µs per request`);
    console.log(`read per request (getPeerCertificate): ${median(perRequest).toFixed(2)}`);
    console.log(`read once per connection:              ${median(perConnection).toFixed(3)}`);
    client.destroy();
    server.close();
  } finally {
    rmSync(schemeDir, { recursive: true, force: true });
  }
}

await main();
