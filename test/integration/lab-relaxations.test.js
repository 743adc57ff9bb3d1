// The lab relaxations the README documents start from a clean checkout: with a RUN_DIR that
// holds nothing (as after `make clean`), scripts/env.sh sourced the way `make up` sources it,
// and the hub's key step of scripts/up.sh run first, the processes that read these settings
// become healthy and behave relaxed. The relaxations: JWS off with a hub that signs nothing
// (`JWS_VERIFICATION=off JWS_HUB_SIGNING_KEY_PATH=`, the posture README.md and
// perf/RESULTS.md measure without JWS in), operator authentication off, client identity off,
// no rate limit, and callback URLs on link-local addresses.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { topicDefinitions } from '../../platform/kafka/topics.js';
import { adminClient } from '../../scripts/lib/onboarding.js';
import { operatorHeaders } from '../../scripts/lib/operator-auth.js';
import { freePort } from '../../scripts/lib/ports.js';
import { tlsDispatcher } from '../../scripts/lib/fspiop-headers.js';
import { ensureClientCertificate } from '../../scripts/lib/scheme-certs.js';
import { setUpHub } from '../support/admin-api.js';
import { createTestDatabase, createTestTopics, operatorTokens, testConfig, uniqueSuffix } from '../support/environment.js';
import { waitHealthy } from '../support/switch.js';
import { fspiopHeaders, quoteIlp } from '../support/test-dfsp.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const JWS_OFF = { JWS_VERIFICATION: 'off', JWS_HUB_SIGNING_KEY_PATH: '' };
const EVERY_RELAXATION = {
  ...JWS_OFF, OPERATOR_AUTH: 'off', CLIENT_IDENTITY: 'off', RATE_LIMIT_PER_SECOND: 'off', CALLBACK_URL_ALLOW_LINK_LOCAL: 'true',
  // A burst of one would refuse the second of two requests at once if any limit were left.
  RATE_LIMIT_BURST: '1',
};

const config = testConfig();
let database;
let prefix;
const running = [];
const runDirs = [];

before(async () => {
  database = await createTestDatabase('fspiop_lab');
  prefix = await createTestTopics(() => createAdminClient(config.kafka));
});

after(async () => {
  await stopAll();
  if (prefix) {
    const client = createAdminClient(config.kafka);
    try {
      await Promise.all(topicDefinitions(prefix).map(({ name }) => deleteTopic(client, name)));
    } finally {
      client.disconnect();
    }
  }
  await database?.drop();
  for (const directory of runDirs) rmSync(directory, { recursive: true, force: true });
});

/**
 * A clean checkout's environment: nothing of this test process's own (which sourced env.sh
 * for the repository's .run/), only where the shared MariaDB and Kafka are, this file's
 * database and topics, an empty RUN_DIR, and the posture under test.
 */
function labEnvironment(posture) {
  const runDir = mkdtempSync(join(tmpdir(), 'fspiop-lab-run-'));
  runDirs.push(runDir);
  const tokens = operatorTokens();
  return {
    runDir,
    env: {
      PATH: process.env.PATH, HOME: process.env.HOME, RUN_DIR: runDir, LOG_LEVEL: 'warn',
      DB_HOST: config.db.host, DB_PORT: String(config.db.port), DB_USER: config.db.user, DB_PASSWORD: config.db.password, DB_NAME: database.name,
      KAFKA_BROKERS: config.kafka.brokers, KAFKA_TOPIC_PREFIX: prefix, KAFKA_GROUP_PREFIX: `test-${uniqueSuffix()}`,
      OPERATOR_TOKEN_READ_WRITE: tokens.readWrite, OPERATOR_TOKEN_READ_ONLY: tokens.readOnly,
      ...posture,
    },
  };
}

