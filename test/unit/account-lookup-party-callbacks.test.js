// The account-lookup edge's own /parties calls (party-callbacks.js) against DFSP servers over
// real local HTTP: the forward keeps the payer's headers and bytes, the hub signs its errors,
// a forward that cannot go tells its requester 3201 or 2003 in the notification handler's
// words, and the bytes the sender holds are bounded. The endpoint cache is given as a table
// (the admin API behind it is not what is tested here).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import pino from 'pino';
import { createMetrics } from '../../platform/metrics.js';
import { createDeliverer } from '../../platform/delivery/deliver.js';
import { loopbackDestinations } from '../support/callback-destinations.js';
import { createHubSigner } from '../../platform/delivery/hub-signature.js';
import { EndpointLookupError } from '../../platform/delivery/endpoints.js';
import { forwardEvent, partyEndpoint, partyErrorEvent } from '../../account-lookup/callbacks.js';
import { createPartyCallbackMetrics, createPartyCallbackSender } from '../../account-lookup/party-callbacks.js';
import { startRecordingServer } from '../support/recording-server.js';
import { jwsKeyPair } from '../support/jws-keys.js';

const PARTY = { type: 'MSISDN', id: '27713803912' };
const PAYER_HEADERS = {
  accept: 'application/vnd.interoperability.parties+json;version=1',
  'content-type': 'application/vnd.interoperability.parties+json;version=1.1',
  date: 'Tue, 15 Nov 1994 08:12:31 GMT', 'fspiop-source': 'payerfsp',
};

let payer;
let payee;
let held;

/** A payee that holds every request until `release()`. */
async function startHoldingServer() {
  const waiting = [];
  const server = http.createServer((request, response) => { request.resume(); waiting.push(response); });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`, waiting,
    release: () => { for (const response of waiting.splice(0)) response.writeHead(202).end(); },
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

const partiesEndpoints = (base) => new Map([
  ['FSPIOP_CALLBACK_URL_PARTIES_GET', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}`],
  ['FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/error`],
]);

/** The endpoint cache's answers for this file's DFSPs; `failing` names one whose lookup fails. */
function endpointTable({ failing } = {}) {
  const table = {
    payerfsp: { known: true, endpoints: partiesEndpoints(payer.url) },
    payeefsp: { known: true, endpoints: partiesEndpoints(payee.url) },
    heldfsp: { known: true, endpoints: partiesEndpoints(held.url) },
    barefsp: { known: true, endpoints: new Map() },
  };
  return {
    lookup: async (fsp) => {
      if (fsp === failing) throw new EndpointLookupError(fsp, 'admin API unreachable (TypeError)');
      return table[fsp] ?? { known: false, endpoints: new Map() };
    },
  };
}

function newSender({ endpoints = endpointTable(), bytesHeldMax = 1024 * 1024 } = {}) {
  const metrics = createMetrics({ serviceName: 'test' });
  const deliverer = createDeliverer({
    timeoutMs: 5_000, maxInFlightPerFsp: 4, queueMaxPerFsp: 10, retries: 0, retryBackoffMs: 10,
    breakerFailures: 0, breakerOpenMs: 1_000, logger: pino({ level: 'silent' }), destinationPolicy: loopbackDestinations(),
  });
  const sender = createPartyCallbackSender({
    endpoints, deliverer, signCallback: createHubSigner(jwsKeyPair('Hub').privateKey), hubName: 'Hub',
    metrics: createPartyCallbackMetrics(metrics), logger: pino({ level: 'silent' }), deadlineMs: 10_000, bytesHeldMax,
  });
  return { sender, metrics, close: () => deliverer.close() };
}

const lookupTo = (to) => forwardEvent({
  accepted: { headers: PAYER_HEADERS, rawBody: undefined, receivedAt: 1 }, party: PARTY, action: 'lookup', to,
  endpointType: partyEndpoint('get', PARTY), method: 'GET',
});

const errorsTo = (dfsp) => dfsp.received.filter((call) => call.method === 'PUT' && call.path === '/parties/MSISDN/27713803912/error');

before(async () => {
  payer = await startRecordingServer({ name: 'payerfsp' });
  payee = await startRecordingServer({ name: 'payeefsp' });
  held = await startHoldingServer();
});

