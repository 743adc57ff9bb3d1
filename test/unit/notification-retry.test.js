// The retry topic's rules, without Kafka: which failures are retried, the doubling back-off
// and the give-up time (age or the expiration a body states), the batch function handing
// failed callbacks to the retry scheduler before it resolves, and a stopping waiter.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import pino from 'pino';
import client from 'prom-client';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { createDeliverer, OUTCOME } from '../../platform/delivery/deliver.js';
import { loopbackDestinations } from '../support/callback-destinations.js';
import { createEndpointCache } from '../../platform/delivery/endpoints.js';
import { createNotificationHandler } from '../../handlers/notification/handler.js';
import { createNotificationMetrics } from '../../handlers/notification/metrics.js';
import { createRetryScheduler, createRetryWaiter, isRetryable, nextRetry, RetryWaitStoppedError } from '../../handlers/notification/retry.js';

const SETTINGS = { backoffMs: 1_000, backoffMaxMs: 8_000, ageMaxMs: 60_000 };

test('5xx, no answer, a full queue and an open circuit are retried; a 4xx and a bad template are final', () => {
  // As deliver.js reports them: an HTTP answer carries its status, a deadline or open circuit the last one seen.
  const retried = [
    { reason: 'http_503', status: 503 }, { reason: 'CALLBACK_TIMEOUT' }, { reason: 'ECONNREFUSED' }, { reason: 'queue_full' },
    { reason: 'circuit_open' }, { reason: 'deadline', status: 502 },
  ];
  for (const result of retried) assert.equal(isRetryable({ outcome: OUTCOME.failed, ...result }), true, result.reason);
  const final = [{ reason: 'http_400', status: 400 }, { reason: 'http_404', status: 404 }, { reason: 'http_501', status: 501 }, { reason: 'bad_template' }];
  for (const result of final) assert.equal(isRetryable({ outcome: OUTCOME.failed, ...result }), false, result.reason);
  assert.equal(isRetryable({ outcome: OUTCOME.delivered }), false);
  assert.equal(isRetryable({ outcome: OUTCOME.noEndpoint }), false);
});

test('the wait doubles per attempt up to its maximum, and the last attempt is at the give-up time', () => {
  const event = { id: 't1', body: {} };
  const first = nextRetry(event, { nowMs: 0, ...SETTINGS });
  assert.deepEqual(first, { attempt: 1, notBefore: 1_000, firstFailedAt: 0, giveUpAt: 60_000 });
  const waits = [];
  let retry = first;
  let nowMs = 0;
  for (;;) {
    waits.push(retry.notBefore - nowMs);
    nowMs = retry.notBefore;
    const next = nextRetry({ ...event, retry }, { nowMs, ...SETTINGS });
    if (!next) break;
    retry = next;
  }
  assert.deepEqual(waits.slice(0, 6), [1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
  assert.equal(nowMs, 60_000, 'tried last at the give-up time, then given up');
});

test('a callback whose body states an expiration is given up at that expiration', () => {
  const expiration = new Date(30_000).toISOString();
  const event = { id: 't1', body: { expiration } };
  assert.equal(nextRetry(event, { nowMs: 0, ...SETTINGS }).giveUpAt, 30_000);
  assert.equal(nextRetry(event, { nowMs: 30_000, ...SETTINGS }), null);
});

test('the scheduler produces due retries and counts a callback past its give-up time as dropped', async () => {
  const registry = new client.Registry();
  const metrics = createNotificationMetrics({ registry, client });
  const produced = [];
  const warnings = [];
  const schedule = createRetryScheduler({
    producer: { produce: async (records) => { produced.push(...records); } }, topic: 'retry', settings: SETTINGS, metrics,
    throttledWarn: (key, fields, message) => warnings.push(message), now: () => 100_000,
  });
  const fresh = { id: 'a', type: 'notification', action: 'commit', to: 'payerfsp' };
  const old = { id: 'b', type: 'notification', action: 'commit', to: 'payerfsp', retry: { attempt: 9, firstFailedAt: 0, notBefore: 99_000, giveUpAt: 60_000 } };
  await schedule([{ item: fresh, result: { fsp: 'payerfsp' } }, { item: old, result: { fsp: 'payerfsp' } }]);
  assert.deepEqual(produced.map((record) => [record.topic, record.key]), [['retry', 'a']]);
  assert.deepEqual(JSON.parse(produced[0].value).retry, { attempt: 1, notBefore: 101_000, firstFailedAt: 100_000, giveUpAt: 160_000 });
  assert.equal((await registry.getSingleMetric('callbacks_dropped_total').get()).values[0].value, 1);
  assert.equal((await registry.getSingleMetric('callback_retries_scheduled_total').get()).values[0].value, 1);
  assert.equal(warnings.length, 1);
});

test('the batch hands a callback that got a 503 to the retry scheduler before it resolves', { timeout: 10_000 }, async (t) => {
  const dfsp = http.createServer((request, response) => { request.resume(); response.writeHead(503).end(); });
  const admin = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify([{ type: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', value: `http://127.0.0.1:${dfsp.address().port}/transfers/{{transferId}}` }]));
  });
  await Promise.all([dfsp, admin].map((server) => new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))));
  const deliverer = createDeliverer({
    timeoutMs: 1_000, maxInFlightPerFsp: 4, queueMaxPerFsp: 10, retries: 1, retryBackoffMs: 10, breakerFailures: 0, breakerOpenMs: 1, logger: pino({ level: 'silent' }),
    destinationPolicy: loopbackDestinations(),
  });
  t.after(async () => { await deliverer.close(); dfsp.close(); admin.close(); });
  const scheduled = [];
  const handleBatch = createNotificationHandler({
    endpoints: createEndpointCache({ adminApiUrl: `http://127.0.0.1:${admin.address().port}`, ttlMs: 60_000, failureTtlMs: 0 }),
    deliverer, metrics: createNotificationMetrics({ registry: new client.Registry(), client }), logger: pino({ level: 'silent' }),
    hubName: 'Hub', batchDeadlineMs: 5_000, scheduleRetries: async (failures) => { scheduled.push(...failures); },
  });
  const event = {
    id: 't1', type: 'notification', action: 'commit', from: 'Hub', to: 'payerfsp', headers: {}, body: { transferState: 'COMMITTED' },
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', resource: 'transfers', templateParams: { transferId: 't1' } },
  };
  await handleBatch([{ topic: 'n', partition: 0, offset: 0, value: encodeEvent(event) }]);
  assert.equal(scheduled.length, 1);
  assert.equal(scheduled[0].item.id, 't1');
  assert.deepEqual([scheduled[0].result.reason, scheduled[0].result.attempts, scheduled[0].result.fsp], ['http_503', 2, 'payerfsp']);
});

test('a stopping waiter rejects every wait at once, and later ones too', async () => {
  const waiter = createRetryWaiter();
  const waiting = waiter.until(Date.now() + 60_000);
  await waiter.until(Date.now() - 1);
  waiter.stop();
  await assert.rejects(waiting, RetryWaitStoppedError);
  await assert.rejects(waiter.until(Date.now() + 1), RetryWaitStoppedError);
});
