// Mutual TLS at a DFSP-facing edge (the transfers edge, in-process, with a real producer and
// real Kafka): the scheme's CA, the edge's server certificate and DFSP client certificates
// are made by openssl for this run. The client certificate's CN must be the FSPIOP-Source
// of every request, with a body or without; a certificate from another CA, or none, is
// refused; probes reach /health without one. The same check behind an ingress reads the
// verified subject from the header the ingress sets. Nothing refused reaches Kafka.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Kafka from 'node-rdkafka';
import pino from 'pino';
import { createTestTopics, testConfig, uniqueSuffix } from '../support/environment.js';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { createProducer } from '../../platform/kafka/producer.js';
import { TOPIC, topicDefinitions, topicName } from '../../platform/kafka/topics.js';
import { createMetrics } from '../../platform/metrics.js';
import { createEdgeServer } from '../../platform/fspiop/edge-process.js';
import { transferRoutes } from '../../api-adapter/routes.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

const logger = pino({ level: 'fatal' });
const EVENT_WAIT_MS = 15_000;
const env = {};

/** A key and a certificate for `subject`, signed by `issuer` (or self-signed), as PEM files in `dir`. */
function issue(dir, name, subject, { issuer, serverIp } = {}) {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  const request = join(dir, `${name}.csr`);
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-subj', subject, '-out', request], { stdio: 'ignore' });
  const extensions = join(dir, `${name}.ext`);
  execFileSync('sh', ['-c', `printf '%s\\n' "${serverIp ? `subjectAltName=IP:${serverIp}` : 'basicConstraints=CA:TRUE'}" > ${extensions}`]);
  const signer = issuer ? ['-CA', issuer.cert, '-CAkey', issuer.key, '-CAcreateserial'] : ['-signkey', key];
  execFileSync('openssl', ['x509', '-req', '-in', request, ...signer, '-days', '2', '-extfile', extensions, '-out', cert], { stdio: 'ignore' });
  return { key, cert };
}

async function startEdge(overrides) {
  const config = testConfig({ KAFKA_TOPIC_PREFIX: env.prefix, PORT: '0', JWS_VERIFICATION: 'off', ...overrides });
  const producer = createProducer({ kafka: config.kafka, logger });
  await producer.connect();
  const server = createEdgeServer({ config, logger, metrics: createMetrics(config), producer, kafkaHealth: async () => 'OK', routes: transferRoutes });
  await server.start();
  return { port: server.info.port, async stop() { await server.stop({ timeout: 2000 }); await producer.disconnect(); } };
}

before(async () => {
  env.dir = mkdtempSync(join(tmpdir(), 'fspiop-mtls-'));
  env.ca = issue(env.dir, 'scheme-ca', '/CN=Scheme CA');
  env.rogueCa = issue(env.dir, 'rogue-ca', '/CN=Rogue CA');
  env.server = issue(env.dir, 'edge', '/CN=127.0.0.1', { issuer: env.ca, serverIp: '127.0.0.1' });
  env.payer = issue(env.dir, 'payerfsp', '/O=Scheme/CN=payerfsp', { issuer: env.ca });
  env.other = issue(env.dir, 'otherfsp', '/O=Scheme/CN=otherfsp', { issuer: env.ca });
  env.forged = issue(env.dir, 'forged-payerfsp', '/O=Scheme/CN=payerfsp', { issuer: env.rogueCa });
  // mallory's certificate, issued by the scheme's CA, whose O spells another DFSP's CN.
  env.mallory = issue(env.dir, 'mallory', '/O=Evil,CN=victimfsp/CN=mallory', { issuer: env.ca });
  env.twoNames = issue(env.dir, 'two-names', '/CN=victimfsp/CN=mallory', { issuer: env.ca });
  env.prefix = await createTestTopics(() => createAdminClient(testConfig().kafka));
  env.tlsEdge = await startEdge({
    CLIENT_IDENTITY: 'certificate', TLS_CERT_PATH: env.server.cert, TLS_KEY_PATH: env.server.key, TLS_CLIENT_CA_PATH: env.ca.cert,
  });
  env.ingressEdge = await startEdge({ CLIENT_IDENTITY: 'header', CLIENT_IDENTITY_HEADER: 'X-Verified-Client-Subject' });
  env.consumer = new Kafka.KafkaConsumer({
    'group.id': `test-${uniqueSuffix()}-mtls`, 'bootstrap.servers': testConfig().kafka.brokers, 'enable.auto.commit': false,
  }, { 'auto.offset.reset': 'earliest' });
  await new Promise((resolve, reject) => env.consumer.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve())));
  env.produced = [];
  env.consumer.on('data', (message) => env.produced.push(message.key?.toString()));
  env.consumer.subscribe([topicName(env.prefix, TOPIC.transferPrepare), topicName(env.prefix, TOPIC.transferFulfil)]);
  env.consumer.consume();
});

