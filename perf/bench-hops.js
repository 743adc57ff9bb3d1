// CPU per HTTP exchange on this machine, both ends counted: what one FSPIOP request or
// callback costs before any switch logic runs. A payment is 13 such exchanges, so this is
// the floor under the full flow's CPU per payment that no handler code can lower.
//
// The server runs in a child process (as every DFSP and edge does) and answers each request
// 202 with an empty body, as an FSPIOP edge does; the client keeps `IN_FLIGHT` requests open
// on keep-alive connections. Both report their CPU with process.cpuUsage(). Bodies and
// headers are the size of an FSPIOP transfer request with its JWS signature.
//   node perf/bench-hops.js [--exchanges 20000] [--paced 250] [--servers node:http,hapi,hapi-lean] [--transports http,mtls] [--new-connections]
// --paced R sends one exchange every 1/R s instead of keeping IN_FLIGHT open: at a few hundred
// payments per second a process sees its messages one at a time, each with its own wake-up,
// and that, not the saturated figure, is what a message costs in the full flow.
// Cases: server node:http or hapi (with a route as the edges build it: raw payload, 202), or
// hapi-lean (hapi without cookie parsing, compression and route timeouts), client node:http's
// keep-alive Agent (the simulators) or undici's Pool (the notification handler).
// --transports http,mtls adds the same exchange over mutual TLS, as a DFSP reaches an edge with
// CLIENT_IDENTITY=certificate (and as the hub presents its certificate on callbacks): TLS 1.3,
// P-256 certificates from a scheme CA made for the run, the server requiring the client's.
// Connections are kept alive, so the handshake is paid once per connection and what remains
// is the record layer's cost per exchange. --new-connections opens a connection per exchange
// (node:http client only), to price the handshake a reconnect pays.
import { fork } from 'node:child_process';
import http from 'node:http';
import https from 'node:https';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { ensureClientCertificate, ensureServerCertificate } from '../scripts/lib/scheme-certs.js';

const IN_FLIGHT = 8;
const BODY = JSON.stringify({
  transferId: '01JD6W7Q3X6Y6ZQK2N4T8VFR6B', payerFsp: 'perffsp1', payeeFsp: 'perffsp2',
  amount: { amount: '100.25', currency: 'USD' },
  ilpPacket: 'A'.repeat(420), condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAfM', expiration: '2026-11-25T14:00:00.000Z',
});
const HEADERS = {
  'content-type': 'application/vnd.interoperability.transfers+json;version=1.1',
  accept: 'application/vnd.interoperability.transfers+json;version=1.1',
  date: new Date().toUTCString(),
  'fspiop-source': 'perffsp1',
  'fspiop-destination': 'perffsp2',
  'fspiop-signature': JSON.stringify({ signature: 'S'.repeat(86), protectedHeader: 'P'.repeat(230) }),
  'fspiop-uri': '/transfers',
  'fspiop-http-method': 'POST',
};

/** The server's TLS options for mutual TLS (certificates in `schemeDir`), or undefined for plain HTTP. */
function serverTls(schemeDir) {
  if (!schemeDir) return undefined;
  const { certPath, keyPath, caPath } = ensureServerCertificate(schemeDir);
  return { cert: readFileSync(certPath), key: readFileSync(keyPath), ca: readFileSync(caPath), requestCert: true, rejectUnauthorized: true };
}

async function serve(kind, schemeDir) {
  const report = () => process.send(process.cpuUsage());
  const tls = serverTls(schemeDir);
  let server;
  if (kind.startsWith('hapi')) {
    const { default: Hapi } = await import('@hapi/hapi');
    const lean = kind === 'hapi-lean' ? { compression: false, routes: { state: { parse: false, failAction: 'ignore' }, timeout: { server: false, socket: false } } } : {};
    server = Hapi.server({ port: 0, host: '127.0.0.1', tls, ...lean });
    server.route({ method: 'POST', path: '/transfers', options: { payload: { parse: false, output: 'data' }, handler: (request, h) => h.response().code(202) } });
    await server.start();
    process.send({ port: server.info.port });
  } else {
    const handle = (request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(202).end());
    };
    server = tls ? https.createServer({ ...tls, keepAliveTimeout: 65_000 }, handle) : http.createServer({ keepAliveTimeout: 65_000 }, handle);
    server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  }
  process.on('message', (message) => { if (message === 'cpu') report(); });
}

