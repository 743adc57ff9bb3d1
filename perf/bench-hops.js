// CPU per HTTP exchange on this machine, both ends counted: what one FSPIOP request or
// callback costs before any switch logic runs. A payment is 13 such exchanges, so this is
// the floor under the full flow's CPU per payment that no handler code can lower.
//
// The server runs in a child process (as every DFSP and edge does) and answers each request
// 202 with an empty body, as an FSPIOP edge does; the client keeps `IN_FLIGHT` requests open
// on keep-alive connections. Both report their CPU with process.cpuUsage(). Bodies and
// headers are the size of an FSPIOP transfer request with its JWS signature.
//   node perf/bench-hops.js [--exchanges 20000] [--paced 250] [--servers node:http,hapi,hapi-lean]
// --paced R sends one exchange every 1/R s instead of keeping IN_FLIGHT open: at a few hundred
// payments per second a process sees its messages one at a time, each with its own wake-up,
// and that, not the saturated figure, is what a message costs in the full flow.
// Cases: server node:http or hapi (with a route as the edges build it: raw payload, 202), or
// hapi-lean (hapi without cookie parsing, compression and route timeouts), client node:http's
// keep-alive Agent (the simulators) or undici's Pool (the notification handler).
import { fork } from 'node:child_process';
import http from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';

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

async function serve(kind) {
  const report = () => process.send(process.cpuUsage());
  let server;
  if (kind.startsWith('hapi')) {
    const { default: Hapi } = await import('@hapi/hapi');
    const lean = kind === 'hapi-lean' ? { compression: false, routes: { state: { parse: false, failAction: 'ignore' }, timeout: { server: false, socket: false } } } : {};
    server = Hapi.server({ port: 0, host: '127.0.0.1', ...lean });
    server.route({ method: 'POST', path: '/transfers', options: { payload: { parse: false, output: 'data' }, handler: (request, h) => h.response().code(202) } });
    await server.start();
    process.send({ port: server.info.port });
  } else {
    server = http.createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
      request.resume();
      request.on('end', () => response.writeHead(202).end());
    });
    server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  }
  process.on('message', (message) => { if (message === 'cpu') report(); });
}

function nodeHttpClient(port) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  return () => new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: '/transfers', method: 'POST', agent, headers: HEADERS }, (response) => {
      response.resume();
      response.on('end', resolve);
    });
    request.on('error', reject);
    request.end(BODY);
  });
}

function undiciClient(port) {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: IN_FLIGHT });
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

async function measure(serverKind, clientKind, exchanges, pacedPerSecond) {
  const child = fork(new URL(import.meta.url).pathname, ['--serve', serverKind], { execArgv: process.execArgv });
  const [{ port }] = await once(child, 'message');
  const call = clientKind === 'undici' ? undiciClient(port) : nodeHttpClient(port);
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
  await serve(process.argv[3]);
} else {
  const { values } = parseArgs({ options: {
    exchanges: { type: 'string', default: '20000' }, paced: { type: 'string' }, servers: { type: 'string', default: 'node:http,hapi' },
  } });
  const exchanges = Number(values.exchanges);
  const paced = values.paced ? Number(values.paced) : undefined;
  const how = paced ? `one every ${(1000 / paced).toFixed(1)} ms` : `${IN_FLIGHT} in flight`;
  console.log(`${exchanges} exchanges per case, ${how}, ${BODY.length}-byte body; CPU µs per exchange`);
  for (const round of [1, 2, 3]) {
    for (const serverKind of values.servers.split(',')) {
      for (const clientKind of ['node:http', 'undici']) {
        const { clientUs, serverUs, perSecond } = await measure(serverKind, clientKind, exchanges, paced);
        console.log(`round ${round} server ${serverKind.padEnd(9)} client ${clientKind.padEnd(9)} client ${clientUs.toFixed(1)} server ${serverUs.toFixed(1)} both ${(clientUs + serverUs).toFixed(1)} (${Math.round(perSecond)}/s)`);
      }
    }
  }
  process.exit(0);
}
