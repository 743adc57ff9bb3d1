// The notification handler as a child process against real Kafka and the real admin API over a
// fresh database, with a DFSP registered as ISO 20022: an FSPIOP payer's prepare reaches it as
// a pacs.008 that the ISO 20022 document accepts, signed by the hub over the bytes received,
// with the payer's original described in the fspiop-switch-* headers; a hub error reaches it as
// a pacs.002; a prepare that cannot be converted is a failed callback, counted once. The admin
// API is reached through a stand-in that answers `GET /participants/{name}` with the API type
// each DFSP is registered with here and passes every other request on to the real admin API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import ilpPacket from 'ilp-packet';
import pino from 'pino';
import { onboardDfsp, setUpHub, startAdminApi } from '../support/admin-api.js';
import { createTestTopics, operatorTokenEnv, operatorTokens, testConfig, testProcessEnv, uniqueSuffix } from '../support/environment.js';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { TOPIC, topicDefinitions, topicName } from '../../platform/kafka/topics.js';
import { freePort } from '../../scripts/lib/ports.js';
import { hubSigningEnv } from '../support/jws-keys.js';
import { LOOPBACK_CALLBACK_ENV } from '../support/callback-destinations.js';
import { publicKeyFromPem, verifyFspiopMessage } from '../../platform/fspiop/jws.js';
import { createEndpointCache } from '../../platform/delivery/endpoints.js';
import { isoOperation } from '../../platform/iso20022/document.js';
import { API_TYPE, isoContentType } from '../../platform/iso20022/media-types.js';
import { SWITCH_HEADERS } from '../../platform/iso20022/egress.js';

const HANDLER = fileURLToPath(new URL('../../handlers/notification/main.js', import.meta.url));
const FSPIOP_TRANSFERS = 'application/vnd.interoperability.transfers+json;version=1.1';
const API_TYPES = { payerfsp: API_TYPE.fspiop, isofsp: API_TYPE.iso20022 };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const config = testConfig();
const env = {};
let admin;
let standIn;
let producer;
let handler;
let readsApiType = false;
const receivers = {};

async function waitFor(description, predicate, timeoutMs, intervalMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}\n${handler?.output.slice(-3000) ?? ''}`);
    await sleep(intervalMs);
  }
}

/** A DFSP's callback server: records every request and answers 202. */
async function startReceiver() {
  const received = [];
  const server = http.createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method, path: request.url, headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(202);
      response.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, received, close: () => { server.closeAllConnections(); server.close(); } };
}

/**
 * The stand-in admin API: `GET /participants/{name}` answered with `{ name, apiType }` from
 * API_TYPES (FSPIOP for any other name), everything else passed on to the real admin API.
 */
async function startAdminStandIn(realBaseUrl) {
  const server = http.createServer(async (request, response) => {
    const participant = /^\/participants\/([^/?]+)$/.exec(request.url);
    if (request.method === 'GET' && participant) {
      const name = decodeURIComponent(participant[1]);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ name, apiType: API_TYPES[name] ?? API_TYPE.fspiop }));
      return;
    }
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name)));
    const answer = await fetch(`${realBaseUrl}${request.url}`, {
      method: request.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => { server.closeAllConnections(); server.close(); } };
}

function startHandler() {
  const child = spawn(process.execPath, [HANDLER], { env: { ...testProcessEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  child.stdout.on('data', (chunk) => { child.output += chunk; });
  child.stderr.on('data', (chunk) => { child.output += chunk; });
  child.exited = once(child, 'exit');
  return child;
}

async function waitHealthy(child) {
  await waitFor('the handler to be healthy', async () => {
    if (child.exitCode !== null) throw new Error(`handler exited ${child.exitCode}:\n${child.output}`);
    try {
      return (await fetch(`http://127.0.0.1:${env.PORT}/health`)).status === 200;
    } catch {
      return false;
    }
  }, 30_000, 100);
}

/** callbacks_total of `fsp` with `outcome`, summed over endpoint types, from the handler's /metrics. */
async function callbackCount(fsp, outcome) {
  const text = await (await fetch(`http://127.0.0.1:${env.PORT}/metrics`)).text();
  let count = 0;
  for (const match of text.matchAll(/^callbacks_total\{([^}]*)\} (\d+)/gm)) {
    if (match[1].includes(`fsp="${fsp}"`) && match[1].includes(`outcome="${outcome}"`)) count += Number(match[2]);
  }
  return count;
}

function produce(events) {
  const topic = topicName(env.KAFKA_TOPIC_PREFIX, TOPIC.notificationEvent);
  return producer.produce(events.map((event) => ({ topic, key: event.id, value: encodeEvent(event) })));
}