function nodeHttpClient(port, tls, keepAlive) {
  const agent = tls ? new https.Agent({ keepAlive, maxSockets: IN_FLIGHT, ...tls }) : new http.Agent({ keepAlive, maxSockets: IN_FLIGHT });
  const request = tls ? https.request : http.request;
  return () => new Promise((resolve, reject) => {
    const outgoing = request({ host: '127.0.0.1', port, path: '/transfers', method: 'POST', agent, headers: HEADERS }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    outgoing.on('error', reject);
    outgoing.end(BODY);
  });
}

function undiciClient(port, tls) {
  const pool = tls
    ? new Pool(`https://127.0.0.1:${port}`, { connections: IN_FLIGHT, connect: tls })
    : new Pool(`http://127.0.0.1:${port}`, { connections: IN_FLIGHT });
  return async () => {
    const { body } = await pool.request({ path: '/transfers', method: 'POST', headers: HEADERS, body: BODY });
    await body.dump();
  };
}

async function serverCpuUs(child) {
  child.send('cpu');
  const [usage] = await once(child, 'message');
  return usage.user + usage.system;
}

/** Sends `count` exchanges: IN_FLIGHT at a time, or one every 1/pacedPerSecond s. */
async function drive(call, count, pacedPerSecond) {
  if (!pacedPerSecond) {
    for (let i = 0; i < count; i += IN_FLIGHT) await Promise.all(Array.from({ length: IN_FLIGHT }, call));
    return;
  }
  const startedAt = performance.now();
  const calls = [];
  for (let i = 0; i < count; i += 1) {
    const dueInMs = startedAt + (i * 1000) / pacedPerSecond - performance.now();
    if (dueInMs > 1) await sleep(dueInMs);
    calls.push(call());
  }
  await Promise.all(calls);
}

async function measure({ serverKind, clientKind, schemeDir, keepAlive }, exchanges, pacedPerSecond) {
  const child = fork(new URL(import.meta.url).pathname, ['--serve', serverKind, ...(schemeDir ? [schemeDir] : [])], { execArgv: process.execArgv });
  const [{ port }] = await once(child, 'message');
  const tls = schemeDir ? ensureClientCertificate(schemeDir, 'perffsp1').tls : undefined;
  const call = clientKind === 'undici' ? undiciClient(port, tls) : nodeHttpClient(port, tls, keepAlive);
  await drive(call, 2_000);
  const server = await serverCpuUs(child);
  const client = process.cpuUsage();
  const startedAt = process.hrtime.bigint();
  await drive(call, exchanges, pacedPerSecond);
  const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
  const { user, system } = process.cpuUsage(client);
  const serverUs = (await serverCpuUs(child)) - server;
  child.kill();
  return { clientUs: (user + system) / exchanges, serverUs: serverUs / exchanges, perSecond: exchanges / seconds };
}

if (process.argv[2] === '--serve') {
  await serve(process.argv[3], process.argv[4]);
} else {
  const { values } = parseArgs({ options: {
    exchanges: { type: 'string', default: '20000' }, paced: { type: 'string' }, servers: { type: 'string', default: 'node:http,hapi' },
    transports: { type: 'string', default: 'http' }, 'new-connections': { type: 'boolean', default: false },
  } });
  const keepAlive = !values['new-connections'];
  const clientKinds = keepAlive ? ['node:http', 'undici'] : ['node:http'];
  const schemeDir = mkdtempSync(join(tmpdir(), 'bench-hops-tls-'));
  process.on('exit', () => rmSync(schemeDir, { recursive: true, force: true }));
  const exchanges = Number(values.exchanges);
  const paced = values.paced ? Number(values.paced) : undefined;
  const how = `${paced ? `one every ${(1000 / paced).toFixed(1)} ms` : `${IN_FLIGHT} in flight`}${keepAlive ? '' : ', a new connection each'}`;
  console.log(`${exchanges} exchanges per case, ${how}, ${BODY.length}-byte body; CPU µs per exchange`);
  for (const round of [1, 2, 3]) {
    for (const serverKind of values.servers.split(',')) {
      for (const clientKind of clientKinds) {
        // Transports alternate within a round, so both see the same moment of a noisy machine.
        for (const transport of values.transports.split(',')) {
          const { clientUs, serverUs, perSecond } = await measure({ serverKind, clientKind, schemeDir: transport === 'mtls' ? schemeDir : undefined, keepAlive }, exchanges, paced);
          console.log(`round ${round} ${transport.padEnd(4)} server ${serverKind.padEnd(9)} client ${clientKind.padEnd(9)} client ${clientUs.toFixed(1)} server ${serverUs.toFixed(1)} both ${(clientUs + serverUs).toFixed(1)} (${Math.round(perSecond)}/s)`);
        }
      }
    }
  }
  process.exit(0);
}