after(async () => {
  await Promise.all([payer.close(), payee.close()]);
  held.close();
});

test('a lookup reaches the payee with the payer\'s headers, and is counted delivered', async () => {
  const { sender, metrics, close } = newSender();
  sender.send(lookupTo('payeefsp'));
  await sender.drain();
  const [call] = payee.received;
  assert.equal(call.path, '/parties/MSISDN/27713803912');
  assert.deepEqual([call.headers['fspiop-source'], call.headers['fspiop-destination'], call.headers.date, call.headers['fspiop-http-method']],
    ['payerfsp', 'payeefsp', PAYER_HEADERS.date, 'GET']);
  assert.equal(call.headers['fspiop-signature'], undefined, 'the hub does not sign a DFSP\'s forward');
  const counted = (await metrics.registry.getSingleMetric('callbacks_total').get()).values;
  assert.deepEqual(counted.map((value) => [value.labels.fsp, value.labels.outcome, value.value]), [['payeefsp', 'delivered', 1]]);
  assert.deepEqual(errorsTo(payer), []);
  await close();
});

test('a lookup with nowhere to go tells the payer 3201 from the hub, signed', async () => {
  const { sender, close } = newSender();
  payer.received.length = 0;
  sender.send(lookupTo('barefsp'));
  sender.send(lookupTo('ghostfsp'));
  await sender.drain();
  const errors = errorsTo(payer);
  assert.deepEqual(errors.map((call) => call.body.errorInformation.errorCode), ['3201', '3201']);
  const descriptions = errors.map((call) => call.body.errorInformation.errorDescription).join(' | ');
  assert.match(descriptions, /barefsp has no FSPIOP_CALLBACK_URL_PARTIES_GET endpoint/);
  assert.match(descriptions, /ghostfsp is not a known DFSP/);
  for (const call of errors) {
    assert.deepEqual([call.headers['fspiop-source'], call.headers['fspiop-destination'], call.signatureProblem], ['Hub', 'payerfsp', null]);
  }
  await close();
});

test('a payee whose endpoints cannot be read: the payer is told 2003', async () => {
  const { sender, close } = newSender({ endpoints: endpointTable({ failing: 'payeefsp' }) });
  payer.received.length = 0;
  sender.send(lookupTo('payeefsp'));
  await sender.drain();
  const [error] = errorsTo(payer);
  assert.equal(error.body.errorInformation.errorCode, '2003');
  assert.match(error.body.errorInformation.errorDescription, /got no answer \(endpoint_lookup\)/);
  await close();
});

test('beyond the bytes it may hold, a lookup is refused at once and its payer told 2003; a hub error is sent as given', async () => {
  // Room for one call: each counts its body and 2 KiB beside it.
  const { sender, metrics, close } = newSender({ bytesHeldMax: 3_000 });
  payer.received.length = 0;
  sender.send(lookupTo('heldfsp'));
  await new Promise((resolve) => { const check = () => (held.waiting.length > 0 ? resolve() : setImmediate(check)); check(); });
  assert.deepEqual(sender.held(), { calls: 1, bytes: 2048 });
  sender.send(lookupTo('heldfsp'));
  const refused = await payer.waitFor((call) => call.path === '/parties/MSISDN/27713803912/error', 5_000);
  assert.equal(refused.body.errorInformation.errorCode, '2003');
  assert.match(refused.body.errorInformation.errorDescription, /heldfsp got no answer \(queue_full\)/);
  assert.equal(held.waiting.length, 1, 'the refused lookup never reached the payee');
  held.release();
  await sender.drain();
  assert.deepEqual(sender.held(), { calls: 0, bytes: 0 });
  assert.equal((await metrics.registry.getSingleMetric('forwards_undeliverable_total').get()).values[0].value, 1);

  const errorBody = { errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } };
  sender.send(partyErrorEvent({ party: PARTY, resource: 'parties', hubName: 'Hub', accepted: { headers: { 'fspiop-source': 'payerfsp' }, receivedAt: 1 }, errorBody }));
  await sender.drain();
  const told = errorsTo(payer).at(-1);
  assert.deepEqual([told.body, told.headers['fspiop-source'], told.signatureProblem], [errorBody, 'Hub', null]);
  await close();
});