/** A ULID-shaped id, as the ISO 20022 document requires of a transfer's TxId. */
function ulid() {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  return Array.from(createHash('sha256').update(uniqueSuffix()).digest().subarray(0, 26), (byte) => alphabet[byte % 32]).join('').replace(/^./, '0');
}

/** An FSPIOP payer's prepare to `to`, its ILP packet carrying the transaction as Mojaloop's SDKs write it. */
function fspiopPrepare(transferId, to, overrides = {}) {
  const expiration = new Date(Date.now() + 60_000).toISOString();
  const transaction = {
    transactionId: transferId, quoteId: transferId, amount: { amount: '10.25', currency: 'USD' },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '44123456789', fspId: 'payerfsp' } },
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '27713803912', fspId: to }, name: 'Jane Doe' },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
  };
  const packet = ilpPacket.serializeIlpPrepare({
    amount: '1025', destination: `g.${to}.msisdn.27713803912`, expiresAt: new Date(expiration), executionCondition: Buffer.alloc(32, 7),
    data: Buffer.from(Buffer.from(JSON.stringify(transaction)).toString('base64url')),
  }).toString('base64url');
  const rawBody = overrides.rawBody ?? JSON.stringify({
    transferId, payerFsp: 'payerfsp', payeeFsp: to, amount: { amount: '10.25', currency: 'USD' }, ilpPacket: packet,
    condition: Buffer.alloc(32, 7).toString('base64url'), expiration,
  });
  const headers = {
    'content-type': FSPIOP_TRANSFERS, accept: 'application/vnd.interoperability.transfers+json;version=1',
    date: new Date().toUTCString(), 'fspiop-source': 'payerfsp', 'fspiop-destination': to,
    'fspiop-signature': '{"signature":"payer-sig","protectedHeader":"eyJhbGciOiJSUzI1NiJ9"}',
  };
  return {
    id: transferId, type: 'notification', action: 'prepare', from: 'payerfsp', to, headers, rawBody, at: Date.now(),
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', method: 'POST', resource: 'transfers', templateParams: { transferId } },
  };
}

async function hubKeys() {
  const published = await admin.request('GET', '/participants/Hub/jwsKeys');
  assert.equal(published.status, 200, published.text);
  return published.body.map((key) => publicKeyFromPem(key.publicKey));
}

before(async () => {
  admin = await startAdminApi();
  await setUpHub(admin.request);
  standIn = await startAdminStandIn(admin.baseUrl);
  for (const name of Object.keys(API_TYPES)) {
    receivers[name] = await startReceiver();
    await onboardDfsp(admin.request, { name, endpointBase: receivers[name].url, fundsIn: '' });
  }
  // The endpoint cache reads a DFSP's API type from the admin API once the admin API registers
  // it; until then every receiver is FSPIOP, and the cases below have nothing to show.
  const token = operatorTokens().dfspDirectoryRead;
  const cache = createEndpointCache({ adminApiUrl: standIn.url, adminApiToken: token, ttlMs: 1_000, failureTtlMs: 100 });
  readsApiType = (await cache.lookup('isofsp')).apiType === API_TYPE.iso20022;
  Object.assign(env, {
    DB_PASSWORD: config.db.password, KAFKA_BROKERS: config.kafka.brokers,
    KAFKA_TOPIC_PREFIX: await createTestTopics(() => createAdminClient(config.kafka)),
    KAFKA_GROUP_PREFIX: `test-${uniqueSuffix()}`, ADMIN_API_URL: standIn.url, ...operatorTokenEnv(['dfspDirectoryRead']), PORT: String(await freePort()),
    CALLBACK_TIMEOUT_MS: '4000', CALLBACK_RETRIES: '1', CALLBACK_RETRY_BACKOFF_MS: '50', LOG_LEVEL: 'warn',
    NOTIFICATION_RETRY_BACKOFF_MS: '1000', JWS_VERIFICATION: 'required', ...hubSigningEnv(), ...LOOPBACK_CALLBACK_ENV,
  });
  producer = createProducer({ kafka: config.kafka, logger: pino({ level: 'warn' }) });
  await producer.connect();
  handler = startHandler();
  await waitHealthy(handler);
});

after(async () => {
  if (handler && handler.exitCode === null && handler.signalCode === null) {
    handler.kill('SIGKILL');
    await handler.exited;
  }
  await producer?.disconnect().catch(() => {});
  for (const receiver of Object.values(receivers)) receiver.close();
  standIn?.close();
  const client = createAdminClient(config.kafka);
  await Promise.all(topicDefinitions(env.KAFKA_TOPIC_PREFIX).map(({ name }) => deleteTopic(client, name).catch(() => {})));
  client.disconnect();
  await admin?.stop();
});

