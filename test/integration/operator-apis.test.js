// The operator APIs (admin API, ALS admin API, built-in oracle) against the real servers:
// a bearer token on every call but /health and /metrics (401 without or with a wrong one,
// 403 for a read-only token that tries to change something), loopback-only binding by
// default, and a process that serves one refusing to start without its tokens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import os from 'node:os';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { adminHeaders, setUpHub } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { testConfig } from '../support/environment.js';
import { freePort } from '../../scripts/lib/ports.js';

const ROOT = new URL('../..', import.meta.url).pathname;
let sw;
let apis;

before(async () => {
  const oraclePort = await freePort();
  sw = await startSwitch({
    components: ['account-lookup-admin'],
    env: { ORACLE_PORT: String(oraclePort), ORACLE_BUILTIN_URL: `http://127.0.0.1:${oraclePort}` },
  });
  await setUpHub(sw.admin.request);
  apis = {
    admin: { url: sw.admin.baseUrl, read: '/participants', write: ['POST', '/participants', { name: 'authfsp', currency: 'USD' }] },
    alsAdmin: {
      url: `http://127.0.0.1:${sw.ports.get('account-lookup-admin-0')}`, read: '/oracles',
      write: ['POST', '/oracles', { oracleIdType: 'BUSINESS', endpoint: { value: 'http://127.0.0.1:9/oracle', endpointType: 'URL' } }],
    },
    oracle: {
      url: `http://127.0.0.1:${oraclePort}`, read: '/participants/MSISDN/27719990001',
      write: ['POST', '/participants/MSISDN/27719990001', { fspId: 'authfsp', currency: 'USD' }],
    },
  };
});

after(async () => { await sw?.stop(); });

async function call(url, method, path, { headers = {}, body } = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined, text };
}

function assertRefused(result, status, what) {
  assert.equal(result.status, status, `${what}: ${result.text}`);
  assert.equal(result.body.errorInformation.errorCode, '3000', what);
  assert.match(result.body.errorInformation.errorDescription, /^Generic client error - .*token/, what);
}

test('every operator API: 401 without a token and with a wrong one, on reads and writes alike', async () => {
  for (const [name, api] of Object.entries(apis)) {
    const [method, path, body] = api.write;
    const missing = await call(api.url, 'GET', api.read);
    assertRefused(missing, 401, `${name} GET without a token`);
    assert.match(missing.headers.get('www-authenticate'), /^Bearer/, `${name} challenges for a bearer token`);
    assertRefused(await call(api.url, method, path, { body }), 401, `${name} ${method} without a token`);
    const wrong = { authorization: 'Bearer not-the-operator-token-at-all' };
    assertRefused(await call(api.url, 'GET', api.read, { headers: wrong }), 401, `${name} GET with a wrong token`);
    assertRefused(await call(api.url, method, path, { headers: wrong, body }), 401, `${name} ${method} with a wrong token`);
    assertRefused(await call(api.url, 'GET', api.read, { headers: { authorization: 'Basic b3BlcmF0b3I6cw==' } }), 401, `${name} with another scheme`);
  }
});

test('every operator API: a read-only token reads but may not write (403); the read-write token does both', async () => {
  for (const [name, api] of Object.entries(apis)) {
    const [method, path, body] = api.write;
    const read = await call(api.url, 'GET', api.read, { headers: adminHeaders('readOnly') });
    assert.ok([200, 404].includes(read.status) && !read.body?.errorInformation?.errorCode?.startsWith('30'), `${name} read with the read-only token: ${read.text}`);
    assertRefused(await call(api.url, method, path, { headers: adminHeaders('readOnly'), body }), 403, `${name} ${method} with the read-only token`);
    const written = await call(api.url, method, path, { headers: adminHeaders('readWrite'), body });
    assert.ok([200, 201].includes(written.status), `${name} ${method} with the read-write token: ${written.status} ${written.text}`);
    assert.equal((await call(api.url, 'GET', api.read, { headers: adminHeaders('readWrite') })).status, 200, `${name} read with the read-write token`);
  }
});

test('/health and /metrics stay open on every operator API', async () => {
  for (const [name, api] of Object.entries(apis)) {
    assert.equal((await call(api.url, 'GET', '/health')).status, 200, `${name} /health`);
    assert.equal((await fetch(`${api.url}/metrics`)).status, 200, `${name} /metrics`);
  }
});

/** The machine's first non-loopback IPv4 address, if it has one. */
function nonLoopbackAddress() {
  return Object.values(os.networkInterfaces()).flat().find((entry) => entry.family === 'IPv4' && !entry.internal)?.address;
}

function connects(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 2000 });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

test('operator APIs bind to 127.0.0.1 by default: the machine\'s other address is refused', async (t) => {
  const address = nonLoopbackAddress();
  if (!address) {
    t.skip('this machine has no non-loopback IPv4 address to try');
    return;
  }
  for (const [name, api] of Object.entries(apis)) {
    const { port } = new URL(api.url);
    assert.equal(await connects('127.0.0.1', port), true, `${name} answers on loopback`);
    assert.equal(await connects(address, port), false, `${name} must not be reachable on ${address}`);
  }
});

test('a process serving an operator API stops at start-up without its tokens, unless OPERATOR_AUTH=off', async () => {
  const config = testConfig();
  const env = { PATH: process.env.PATH, DB_PASSWORD: config.db.password, DB_PORT: String(config.db.port), PORT: String(await freePort()), ORACLE_PORT: 'off' };
  for (const missing of ['OPERATOR_TOKEN_READ_WRITE', 'OPERATOR_TOKEN_READ_ONLY']) {
    const tokens = { OPERATOR_TOKEN_READ_WRITE: 'a-read-write-token-for-this-test', OPERATOR_TOKEN_READ_ONLY: 'a-read-only-token-for-this-test' };
    delete tokens[missing];
    const child = spawn(process.execPath, ['account-lookup/admin-main.js'], { cwd: ROOT, env: { ...env, ...tokens }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stderr.on('data', (chunk) => { output += chunk; });
    const [code] = await once(child, 'exit');
    assert.notEqual(code, 0, `it started without ${missing}`);
    assert.match(output, new RegExp(`${missing} is required`));
  }
  const lab = spawn(process.execPath, ['account-lookup/admin-main.js'], { cwd: ROOT, env: { ...env, OPERATOR_AUTH: 'off', DB_NAME: sw.admin.databaseName }, stdio: 'ignore' });
  try {
    const url = `http://127.0.0.1:${env.PORT}`;
    let answer;
    for (let attempt = 0; attempt < 100 && !answer; attempt += 1) {
      answer = await call(url, 'GET', '/oracles').catch(() => undefined);
      if (!answer) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(answer?.status, 200, 'with OPERATOR_AUTH=off (a lab) no token is needed');
  } finally {
    lab.kill('SIGTERM');
    await once(lab, 'exit');
  }
});
