// Where the deliverer may connect, against real local HTTP servers: a destination the policy
// refuses is never connected to (IP literals, names, IPv4-mapped spellings, a placeholder in
// the template's host), nor is a URL the callback URL rules refuse, whatever it resolves to;
// the refusal is final and leaves the breaker alone, the address checked is the address
// connected to, and the per-origin connection pools stay within their bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import pino from 'pino';
import client from 'prom-client';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { createEndpointCache } from '../../platform/delivery/endpoints.js';
import { createNotificationHandler } from '../../handlers/notification/handler.js';
import { createNotificationMetrics } from '../../handlers/notification/metrics.js';
import { createDeliverer, OUTCOME } from '../../platform/delivery/deliver.js';
import { createHttpPools } from '../../platform/delivery/http-pools.js';
import { isRetryable } from '../../handlers/notification/retry.js';
import { requesterErrorEvent } from '../../platform/delivery/requester-errors.js';
import { createDestinationPolicy, parseCidrList } from '../../platform/delivery/callback-destinations.js';
import { loopbackDestinations } from '../support/callback-destinations.js';

const TIMEOUT = { timeout: 10_000 };

/** A real HTTP server on `host` that answers 200 and records what reached it, and on which address. */
async function startServer({ host = '127.0.0.1', port = 0, closeEach = false } = {}) {
  const requests = [];
  const sockets = [];
  const server = http.createServer((request, response) => {
    requests.push({ url: request.url, localAddress: request.socket.localAddress });
    response.writeHead(200, closeEach ? { connection: 'close' } : {});
    response.end();
  });
  server.on('connection', (socket) => {
    const entry = { closed: false };
    sockets.push(entry);
    socket.on('close', () => { entry.closed = true; });
  });
  server.listen(port, host);
  await once(server, 'listening');
  return {
    port: server.address().port,
    url: `http://${host}:${server.address().port}`,
    requests,
    sockets,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

/** A logger that keeps its lines, to see what an operator would read. */
function recordingLogger() {
  const lines = [];
  const logger = pino({ level: 'info' }, { write: (line) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

function deliverer(destinationPolicy, overrides = {}) {
  return createDeliverer({
    timeoutMs: 1_000, maxInFlightPerFsp: 4, queueMaxPerFsp: 100, retries: 2, retryBackoffMs: 10,
    breakerFailures: 1, breakerOpenMs: 60_000, logger: pino({ level: 'silent' }), destinationPolicy, ...overrides,
  });
}

const call = (url, overrides = {}) => ({
  fsp: 'dfsp', url: new URL(url), method: 'PUT', headers: { 'content-type': 'application/json' },
  body: Buffer.from('{}'), deadline: Date.now() + 5_000, ...overrides,
});

test('nothing allowed: loopback is refused as an IP literal, in its IPv4-mapped form and by name; the server sees nothing', TIMEOUT, async (t) => {
  const server = await startServer();
  const { logger, lines } = recordingLogger();
  const subject = deliverer(createDestinationPolicy(), { logger });
  t.after(async () => { await subject.close(); await server.close(); });
  for (const url of [`${server.url}/transfers/1`, `http://[::ffff:127.0.0.1]:${server.port}/transfers/1`, `http://localhost:${server.port}/transfers/1`]) {
    const result = await subject.deliver(call(url));
    assert.deepEqual(result, { outcome: OUTCOME.refused, attempts: 1, reason: 'loopback' }, `${url}: refused at its first attempt, not retried`);
  }
  // The breaker (one failure opens it here) was never told: a refusal says nothing about the endpoint's health.
  assert.equal((await subject.deliver(call(`${server.url}/transfers/2`))).outcome, OUTCOME.refused, 'refused again, not circuit_open');
  assert.equal(server.requests.length + server.sockets.length, 0, 'no connection reached the server');
  const warning = lines.find((line) => line.msg.startsWith('callback refused'));
  assert.deepEqual([warning.level, warning.fsp, warning.refused], [40, 'dfsp', 'loopback']);
  assert.match(warning.why, /127\.0\.0\.1 is a loopback address, not a callback destination unless CALLBACK_ALLOWED_CIDRS allows it/);
});

test('loopback allowed: the same calls are delivered', TIMEOUT, async (t) => {
  const server = await startServer();
  const subject = deliverer(loopbackDestinations());
  t.after(async () => { await subject.close(); await server.close(); });
  for (const url of [`${server.url}/transfers/1`, `http://[::ffff:127.0.0.1]:${server.port}/transfers/2`, `http://localhost:${server.port}/transfers/3`]) {
    assert.equal((await subject.deliver(call(url))).outcome, OUTCOME.delivered, url);
  }
  assert.deepEqual(server.requests.map((r) => r.url), ['/transfers/1', '/transfers/2', '/transfers/3']);
});

test('a template with a placeholder in its host is refused before any connection, allow-list or not', TIMEOUT, async (t) => {
  const server = await startServer();
  const subject = deliverer(loopbackDestinations());
  t.after(async () => { await subject.close(); await server.close(); });
  // A row registered before the rule: the payer's party identifier would have chosen the host.
  const result = await subject.deliver(call(`${server.url}/parties/MSISDN/1`, { endpoint: 'http://{{partyIdentifier}}/parties/{{partyIdType}}' }));
  assert.deepEqual(result, { outcome: OUTCOME.refused, attempts: 0, reason: 'placeholder_host' });
  assert.equal(server.requests.length + server.sockets.length, 0);
  assert.equal((await subject.deliver(call(`${server.url}/parties/MSISDN/1`, { endpoint: `${server.url}/parties/{{partyIdType}}/{{partyIdentifier}}` }))).outcome,
    OUTCOME.delivered, 'placeholders in the path are the template');
});

/** An admin API on a real local server that serves `endpointsOf(fsp)` as a DFSP's endpoint list. */
async function startAdminApi(endpointsOf) {
  const server = http.createServer((request, response) => {
    const fsp = decodeURIComponent(request.url.split('/')[2]);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(endpointsOf(fsp)));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => { server.closeAllConnections(); server.close(); } };
}

test('a URL the admin API would not register is refused at send time and never called, though the address it resolves to is allowed', TIMEOUT, async (t) => {
  const server = await startServer();
  // Endpoints that slipped past registration (written to the database directly, or stored before
  // a rule): a cloud metadata name and another scheme, both pointing at a server this switch may call.
  const endpoints = new Map([
    ['metadatafsp', `http://metadata:${server.port}/transfers/{{transferId}}`],
    ['ftpfsp', `ftp://127.0.0.1:${server.port}/transfers/{{transferId}}`],
    ['plainfsp', `http://127.0.0.1:${server.port}/transfers/{{transferId}}`],
  ]);
  const admin = await startAdminApi((fsp) => [{ type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: endpoints.get(fsp) }]);
  // The destination policy alone would let every one of them through: loopback is allowed, and
  // the metadata name resolves to the server's loopback address.
  const resolve = (hostname, options, callback) => callback(null, [{ address: '127.0.0.1', family: 4 }]);
  const destinationPolicy = createDestinationPolicy({ allowedCidrs: parseCidrList('127.0.0.0/8'), resolve });
  const run = async ({ allowLinkLocal }) => {
    const registry = new client.Registry();
    const { logger, lines } = recordingLogger();
    const subject = deliverer(destinationPolicy, { allowLinkLocal, logger });
    t.after(() => subject.close());
    const handleBatch = createNotificationHandler({
      endpoints: createEndpointCache({ adminApiUrl: admin.url, ttlMs: 60_000, failureTtlMs: 0 }),
      deliverer: subject, metrics: createNotificationMetrics({ registry, client }), logger, hubName: 'Hub', batchDeadlineMs: 5_000,
    });
    const events = [...endpoints.keys()].map((to, offset) => ({
      topic: 'n', partition: 0, offset,
      value: encodeEvent({
        id: `t-${to}`, type: 'notification', action: 'commit', from: 'Hub', to, headers: {}, body: { transferState: 'COMMITTED' }, at: Date.now(),
        callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', resource: 'transfers', templateParams: { transferId: `t-${to}` } },
      }),
    }));
    await handleBatch(events);
    const outcomes = Object.fromEntries((await registry.getSingleMetric('callbacks_total').get()).values.map(({ labels, value }) => [`${labels.fsp}/${labels.outcome}`, value]));
    return { outcomes, lines };
  };
  t.after(async () => { admin.close(); await server.close(); });

  const strict = await run({ allowLinkLocal: false });
  assert.deepEqual(strict.outcomes, { 'metadatafsp/refused': 1, 'ftpfsp/refused': 1, 'plainfsp/delivered': 1 });
  assert.deepEqual(server.requests.map(({ url }) => url), ['/transfers/t-plainfsp'], 'only the lawful URL was called');
  const why = strict.lines.filter((line) => line.msg.startsWith('callback refused')).map((line) => `${line.refused}: ${line.why}`).sort();
  assert.equal(why.length, 2);
  assert.match(why[0], /^metadata: the callback URL http:\/\/metadata:\d+\/transfers\/t-metadatafsp refused: metadata is a cloud metadata service$/);
  assert.match(why[1], /^not_http: the callback URL ftp:\/\/127\.0\.0\.1:\d+\/transfers\/t-ftpfsp must be an http or https URL, not ftp:$/);

  // A lab that allows link-local URLs (CALLBACK_URL_ALLOW_LINK_LOCAL) does call the metadata name, so
  // it was the URL rule, nothing else, that held it back; no setting lets another scheme through.
  const lab = await run({ allowLinkLocal: true });
  assert.deepEqual(lab.outcomes, { 'metadatafsp/delivered': 1, 'ftpfsp/refused': 1, 'plainfsp/delivered': 1 });
  assert.deepEqual(server.requests.map(({ url }) => url).sort(), ['/transfers/t-metadatafsp', '/transfers/t-plainfsp', '/transfers/t-plainfsp']);
});

test('a refused callback is final: not retried, and a forward\'s requester hears 3201 without the address', () => {
  const result = { outcome: OUTCOME.refused, attempts: 1, reason: 'private', fsp: 'payeefsp' };
  assert.equal(isRetryable(result), false);
  const forward = {
    id: 'q1', type: 'notification', action: 'prepare', from: 'payerfsp', to: 'payeefsp', headers: {}, body: {}, at: 0,
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', method: 'POST', resource: 'transfers' },
    ifUndeliverable: { to: 'payerfsp', callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', method: 'PUT', resource: 'transfers', templateParams: { transferId: 'q1' } } },
  };
  const { errorInformation } = requesterErrorEvent(forward, result, 'Hub').body;
  assert.equal(errorInformation.errorCode, '3201');
  assert.match(errorInformation.errorDescription, /the endpoint of the POST FSPIOP_CALLBACK_URL_TRANSFER_POST to payeefsp is not allowed$/);
});

test('each connection is checked on the address it connects to: a name that rebinds to a refused address is refused', TIMEOUT, async (t) => {
  // The DFSP's server on 127.0.0.2, the only address allowed, and an internal service on
  // 127.0.0.1 at the same port, which the name points at from its second resolution on.
  const dfsp = await startServer({ host: '127.0.0.2', closeEach: true });
  const internal = await startServer({ host: '127.0.0.1', port: dfsp.port });
  const answers = ['127.0.0.2'];
  const resolve = (hostname, options, callback) => callback(null, [{ address: answers.shift() ?? '127.0.0.1', family: 4 }]);
  const subject = deliverer(createDestinationPolicy({ allowedCidrs: parseCidrList('127.0.0.2/32'), resolve }), { retries: 0 });
  t.after(async () => { await subject.close(); await dfsp.close(); await internal.close(); });
  const url = `http://dfsp.test:${dfsp.port}/transfers/1`;
  assert.equal((await subject.deliver(call(url))).outcome, OUTCOME.delivered);
  assert.deepEqual(dfsp.requests.map((r) => r.localAddress), ['127.0.0.2'], 'the socket went to the address the lookup checked');
  // The DFSP closed that connection, so the next callback connects, and resolves, again.
  assert.deepEqual(await subject.deliver(call(url)), { outcome: OUTCOME.refused, attempts: 1, reason: 'loopback' });
  assert.equal(internal.requests.length + internal.sockets.length, 0, 'nothing reached the internal service');
});

test('the per-origin pools are bounded: the least recently used is closed, and no run of origins grows them', TIMEOUT, async (t) => {
  const servers = [await startServer(), await startServer(), await startServer()];
  const pools = createHttpPools({ maxSocketsPerOrigin: 1, originPoolsMax: 2, destinationPolicy: loopbackDestinations() });
  t.after(async () => { await pools.close(); for (const server of servers) await server.close(); });
  const send = (url) => pools.send({ url: new URL(url), method: 'GET', headers: {}, body: null, timeoutMs: 1_000 });
  for (const server of servers) assert.equal((await send(`${server.url}/x`)).status, 200);
  assert.equal(pools.size(), 2);
  await waitFor(() => servers[0].sockets[0].closed, 'the evicted pool to close its connection');
  assert.deepEqual(servers.slice(1).map((server) => server.sockets.map((s) => s.closed)), [[false], [false]], 'the pools kept stay open');
  // Origins a sequence of URLs might name (nothing listens on port 9 of these addresses).
  for (let index = 1; index <= 50; index += 1) await send(`http://127.0.0.${index}:9/x`).catch(() => {});
  assert.equal(pools.size(), 2);
});

async function waitFor(predicate, what, timeoutMs = 2_000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