test('an FSPIOP prepare reaches an ISO 20022 payee as a valid pacs.008, signed by the hub, with the original described', { timeout: 30_000 }, async (t) => {
  if (!readsApiType) return t.skip('the endpoint cache does not read the API type from the admin API yet');
  const transferId = ulid();
  const event = fspiopPrepare(transferId, 'isofsp');
  await produce([event]);
  const call = await waitFor('the converted POST', () => receivers.isofsp.received.find((r) => r.method === 'POST' && r.body.includes(transferId)), 20_000);
  assert.equal(call.path, '/transfers');
  assert.equal(call.headers['content-type'], isoContentType('transfers'));
  const pacs008 = JSON.parse(call.body);
  const { validate } = isoOperation('POST', '/transfers');
  assert.ok(validate(pacs008), JSON.stringify(validate.errors));
  assert.equal(pacs008.CdtTrfTxInf.PmtId.TxId, transferId);
  assert.equal(pacs008.CdtTrfTxInf.Dbtr.Id.PrvtId.Othr.Id, '44123456789');
  assert.equal(call.headers['fspiop-source'], 'payerfsp');
  assert.equal(call.headers['fspiop-destination'], 'isofsp');
  assert.equal(await verifyFspiopMessage({ method: 'POST', uri: call.path, headers: call.headers, body: call.body, keys: await hubKeys() }), null);
  assert.equal(call.headers[SWITCH_HEADERS.signer], 'Hub');
  assert.equal(call.headers[SWITCH_HEADERS.originalSource], 'payerfsp');
  assert.equal(call.headers[SWITCH_HEADERS.originalSignature], event.headers['fspiop-signature']);
  assert.equal(call.headers[SWITCH_HEADERS.originalContentType], FSPIOP_TRANSFERS);
  assert.equal(call.headers[SWITCH_HEADERS.originalDigest], `sha-256=${createHash('sha256').update(event.rawBody).digest('base64url')}`);
  assert.equal(call.headers['switch-internal-original-body'], undefined);
  return undefined;
});

test('a hub error reaches an ISO 20022 DFSP as a valid pacs.002, and an FSPIOP DFSP as FSPIOP', { timeout: 30_000 }, async (t) => {
  if (!readsApiType) return t.skip('the endpoint cache does not read the API type from the admin API yet');
  const transferId = ulid();
  const error = { errorInformation: { errorCode: '3303', errorDescription: 'Transfer expired' } };
  const callback = { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', method: 'PUT', resource: 'transfers', templateParams: { transferId } };
  await produce(['isofsp', 'payerfsp'].map((to) => ({ id: transferId, type: 'notification', action: 'timeout', from: 'Hub', to, headers: {}, body: error, at: Date.now(), callback })));
  const path = `/transfers/${transferId}/error`;
  const iso = await waitFor('the pacs.002', () => receivers.isofsp.received.find((r) => r.path === path), 20_000);
  const fspiop = await waitFor('the FSPIOP error', () => receivers.payerfsp.received.find((r) => r.path === path), 20_000);
  const pacs002 = JSON.parse(iso.body);
  const { validate } = isoOperation('PUT', '/transfers/{ID}/error');
  assert.ok(validate(pacs002), JSON.stringify(validate.errors));
  assert.equal(pacs002.TxInfAndSts.StsRsnInf.Rsn.Prtry, '3303');
  assert.equal(iso.headers['content-type'], isoContentType('transfers'));
  assert.deepEqual(JSON.parse(fspiop.body), error);
  const keys = await hubKeys();
  for (const call of [iso, fspiop]) assert.equal(await verifyFspiopMessage({ method: 'PUT', uri: call.path, headers: call.headers, body: call.body, keys }), null);
  return undefined;
});

test('a prepare that cannot be converted is a failed callback, counted once and not retried', { timeout: 30_000 }, async (t) => {
  if (!readsApiType) return t.skip('the endpoint cache does not read the API type from the admin API yet');
  const before = await callbackCount('isofsp', 'failed');
  const transferId = ulid();
  await produce([fspiopPrepare(transferId, 'isofsp', { rawBody: `{"transferId":"${transferId}", not JSON` })]);
  await waitFor('the failed callback', async () => (await callbackCount('isofsp', 'failed')) === before + 1, 20_000);
  // The retry topic's back-off is a second here: a retried callback would have been counted again.
  await sleep(3_000);
  assert.equal(await callbackCount('isofsp', 'failed'), before + 1);
  assert.equal(receivers.isofsp.received.some((r) => r.body.includes(transferId)), false);
  assert.match(handler.output, /callback failed/);
  return undefined;
});