/** Runs `node <entry>` after sourcing scripts/env.sh in `env`, as scripts/services.sh does. */
function nodeAfterEnvSh(entry, env) {
  const child = spawn('bash', ['-c', 'source scripts/env.sh && exec node "$1"', 'lab', entry], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  child.stdout.on('data', (chunk) => { child.output += chunk; });
  child.stderr.on('data', (chunk) => { child.output += chunk; });
  return child;
}

/**
 * What scripts/up.sh makes before it starts the services: the hub's keys (for a hub that signs
 * nothing, none) and the local scheme's certificates (with mutual TLS, the default).
 */
async function makeWhatUpMakes(env, runDir) {
  const keys = nodeAfterEnvSh('tools/hub-keys.js', env);
  const [keysCode] = await once(keys, 'exit');
  assert.equal(keysCode, 0, keys.output);
  assert.match(keys.output, /the hub signs nothing/);
  const certificates = nodeAfterEnvSh('scripts/scheme-ca.js', env);
  const [certificatesCode] = await once(certificates, 'exit');
  assert.equal(certificatesCode, 0, certificates.output);
  assert.equal(readdirSync(runDir).includes('jws'), false, 'no key was made');
}

/** Starts `entry`; `tls` (a client's `{ ca, cert, key }`) when it serves HTTPS. */
async function startService(entry, env, tls) {
  const port = await freePort();
  const child = nodeAfterEnvSh(entry, { ...env, PORT: String(port) });
  running.push(child);
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  await waitHealthy(url, child, 30_000, tls);
  return url;
}

/** An unsigned prepare from a DFSP the switch need not know (the edge only validates and produces). */
async function unsignedPrepare(apiUrl, tls) {
  const transferId = randomUUID();
  const expiration = new Date(Date.now() + 60_000).toISOString();
  const ilp = quoteIlp({ secret: 'lab', transferId, amount: '1', currency: 'USD', payeeAddress: 'g.labpayee.msisdn.1', expiration });
  const body = { transferId, payerFsp: 'labpayer', payeeFsp: 'labpayee', amount: { amount: '1', currency: 'USD' }, ...ilp, expiration };
  const response = await fetch(`${apiUrl}/transfers`, {
    method: 'POST', headers: fspiopHeaders('labpayer', 'labpayee'), body: JSON.stringify(body), ...(tls ? { dispatcher: tlsDispatcher(tls) } : {}),
  });
  return { status: response.status, text: await response.text() };
}

async function stopAll() {
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
}

test('JWS off with a hub that signs nothing (the documented measuring posture) starts on an empty RUN_DIR; the admin API publishes no hub key', { timeout: 120_000 }, async () => {
  const { runDir, env } = labEnvironment(JWS_OFF);
  await makeWhatUpMakes(env, runDir);
  const adminUrl = await startService('ledger/admin-api/main.js', env);
  const services = { ...env, ADMIN_API_URL: adminUrl };
  // Mutual TLS stays on, as by default: the payer presents a certificate from the scheme's CA up.sh made.
  const payerTls = ensureClientCertificate(join(runDir, 'tls'), 'labpayer').tls;
  const apiUrl = await startService('api-adapter/main.js', services, payerTls);
  await startService('handlers/notification/main.js', services);
  try {
    const hubKeys = await fetch(`${adminUrl}/participants/Hub/jwsKeys`, { headers: operatorHeaders(operatorTokens().readOnly) });
    assert.equal(hubKeys.status, 200);
    assert.deepEqual(await hubKeys.json(), [], 'no hub key is published');
    const accepted = await unsignedPrepare(apiUrl, payerTls);
    assert.equal(accepted.status, 202, `an unsigned prepare is accepted with JWS off: ${accepted.text}`);
    assert.equal((await fetch(`${adminUrl}/participants`)).status, 401, 'operator authentication is still required');
  } finally {
    await stopAll();
  }
});

test('every documented relaxation at once starts on an empty RUN_DIR and is relaxed: no token, no signature, no limit, link-local callbacks', { timeout: 120_000 }, async () => {
  const { runDir, env } = labEnvironment(EVERY_RELAXATION);
  await makeWhatUpMakes(env, runDir);
  const adminUrl = await startService('ledger/admin-api/main.js', env);
  const services = { ...env, ADMIN_API_URL: adminUrl };
  const apiUrl = await startService('api-adapter/main.js', services);
  await startService('handlers/notification/main.js', services);
  try {
    const request = adminClient(adminUrl, {});
    await setUpHub(request);
    assert.equal((await request('POST', '/participants', { name: 'labfsp', currency: 'USD' })).status, 201, 'an operator call without a token');
    const linkLocal = await request('POST', '/participants/labfsp/endpoints', { type: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', value: 'http://169.254.10.10:8444/transfers' });
    assert.equal(linkLocal.status, 201, `a link-local callback URL is accepted: ${linkLocal.text}`);
    const [audit] = (await request('GET', '/audit?limit=1')).body;
    assert.equal(audit.actor, 'unauthenticated (OPERATOR_AUTH=off)');
    const answers = await Promise.all([0, 1, 2].map(() => unsignedPrepare(apiUrl)));
    assert.deepEqual(answers.map((answer) => answer.status), [202, 202, 202], answers.map((answer) => answer.text).join('\n'));
  } finally {
    await stopAll();
  }
});
