// The endpoint cache's answers about names a DFSP chose (FSPIOP-Source becomes an event's
// `to`): the admin API's refusal of a name, FSPIOP error or not, is "unknown DFSP", a value;
// names no DFSP can have are not asked about; a flood of names is bounded in memory; only an
// unreachable admin API, a 5xx or a refused token is a failure that retrying can cure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createEndpointCache, EndpointLookupError } from '../../platform/delivery/endpoints.js';

const TIMEOUT = { timeout: 10_000 };

async function startAdminApi(answer) {
  const requests = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => { requests.push(request.url); answer(request, response); });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

test('a name the admin API refuses with a bare 400 is an unknown DFSP, not a lookup failure', TIMEOUT, async (t) => {
  // What hapi answers a path parameter it rejects: not an FSPIOP errorInformation.
  const admin = await startAdminApi((request, response) => {
    response.writeHead(400, { 'content-type': 'application/json' });
    response.end('{"statusCode":400,"error":"Bad Request","message":"Invalid request params input"}');
  });
  t.after(admin.close);
  const cache = createEndpointCache({ adminApiUrl: admin.url, ttlMs: 60_000, failureTtlMs: 0 });
  const flood = ','.repeat(5_000);
  assert.deepEqual(await cache.lookup(flood.slice(0, 100)), { known: false, endpoints: new Map(), apiType: 'FSPIOP' });
  assert.deepEqual(await cache.lookup(flood), { known: false, endpoints: new Map(), apiType: 'FSPIOP' });
  assert.deepEqual(await cache.lookup('..'), { known: false, endpoints: new Map(), apiType: 'FSPIOP' });
  assert.equal(admin.requests.length, 2, 'neither a 5,000-character name nor a dot segment reaches the admin API');
});

test('a refused token and a 5xx stay failures the batch retries', TIMEOUT, async (t) => {
  const admin = await startAdminApi((request, response) => {
    response.writeHead(request.url.includes('tokenless') ? 401 : 503);
    response.end();
  });
  t.after(admin.close);
  const cache = createEndpointCache({ adminApiUrl: admin.url, ttlMs: 60_000, failureTtlMs: 0 });
  await assert.rejects(cache.lookup('tokenless'), EndpointLookupError);
  await assert.rejects(cache.lookup('payerfsp'), EndpointLookupError);
});

test('the cache remembers at most entriesMax DFSPs, the least recently used forgotten first', TIMEOUT, async (t) => {
  const admin = await startAdminApi((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(request.url.includes('payerfsp') ? '[{"type":"T","value":"http://d/x"}]' : '[]');
  });
  t.after(admin.close);
  const cache = createEndpointCache({ adminApiUrl: admin.url, ttlMs: 60_000, failureTtlMs: 0, entriesMax: 10 });
  await cache.lookup('payerfsp');
  for (let index = 0; index < 200; index += 1) {
    await cache.lookup(`junk${index}`);
    await cache.lookup('payerfsp');
  }
  assert.ok(cache.size() <= 10, `${cache.size()} entries`);
  assert.equal(admin.requests.filter((url) => url.includes('payerfsp/endpoints')).length, 1, 'the DFSP in use kept its entry');
});
