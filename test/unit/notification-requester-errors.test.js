// The error a requester gets when its forward (GET /parties, POST /quotes, a prepare) cannot
// reach the other DFSP: which code for which failure, addressed to whom, on which endpoint;
// and that the batch function tells the requester instead of retrying the forward.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import pino from 'pino';
import client from 'prom-client';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { createDeliverer, OUTCOME } from '../../platform/delivery/deliver.js';
import { loopbackDestinations } from '../support/callback-destinations.js';
import { createEndpointCache } from '../../platform/delivery/endpoints.js';
import { createNotificationHandler } from '../../handlers/notification/handler.js';
import { createNotificationMetrics } from '../../handlers/notification/metrics.js';
import { requesterErrorEvent } from '../../platform/delivery/requester-errors.js';
import { notificationEvent } from '../../handlers/transfer-records.js';
import { quoteNotificationEvent } from '../../quoting/handler/records.js';
import { QUOTE_OUTCOME } from '../../quoting/domain/quotes.js';
import { OUTCOME as TRANSFER_OUTCOME } from '../../ledger/domain/outcomes.js';

const lookup = {
  id: 'MSISDN/123/PASSPORT', type: 'notification', action: 'lookup', from: 'payerfsp', to: 'payeefsp', at: 1_000,
  callback: { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET', templateParams: { partyIdType: 'MSISDN', partyIdentifier: '123', partySubIdOrType: 'PASSPORT' }, method: 'GET', resource: 'parties' },
  headers: { 'fspiop-source': 'payerfsp' },
  ifUndeliverable: {
    to: 'payerfsp',
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR', templateParams: { partyIdType: 'MSISDN', partyIdentifier: '123', partySubIdOrType: 'PASSPORT' }, method: 'PUT', resource: 'parties' },
  },
};
const codeOf = (result) => requesterErrorEvent(lookup, result, 'Hub')?.body.errorInformation.errorCode;

test('nowhere to send or an HTTP error is 3201; no answer at all is 2003; a delivered forward tells nobody', () => {
  assert.equal(codeOf({ outcome: OUTCOME.noEndpoint, fsp: 'payeefsp' }), '3201');
  assert.equal(codeOf({ outcome: OUTCOME.noEndpoint, fsp: 'unknown' }), '3201');
  assert.equal(codeOf({ outcome: OUTCOME.failed, reason: 'bad_template' }), '3201');
  assert.equal(codeOf({ outcome: OUTCOME.failed, reason: 'http_501', status: 501 }), '3201');
  assert.equal(codeOf({ outcome: OUTCOME.refused, reason: 'private' }), '3201', 'an endpoint the hub may not call is nowhere to send it');
  for (const reason of ['ECONNREFUSED', 'CALLBACK_TIMEOUT', 'circuit_open', 'queue_full']) assert.equal(codeOf({ outcome: OUTCOME.failed, reason }), '2003', reason);
  assert.equal(requesterErrorEvent(lookup, { outcome: OUTCOME.delivered, status: 202 }, 'Hub'), null);
  assert.equal(requesterErrorEvent({ ...lookup, ifUndeliverable: undefined }, { outcome: OUTCOME.failed, reason: 'ECONNREFUSED' }, 'Hub'), null);
  const error = requesterErrorEvent(lookup, { outcome: OUTCOME.noEndpoint, fsp: 'unknown' }, 'Hub');
  assert.deepEqual([error.from, error.to, error.action, error.callback.endpointType, error.callback.method], ['Hub', 'payerfsp', 'error', 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR', 'PUT']);
  assert.deepEqual(error.headers, {}, 'a hub callback: the notification handler sets and signs the hub\'s headers');
  assert.match(error.body.errorInformation.errorDescription, /payeefsp is not a known DFSP/);
});

test('a quote request and a prepare name the payer\'s error callback; other forwards name none', () => {
  const message = { from: 'payerfsp', headers: { 'fspiop-source': 'payerfsp' }, body: {}, rawBody: '{}', at: 1 };
  const quote = quoteNotificationEvent({ type: QUOTE_OUTCOME.forwardRequest, quoteId: 'q1', to: 'payeefsp', message }, 'Hub');
  assert.deepEqual(quote.ifUndeliverable, {
    to: 'payerfsp', callback: { endpointType: 'FSPIOP_CALLBACK_URL_QUOTES', templateParams: { quoteId: 'q1' }, method: 'PUT', resource: 'quotes', path: '/quotes/q1/error' },
  });
  assert.equal(quoteNotificationEvent({ type: QUOTE_OUTCOME.forwardAnswer, quoteId: 'q1', to: 'payerfsp', message }, 'Hub').ifUndeliverable, undefined);
  const prepare = notificationEvent({ type: TRANSFER_OUTCOME.forwardPrepare, transferId: 't1', to: 'payeefsp', message }, 'Hub');
  assert.deepEqual(prepare.ifUndeliverable, {
    to: 'payerfsp', callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', templateParams: { transferId: 't1' }, method: 'PUT', resource: 'transfers' },
  });
  assert.equal(notificationEvent({ type: TRANSFER_OUTCOME.forwardFulfil, transferId: 't1', to: 'payerfsp', message }, 'Hub').ifUndeliverable, undefined);
});

test('a forward to a DFSP that refuses connections goes to its requester as an error, never to the retry topic', { timeout: 10_000 }, async (t) => {
  const gone = http.createServer();
  gone.listen(0, '127.0.0.1');
  await once(gone, 'listening');
  const deadUrl = `http://127.0.0.1:${gone.address().port}`;
  gone.close();
  const admin = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify([{ type: 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET', value: `${deadUrl}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}` }]));
  });
  admin.listen(0, '127.0.0.1');
  await once(admin, 'listening');
  const registry = new client.Registry();
  const deliverer = createDeliverer({
    timeoutMs: 500, maxInFlightPerFsp: 4, queueMaxPerFsp: 10, retries: 1, retryBackoffMs: 10, breakerFailures: 0, breakerOpenMs: 1_000, logger: pino({ level: 'silent' }),
    destinationPolicy: loopbackDestinations(),
  });
  t.after(async () => { await deliverer.close(); admin.close(); });
  const told = [];
  const retried = [];
  const handleBatch = createNotificationHandler({
    endpoints: createEndpointCache({ adminApiUrl: `http://127.0.0.1:${admin.address().port}`, ttlMs: 60_000, failureTtlMs: 0 }),
    deliverer, metrics: createNotificationMetrics({ registry, client }), logger: pino({ level: 'silent' }), hubName: 'Hub', batchDeadlineMs: 5_000,
    scheduleRetries: async (outcomes) => { retried.push(...outcomes); },
    tellRequesters: async (outcomes) => { told.push(...outcomes); },
  });
  await handleBatch([{ topic: 'n', partition: 0, offset: 0, value: encodeEvent(lookup) }]);
  assert.equal(told.length, 1);
  assert.equal(told[0].result.reason, 'ECONNREFUSED');
  assert.equal(requesterErrorEvent(told[0].item, told[0].result, 'Hub').body.errorInformation.errorCode, '2003');
  assert.deepEqual(retried, [], 'the lookup is not sent again once the payer was told');
});
