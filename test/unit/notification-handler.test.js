// The batch function with its real collaborators (endpoint cache, deliverer, prom-client) and
// real local HTTP servers for the admin API and the DFSP: poison is skipped as a value, an
// unanswerable endpoint lookup fails the batch for a retry after the rest went out, and the
// metrics count each outcome once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import pino from 'pino';
import client from 'prom-client';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { createDeliverer } from '../../platform/delivery/deliver.js';
import { loopbackDestinations } from '../support/callback-destinations.js';
import { createEndpointCache } from '../../platform/delivery/endpoints.js';
import { createNotificationHandler } from '../../handlers/notification/handler.js';
import { createNotificationMetrics } from '../../handlers/notification/metrics.js';

async function startServer(answer) {
  const requests = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests.push({ method: request.method, url: request.url });
      answer(request, response);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, requests, close: () => { server.closeAllConnections(); server.close(); } };
}

async function setUp(t) {
  const dfsp = await startServer((request, response) => { response.writeHead(200); response.end(); });
  const admin = await startServer((request, response) => {
    const json = (status, value) => { response.writeHead(status, { 'content-type': 'application/json' }); response.end(JSON.stringify(value)); };
    // GET /participants/{fsp} (its API type) and GET /participants/{fsp}/endpoints.
    const [, fsp, endpoints] = /^\/participants\/([^/]+)(\/endpoints)?$/.exec(request.url) ?? [];
    if (fsp === 'payerfsp' || fsp === 'barefsp') {
      if (!endpoints) json(200, { name: fsp, apiType: 'FSPIOP' });
      else json(200, fsp === 'payerfsp' ? [{ type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: `${dfsp.url}/transfers/{{transferId}}` }] : []);
    } else json(503, { errorInformation: { errorCode: '2003', errorDescription: 'unavailable' } });
  });
  const registry = new client.Registry();
  const metrics = createNotificationMetrics({ registry, client });
  const deliverer = createDeliverer({
    timeoutMs: 1_000, maxInFlightPerFsp: 8, queueMaxPerFsp: 100, retries: 0, retryBackoffMs: 10,
    breakerFailures: 0, breakerOpenMs: 1_000, logger: pino({ level: 'silent' }), destinationPolicy: loopbackDestinations(),
  });
  const handleBatch = createNotificationHandler({
    endpoints: createEndpointCache({ adminApiUrl: admin.url, ttlMs: 60_000, failureTtlMs: 0 }),
    deliverer, metrics, logger: pino({ level: 'silent' }), hubName: 'Hub', batchDeadlineMs: 5_000,
  });
  t.after(async () => { await deliverer.close(); dfsp.close(); admin.close(); });
  const value = async (name, labels) => (await registry.getSingleMetric(name).get()).values
    .filter((entry) => Object.entries(labels).every(([key, wanted]) => entry.labels[key] === wanted))
    .reduce((sum, entry) => sum + entry.value, 0);
  return { dfsp, handleBatch, value, registry };
}

const message = (event, offset = 0) => ({ topic: 'n', partition: 0, offset, value: encodeEvent(event) });

function commit(id, to = 'payerfsp') {
  return {
    id, type: 'notification', action: 'commit', from: 'payeefsp', to, at: Date.now() - 250,
    headers: { 'fspiop-source': 'payeefsp', 'fspiop-destination': to, date: new Date().toUTCString() }, rawBody: '{"transferState":"COMMITTED"}',
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', resource: 'transfers', templateParams: { transferId: id } },
  };
}

test('malformed and undeliverable events are skipped as values; the rest are delivered and counted', { timeout: 10_000 }, async (t) => {
  const { dfsp, handleBatch, value, registry } = await setUp(t);
  await handleBatch([
    { topic: 'n', partition: 0, offset: 0, value: Buffer.from('not json') },
    message({ ...commit('t0'), callback: { ...commit('t0').callback, method: 'DELETE' } }, 1),
    message(commit('t1'), 2),
    message(commit('t2', 'barefsp'), 3),
    message({ ...commit('t3'), action: 'timeout', from: 'Hub', headers: {} }, 4),
  ]);
  assert.deepEqual(dfsp.requests.map((r) => `${r.method} ${r.url}`).sort(), ['PUT /transfers/t1', 'PUT /transfers/t3']);
  assert.equal(await value('notification_events_skipped_total', { reason: 'malformed' }), 1);
  assert.equal(await value('notification_events_skipped_total', { reason: 'invalid' }), 1);
  assert.equal(await value('callbacks_total', { fsp: 'payerfsp', outcome: 'delivered' }), 2);
  assert.equal(await value('callbacks_total', { fsp: 'barefsp', outcome: 'no_endpoint' }), 1);
  const endToEnd = (await registry.getSingleMetric('transfer_end_to_end_seconds').get()).values;
  const observed = (suffix) => endToEnd.find((entry) => entry.metricName === `transfer_end_to_end_seconds_${suffix}`).value;
  assert.equal(observed('count'), 2, 'one observation per final-state transfer callback');
  assert.ok(observed('sum') >= 0.5, `each about 0.25 s after its event's at (sum ${observed('sum')})`);
});

test('an endpoint lookup the admin API cannot answer fails the batch after the other callbacks went out', { timeout: 10_000 }, async (t) => {
  const { dfsp, handleBatch } = await setUp(t);
  const batch = [message(commit('t1'), 0), message(commit('t2', 'flakyfsp'), 1), message(commit('t3'), 2)];
  await assert.rejects(handleBatch(batch), (error) => error instanceof AggregateError && /flakyfsp/.test(error.message));
  assert.deepEqual(dfsp.requests.map((r) => r.url).sort(), ['/transfers/t1', '/transfers/t3']);
});
