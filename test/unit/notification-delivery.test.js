// The endpoint cache and the deliverer against real local HTTP servers (no mocks): one shared
// lookup per DFSP, short-lived failures, stale answers while the admin API is down; retries on
// 5xx, none on 4xx, timeouts, and the breaker that fails a dead DFSP fast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import pino from 'pino';
import { createEndpointCache, EndpointLookupError } from '../../platform/delivery/endpoints.js';
import { createDeliverer, OUTCOME } from '../../platform/delivery/deliver.js';
import { loopbackDestinations } from '../support/callback-destinations.js';

const TIMEOUT = { timeout: 10_000 };
const silent = pino({ level: 'silent' });

/** A real HTTP server whose answers the test scripts: `answer(request, response)`. */
async function startServer(answer) {
  const requests = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => { body += chunk; });
    request.on('end', () => {
      requests.push({ method: request.method, url: request.url, headers: request.headers, body, remotePort: request.socket.remotePort });
      answer(request, response, requests.length);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

const json = (response, status, value) => {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(value));
};

test('concurrent misses share one admin API request, and the answer is cached for the TTL', TIMEOUT, async (t) => {
  const admin = await startServer((request, response) => {
    const answer = request.url.endsWith('/endpoints')
      ? [{ type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: 'http://d/transfers/{{transferId}}' }]
      : { name: 'payerfsp', isActive: 1, apiType: 'ISO20022' };
    setTimeout(() => json(response, 200, answer), 20);
  });
  t.after(admin.close);
  let clock = 0;
  const cache = createEndpointCache({ adminApiUrl: admin.url, ttlMs: 1_000, failureTtlMs: 100, now: () => clock });
  const answers = await Promise.all(Array.from({ length: 20 }, () => cache.lookup('payerfsp')));
  assert.deepEqual(admin.requests.map((request) => request.url).sort(), ['/participants/payerfsp', '/participants/payerfsp/endpoints'],
    'one request for the endpoints and one for the API type');
  assert.equal(answers[19].endpoints.get('FSPIOP_CALLBACK_URL_TRANSFER_PUT'), 'http://d/transfers/{{transferId}}');
  assert.equal(answers[19].apiType, 'ISO20022');
  clock = 999;
  await cache.lookup('payerfsp');
  assert.equal(admin.requests.length, 2, 'still fresh');
  clock = 1_000;
  await cache.lookup('payerfsp');
  assert.equal(admin.requests.length, 4, 'refreshed after the TTL');
});

test('an unknown DFSP has no endpoints; a server error is a lookup error remembered only briefly', TIMEOUT, async (t) => {
  const admin = await startServer((request, response) => {
    if (request.url.includes('ghost')) json(response, 400, { errorInformation: { errorCode: '3200', errorDescription: 'not found' } });
    else if (request.url.includes('wrongroute')) json(response, 404, { errorInformation: { errorCode: '3002', errorDescription: 'Unknown URI' } });
    else json(response, 500, { errorInformation: { errorCode: '2001', errorDescription: 'boom' } });
  });
  t.after(admin.close);
  let clock = 0;
  const cache = createEndpointCache({ adminApiUrl: admin.url, ttlMs: 1_000, failureTtlMs: 100, now: () => clock });
  assert.deepEqual(await cache.lookup('ghost'), { known: false, endpoints: new Map(), apiType: 'FSPIOP' });
  await assert.rejects(cache.lookup('wrongroute'), EndpointLookupError, 'a bare 404 (a wrong ADMIN_API_URL) is not "no endpoint"');
  await assert.rejects(cache.lookup('broken'), EndpointLookupError);
  await assert.rejects(cache.lookup('broken'), EndpointLookupError);
  const endpointRequests = () => admin.requests.filter((r) => r.url === '/participants/broken/endpoints').length;
  assert.equal(endpointRequests(), 1, 'the failure is repeated, not re-fetched');
  clock = 100;
  await assert.rejects(cache.lookup('broken'), EndpointLookupError);
  assert.equal(endpointRequests(), 2, 'asked again after failureTtlMs');
});

test('an expired answer is served while the admin API is down', TIMEOUT, async () => {
  const admin = await startServer((request, response) => json(response, 200, [{ type: 'T', value: 'http://d/x' }]));
  let clock = 0;
  const cache = createEndpointCache({ adminApiUrl: admin.url, ttlMs: 1_000, failureTtlMs: 100, requestTimeoutMs: 500, now: () => clock });
  await cache.lookup('payerfsp');
  await admin.close();
  clock = 5_000;
  assert.equal((await cache.lookup('payerfsp')).endpoints.get('T'), 'http://d/x');
});

function deliverer(overrides = {}) {
  return createDeliverer({
    timeoutMs: 300, maxInFlightPerFsp: 4, queueMaxPerFsp: 100, retries: 2, retryBackoffMs: 10,
    breakerFailures: 0, breakerOpenMs: 1_000, logger: silent, destinationPolicy: loopbackDestinations(), ...overrides,
  });
}

const call = (server, overrides = {}) => ({
  fsp: 'dfsp', url: new URL(`${server.url}/transfers/1`), method: 'PUT',
  headers: { 'content-type': 'application/json' }, body: Buffer.from('{"a":1}'), deadline: Date.now() + 5_000, ...overrides,
});

test('a 5xx is retried with backoff; a 4xx is final; a 2xx is delivered on a reused connection', TIMEOUT, async (t) => {
  const flaky = await startServer((request, response, count) => { response.writeHead(count < 3 ? 503 : 200); response.end(); });
  const refusing = await startServer((request, response) => { response.writeHead(400); response.end(); });
  const subject = deliverer();
  t.after(async () => { await subject.close(); await flaky.close(); await refusing.close(); });
  assert.deepEqual(await subject.deliver(call(flaky)), { outcome: OUTCOME.delivered, status: 200, attempts: 3, reason: undefined });
  assert.deepEqual(await subject.deliver(call(refusing)), { outcome: OUTCOME.failed, status: 400, attempts: 1, reason: 'http_400' });
  assert.equal(flaky.requests[2].body, '{"a":1}');
  assert.equal(flaky.requests[2].headers['content-length'], '7');
  assert.equal(new Set(flaky.requests.map((r) => r.remotePort)).size, 1, 'one pooled connection served all three attempts');
});

test('a DFSP that never answers times out each attempt, and the breaker then fails its calls at once', TIMEOUT, async (t) => {
  const hanging = await startServer(() => {});
  const subject = deliverer({ retries: 1, breakerFailures: 2, breakerOpenMs: 5_000 });
  t.after(async () => { await subject.close(); await hanging.close(); });
  const started = Date.now();
  const first = await subject.deliver(call(hanging));
  assert.deepEqual([first.outcome, first.attempts, first.reason], [OUTCOME.failed, 2, 'CALLBACK_TIMEOUT']);
  assert.ok(Date.now() - started >= 600 && Date.now() - started < 1_500, `two 300 ms attempts (${Date.now() - started} ms)`);
  const fastStart = Date.now();
  const second = await subject.deliver(call(hanging));
  assert.deepEqual([second.outcome, second.attempts, second.reason], [OUTCOME.failed, 0, 'circuit_open']);
  assert.ok(Date.now() - fastStart < 50);
});

test('a DFSP answering 501 to one kind of callback never opens a breaker and is not asked again; its other callbacks still go', TIMEOUT, async (t) => {
  const sdk = await startServer((request, response) => {
    response.writeHead(request.url.startsWith('/participants/') ? 501 : 200);
    response.end();
  });
  const subject = deliverer({ retries: 2, breakerFailures: 2, breakerOpenMs: 60_000 });
  t.after(async () => { await subject.close(); await sdk.close(); });
  // 501 is final: not retried, as no retry makes the DFSP implement the callback.
  const participantPut = call(sdk, { url: new URL(`${sdk.url}/participants/MSISDN/1`), endpoint: `${sdk.url}/participants/{{partyIdType}}/{{partyIdentifier}}` });
  for (let i = 0; i < 5; i += 1) {
    assert.deepEqual(await subject.deliver(participantPut), { outcome: OUTCOME.failed, status: 501, attempts: 1, reason: 'http_501' });
  }
  const lookup = await subject.deliver(call(sdk, { method: 'GET', url: new URL(`${sdk.url}/parties/MSISDN/1`), endpoint: `${sdk.url}/parties/{{partyIdType}}/{{partyIdentifier}}` }));
  assert.equal(lookup.outcome, OUTCOME.delivered, 'the GET /parties reached the DFSP');
  assert.equal(sdk.requests.length, 6, 'every call reached the DFSP: nothing failed at once');
});

test('an endpoint that does not answer opens the breaker for that endpoint only', TIMEOUT, async (t) => {
  const hanging = await startServer(() => {});
  const healthy = await startServer((request, response) => { response.writeHead(200); response.end(); });
  const subject = deliverer({ timeoutMs: 100, retries: 0, breakerFailures: 1, breakerOpenMs: 60_000 });
  t.after(async () => { await subject.close(); await hanging.close(); await healthy.close(); });
  const dead = call(hanging, { endpoint: `${hanging.url}/transfers/{{transferId}}` });
  assert.equal((await subject.deliver(dead)).reason, 'CALLBACK_TIMEOUT');
  assert.equal((await subject.deliver(dead)).reason, 'circuit_open');
  const other = await subject.deliver(call(healthy, { endpoint: `${healthy.url}/transfers/{{transferId}}` }));
  assert.equal(other.outcome, OUTCOME.delivered, 'the same DFSP\'s other endpoint is still called');
});

test('the deadline caps attempts and queueing', TIMEOUT, async (t) => {
  const hanging = await startServer(() => {});
  const subject = deliverer({ timeoutMs: 5_000, maxInFlightPerFsp: 1 });
  t.after(async () => { await subject.close(); await hanging.close(); });
  const started = Date.now();
  const deadline = started + 400;
  const results = await Promise.all([subject.deliver(call(hanging, { deadline })), subject.deliver(call(hanging, { deadline }))]);
  assert.deepEqual(results.map((r) => [r.outcome, r.reason]), [[OUTCOME.failed, 'deadline'], [OUTCOME.failed, 'deadline']]);
  assert.ok(Date.now() - started < 1_000, `both ended by the deadline (${Date.now() - started} ms)`);
});

test('a refused connection fails after its retries without waiting for a timeout', TIMEOUT, async () => {
  const gone = await startServer(() => {});
  await gone.close();
  const subject = deliverer();
  const started = Date.now();
  const result = await subject.deliver(call(gone));
  await subject.close();
  assert.deepEqual([result.outcome, result.attempts, result.reason], [OUTCOME.failed, 3, 'ECONNREFUSED']);
  assert.ok(Date.now() - started < 250);
});