after(async () => {
  await env.tlsEdge?.stop();
  await env.ingressEdge?.stop();
  if (env.consumer) await new Promise((resolve) => env.consumer.disconnect(() => resolve()));
  if (env.prefix) {
    const admin = createAdminClient(testConfig().kafka);
    for (const { name } of topicDefinitions(env.prefix)) await deleteTopic(admin, name).catch(() => {});
    admin.disconnect();
  }
  if (env.dir) rmSync(env.dir, { recursive: true, force: true });
});

function transferBody(transferId, payerFsp = 'payerfsp') {
  return JSON.stringify({
    transferId, payerFsp, payeeFsp: 'payeefsp', amount: { amount: '100.25', currency: 'USD' },
    ilpPacket: 'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4w',
    condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA', expiration: new Date(Date.now() + 60_000).toISOString(),
  });
}

/** One request to an edge; `client` is the certificate to present (none when absent). */
function send({ edge, secure = true, client, method = 'POST', path = '/transfers', headers, body, agent }) {
  const options = {
    host: '127.0.0.1', port: edge.port, method, path, ...(agent ? { agent } : {}),
    headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
    ...(secure ? { ca: readFileSync(env.ca.cert), ...(client ? { cert: readFileSync(client.cert), key: readFileSync(client.key) } : {}) } : {}),
  };
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(options, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode, reusedSocket: request.reusedSocket, json: /json/.test(response.headers['content-type'] ?? '') && text ? JSON.parse(text) : undefined });
      });
    });
    request.on('error', reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

const prepare = (transferId, source = 'payerfsp') => ({ headers: dfspHeaders('transfers', source, 'payeefsp'), body: transferBody(transferId, source) });

async function waitProduced(id) {
  const deadline = Date.now() + EVENT_WAIT_MS;
  while (!env.produced.includes(id)) {
    if (Date.now() > deadline) throw new Error(`${id} was never produced`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('the client certificate\'s DFSP must be FSPIOP-Source; another DFSP\'s, a forged or no certificate is refused and nothing is produced', async () => {
  const refusedIds = [];
  const refused = async (request, pattern) => {
    const id = JSON.parse(request.body ?? '{}').transferId ?? randomUUID();
    refusedIds.push(id);
    const answer = await send({ edge: env.tlsEdge, ...request });
    assert.equal(answer.status, 400, JSON.stringify(answer.json));
    assert.equal(answer.json.errorInformation.errorCode, '3100');
    assert.match(answer.json.errorInformation.errorDescription, pattern);
  };
  await refused({ client: env.other, ...prepare(randomUUID()) }, /FSPIOP-Source payerfsp is not otherfsp/);
  await refused({ client: env.forged, ...prepare(randomUUID()) }, /no verified client certificate/);
  await refused({ ...prepare(randomUUID()) }, /no verified client certificate/);
  // Without a body there is no signature to check: the certificate still is.
  await refused({ client: env.other, method: 'GET', path: `/transfers/${randomUUID()}`, headers: dfspHeaders('transfers', 'payerfsp', 'payeefsp') }, /is not otherfsp/);

  // Without FSPIOP-Source a request claims no DFSP: refused for the missing header, as without mutual TLS.
  const { headers: withSource, body: anonymousBody } = prepare(randomUUID());
  refusedIds.push(JSON.parse(anonymousBody).transferId);
  const { 'fspiop-source': _source, ...withoutSource } = withSource;
  const anonymous = await send({ edge: env.tlsEdge, client: env.payer, headers: withoutSource, body: anonymousBody });
  assert.deepEqual([anonymous.status, anonymous.json.errorInformation.errorCode], [400, '3102'], JSON.stringify(anonymous.json));

  const rightful = randomUUID();
  assert.equal((await send({ edge: env.tlsEdge, client: env.payer, ...prepare(rightful) })).status, 202);
  await waitProduced(rightful);
  // The rightful prepare was accepted after every refused request, on the same edge.
  assert.deepEqual(env.produced.filter((id) => refusedIds.includes(id)), []);
});

test('probes and Prometheus reach /health and /metrics without a client certificate', async () => {
  assert.equal((await send({ edge: env.tlsEdge, method: 'GET', path: '/health', headers: {} })).status, 200);
  assert.equal((await send({ edge: env.tlsEdge, method: 'GET', path: '/metrics', headers: {} })).status, 200);
});

test('behind an ingress, the verified subject it passes must name FSPIOP-Source', async () => {
  const viaIngress = (subject, id) => send({
    edge: env.ingressEdge, secure: false, ...prepare(id), headers: { ...prepare(id).headers, ...(subject ? { 'x-verified-client-subject': subject } : {}) },
  });
  const impostor = randomUUID();
  const unverified = randomUUID();
  assert.equal((await viaIngress('CN=otherfsp,O=Scheme', impostor)).status, 400);
  assert.equal((await viaIngress(undefined, unverified)).status, 400);
  const rightful = randomUUID();
  assert.equal((await viaIngress('CN=payerfsp,O=Scheme', rightful)).status, 202);
  await waitProduced(rightful);
  assert.deepEqual(env.produced.filter((id) => id === impostor || id === unverified), []);
});

/** The subject of a certificate as OpenSSL prints it: `RFC2253` is nginx's $ssl_client_s_dn, `compat` its legacy form. */
function subjectOf(certificate, nameopt) {
  return execFileSync('openssl', ['x509', '-in', certificate.cert, '-noout', '-subject', '-nameopt', nameopt], { encoding: 'utf8' }).trim().replace(/^subject=\s*/, '');
}

test('behind an ingress, an O that spells another DFSP\'s CN names nobody but the certificate\'s own CN', async () => {
  const viaIngress = (subject, source, id) => send({
    edge: env.ingressEdge, secure: false, ...prepare(id, source), headers: { ...prepare(id, source).headers, 'x-verified-client-subject': subject },
  });
  const rfc4514 = subjectOf(env.mallory, 'RFC2253');
  assert.equal(rfc4514, 'CN=mallory,O=Evil\\,CN=victimfsp', 'the subject as nginx passes it, the comma escaped');
  const written = ['O=Evil\\,CN=victimfsp,CN=mallory', rfc4514, subjectOf(env.mallory, 'compat')];
  assert.equal(written[2], '/O=Evil,CN=victimfsp/CN=mallory');
  const impostors = [];
  for (const subject of written) {
    const impostor = randomUUID();
    impostors.push(impostor);
    const refused = await viaIngress(subject, 'victimfsp', impostor);
    assert.equal(refused.status, 400, `${subject}: ${JSON.stringify(refused.json)}`);
    assert.match(refused.json.errorInformation.errorDescription, /FSPIOP-Source victimfsp is not mallory/, subject);
    const own = randomUUID();
    assert.equal((await viaIngress(subject, 'mallory', own)).status, 202, `${subject}: mallory's own requests pass`);
    await waitProduced(own);
  }
  // A subject with two CNs names neither, in either form.
  for (const subject of [subjectOf(env.twoNames, 'RFC2253'), subjectOf(env.twoNames, 'compat')]) {
    for (const source of ['victimfsp', 'mallory']) {
      const id = randomUUID();
      impostors.push(id);
      const refused = await viaIngress(subject, source, id);
      assert.equal(refused.status, 400, `${subject} as ${source}`);
      assert.match(refused.json.errorInformation.errorDescription, /no verified client certificate names the calling DFSP/);
    }
  }
  assert.deepEqual(env.produced.filter((id) => impostors.includes(id)), []);
});

test('at the edge itself, the certificate\'s own CN counts and two CNs name nobody', async () => {
  const asVictim = await send({ edge: env.tlsEdge, client: env.mallory, ...prepare(randomUUID(), 'victimfsp') });
  assert.equal(asVictim.status, 400);
  assert.match(asVictim.json.errorInformation.errorDescription, /FSPIOP-Source victimfsp is not mallory/);
  assert.equal((await send({ edge: env.tlsEdge, client: env.mallory, ...prepare(randomUUID(), 'mallory') })).status, 202);
  for (const source of ['victimfsp', 'mallory']) {
    const refused = await send({ edge: env.tlsEdge, client: env.twoNames, ...prepare(randomUUID(), source) });
    assert.equal(refused.status, 400, source);
    assert.match(refused.json.errorInformation.errorDescription, /no verified client certificate names the calling DFSP/, source);
  }
});

test('a connection keeps its certificate\'s DFSP: another FSPIOP-Source on it is refused, and so is renegotiating', async () => {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, maxVersion: 'TLSv1.2' });
  try {
    const rightful = randomUUID();
    assert.equal((await send({ edge: env.tlsEdge, client: env.payer, agent, ...prepare(rightful) })).status, 202);
    const impostor = randomUUID();
    const onSameConnection = await send({ edge: env.tlsEdge, client: env.payer, agent, ...prepare(impostor, 'otherfsp') });
    assert.equal(onSameConnection.reusedSocket, true, 'the second request went over the first one\'s connection');
    assert.deepEqual([onSameConnection.status, onSameConnection.json.errorInformation.errorCode], [400, '3100']);
    assert.match(onSameConnection.json.errorInformation.errorDescription, /FSPIOP-Source otherfsp is not payerfsp/);

    const [socket] = Object.values(agent.freeSockets).flat();
    assert.ok(socket, 'the connection is idle in the agent');
    // The edge answers a renegotiation by closing the connection: it never completes.
    const outcome = await new Promise((resolve) => {
      socket.on('error', () => {});
      socket.on('close', () => resolve('closed'));
      const started = socket.renegotiate({ rejectUnauthorized: false }, (error) => resolve(error ? 'failed' : 'renegotiated'));
      if (!started) resolve('not started');
    });
    assert.equal(outcome, 'closed');
    // The edge goes on serving new connections.
    const later = randomUUID();
    assert.equal((await send({ edge: env.tlsEdge, client: env.payer, ...prepare(later) })).status, 202);
    await waitProduced(later);
    assert.deepEqual(env.produced.filter((id) => id === impostor), []);
  } finally {
    agent.destroy();
  }
});
