// A real Mojaloop DFSP for tests: @mojaloop/sdk-scheme-adapter@18.0.2 (installed by
// scripts/deps.sh into test/sdk-scheme-adapter/node_modules, apart from the switch's own
// tree) as a child process, with its own private redis-server on a free port (the SDK cannot
// run without Redis) and a tiny DFSP backend ("core connector") it calls as a payee.
//
// The adapter's inbound (FSPIOP) server validates every request and callback it receives
// against the FSPIOP spec, so it checks what the switch forwards and generates. Between the
// switch and that server sits a transparent recorder: it forwards every call byte for byte
// and keeps the adapter's answer, so a test can say exactly which message the adapter
// refused and why (its header checks answer before it logs anything).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { freePort } from '../../scripts/lib/ports.js';
import { HUB_NAME, jwsKeyPair, publicKeysDirectory } from './jws-keys.js';
import { testSchemeDir } from './scheme-tls.js';
import { ensureClientCertificate } from '../../scripts/lib/scheme-certs.js';

export const SDK_ADAPTER_DIR = new URL('../sdk-scheme-adapter/', import.meta.url).pathname;
export const SDK_ADAPTER_MAIN = `${SDK_ADAPTER_DIR}node_modules/@mojaloop/sdk-scheme-adapter/src/index.js`;
const RESOURCE_VERSIONS = 'transfers=1.1,participants=1.1,quotes=1.1,parties=1.1';

/** Why the adapter cannot run here (undefined when it can): `make deps` installs both. */
export function sdkAdapterMissing() {
  if (!existsSync(SDK_ADAPTER_MAIN)) return `${SDK_ADAPTER_MAIN} is missing (run make deps)`;
  if (spawnSync('redis-server', ['--version']).error) return 'redis-server is not installed (run make deps)';
  return undefined;
}

function captureOutput(child) {
  child.output = '';
  child.stdout.on('data', (chunk) => { child.output += chunk; });
  child.stderr.on('data', (chunk) => { child.output += chunk; });
}

async function stopChild(child, timeoutMs = 5000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const forced = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  await exited;
  clearTimeout(forced);
}

async function waitFor(check, child, what, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${what}: process exited (${child.exitCode ?? child.signalCode}):\n${child.output.slice(-3000)}`);
    }
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not start within ${timeoutMs} ms:\n${child.output.slice(-3000)}`);
}

function portOpen(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => { socket.end(); resolve(true); });
    socket.on('error', () => resolve(false));
  });
}

/** A private redis-server on a free port: no persistence, gone when stopped. */
export async function startRedis() {
  const port = await freePort();
  const child = spawn('redis-server', [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp', '--loglevel', 'warning',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  captureOutput(child);
  await waitFor(() => portOpen(port), child, `redis-server on ${port}`);
  return { port, url: `redis://127.0.0.1:${port}`, child, stop: () => stopChild(child) };
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function parseJson(buffer) {
  const text = buffer.toString('utf8');
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

async function listen(server) {
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  return server.address().port;
}

function closeServer(server) {
  return new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); });
}

/**
 * The DFSP's own system, as the SDK's backend API describes it (§4.3 of the reference):
 * GET /parties/{type}/{id}, POST /quoterequests, POST /transfers, PUT /transfers/{id}.
 * `parties` maps an MSISDN to the party it answers; any other id is 404.
 */
export async function startBackend({ name, parties = {} }) {
  const calls = [];
  const answer = (method, path, body) => {
    const party = /^\/parties\/([^/]+)\/([^/]+)$/.exec(path);
    if (method === 'GET' && party) {
      const known = parties[decodeURIComponent(party[2])];
      return known ? [200, { idType: party[1], idValue: decodeURIComponent(party[2]), ...known }] : [404, { statusCode: '3204', message: 'Party not found' }];
    }
    if (method === 'POST' && path === '/quoterequests') {
      // No fees: the payee receives what the payer sends.
      return [200, {
        quoteId: body.quoteId, transactionId: body.transactionId, transferAmount: body.amount, transferAmountCurrency: body.currency,
        payeeReceiveAmount: body.amount, payeeReceiveAmountCurrency: body.currency,
        expiration: new Date(Date.now() + 60000).toISOString(),
      }];
    }
    if (method === 'POST' && path === '/transfers') return [200, { homeTransactionId: `${name}-${body.transferId}` }];
    if (method === 'PUT' && /^\/transfers\/[^/]+$/.test(path)) return [200, {}];
    return [404, { statusCode: '3002', message: `${method} ${path} is not a backend route` }];
  };
  const server = http.createServer(async (request, response) => {
    const body = parseJson(await readBody(request));
    const [status, reply] = answer(request.method, request.url, body);
    calls.push({ method: request.method, path: request.url, body, status });
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(reply));
  });
  const port = await listen(server);
  return { name, port, endpoint: `127.0.0.1:${port}`, calls, close: () => closeServer(server) };
}

/**
 * Forwards every request to 127.0.0.1:targetPort unchanged and records it with the answer:
 * { method, path, headers, body, status, response } in `exchanges`.
 */
async function startRecorder(targetPort) {
  const exchanges = [];
  const server = http.createServer(async (request, response) => {
    const raw = await readBody(request);
    const exchange = { method: request.method, path: request.url, headers: request.headers, body: parseJson(raw), at: Date.now() };
    exchanges.push(exchange);
    const upstream = http.request({ host: '127.0.0.1', port: targetPort, method: request.method, path: request.url, headers: request.headers }, async (answer) => {
      const answerRaw = await readBody(answer);
      exchange.status = answer.statusCode;
      exchange.response = parseJson(answerRaw);
      response.writeHead(answer.statusCode, answer.headers).end(answerRaw);
    });
    upstream.on('error', (error) => {
      exchange.status = 502;
      exchange.response = String(error);
      response.writeHead(502).end();
    });
    upstream.end(raw);
  });
  const port = await listen(server);
  return { port, exchanges, close: () => closeServer(server) };
}

/**
 * The adapter's JWS settings, both ways on: it signs everything it sends with the test run's
 * key of its name (PUT /parties too) and validates everything it receives, PUT /parties
 * included, with the hub's and `peers`' public keys from a directory of `<fsp>.pem` files.
 */
function jwsEnv(dfspId, peers) {
  const directory = publicKeysDirectory([HUB_NAME, ...peers]);
  const signingKeyPath = join(directory, `${dfspId}.key`);
  writeFileSync(signingKeyPath, jwsKeyPair(dfspId).privateKeyPem, { mode: 0o600 });
  return {
    JWS_SIGN: 'true', JWS_SIGN_PUT_PARTIES: 'true', JWS_SIGNING_KEY_PATH: signingKeyPath,
    VALIDATE_INBOUND_JWS: 'true', VALIDATE_INBOUND_PUT_PARTIES_JWS: 'true', JWS_VERIFICATION_KEYS_DIRECTORY: directory,
  };
}

/**
 * The adapter's endpoints of the switch (`host:port`, as it takes them), and over HTTPS its
 * outbound mutual TLS: the scheme's CA and the DFSP's client certificate from the test run's
 * CA (scheme-tls.js), which it presents on every request to the switch.
 */
function switchEnv(dfspId, { accountLookup, quoting, transfers }) {
  const hostOf = (url) => new URL(url).host;
  const endpoints = {
    PEER_ENDPOINT: hostOf(transfers), ALS_ENDPOINT: hostOf(accountLookup), QUOTES_ENDPOINT: hostOf(quoting), TRANSFERS_ENDPOINT: hostOf(transfers),
  };
  if (!transfers.startsWith('https:')) return endpoints;
  const { caPath, certPath, keyPath } = ensureClientCertificate(testSchemeDir(), dfspId);
  return { ...endpoints, OUTBOUND_MUTUAL_TLS_ENABLED: 'true', OUT_CA_CERT_PATH: caPath, OUT_CLIENT_CERT_PATH: certPath, OUT_CLIENT_KEY_PATH: keyPath };
}

/**
 * Starts one adapter instance for DFSP `dfspId`, with its Redis and backend. `peers` are
 * the DFSPs whose signatures it must verify besides the hub's.
 * `switchUrls`: { accountLookup, quoting, transfers } (the base URLs of the account-lookup,
 * quoting and transfers edges of the switch under test; https: for mutual TLS). Returns the
 * adapter with:
 *   inboundUrl   where the switch must call it (the recorder in front of the FSPIOP server)
 *   outboundUrl  its simplified DFSP API (POST /transfers, POST /accounts, …)
 *   ports        { inbound, outbound, metrics, recorder, redis, backend }
 *   exchanges    what the switch sent to the adapter and what the adapter answered
 *   refused()    the exchanges the adapter did not accept (status >= 400)
 */
export async function startSdkAdapter({ dfspId, switchUrls, peers = [], parties = {}, ilpSecret = `${dfspId}-ilp-secret`, env: extraEnv = {} }) {
  const redis = await startRedis();
  const backend = await startBackend({ name: dfspId, parties });
  const [inbound, outbound, metrics] = [await freePort(), await freePort(), await freePort()];
  const recorder = await startRecorder(inbound);
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DFSP_ID: dfspId,
    INBOUND_LISTEN_PORT: String(inbound),
    OUTBOUND_LISTEN_PORT: String(outbound),
    METRICS_SERVER_LISTEN_PORT: String(metrics),
    ...switchEnv(dfspId, switchUrls),
    BACKEND_ENDPOINT: backend.endpoint,
    CACHE_URL: redis.url,
    ...jwsEnv(dfspId, peers),
    AUTO_ACCEPT_PARTY: 'true',
    AUTO_ACCEPT_QUOTES: 'true',
    CHECK_ILP: 'true',
    ILP_SECRET: ilpSecret,
    RESOURCE_VERSIONS,
    REQUEST_PROCESSING_TIMEOUT_SECONDS: '15',
    LOG_INDENT: '0',
    ...extraEnv,
  };
  // cwd: a folder without a .env file (the SDK reads one with dotenv).
  const child = spawn(process.execPath, [SDK_ADAPTER_MAIN], { cwd: SDK_ADAPTER_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
  captureOutput(child);
  const adapter = {
    dfspId, backend, redis, child, exchanges: recorder.exchanges,
    inboundUrl: `http://127.0.0.1:${recorder.port}`,
    outboundUrl: `http://127.0.0.1:${outbound}`,
    ports: { inbound, outbound, metrics, recorder: recorder.port, redis: redis.port, backend: backend.port },
    refused: () => recorder.exchanges.filter((exchange) => exchange.status >= 400),
    async stop() {
      await stopChild(child);
      await Promise.all([recorder.close(), backend.close(), redis.stop()]);
    },
  };
  try {
    // The outbound API answers GET / with 200; the inbound one has no such route (it would
    // log a validation failure), so only its port is checked.
    await waitFor(async () => (await fetch(`${adapter.outboundUrl}/`)).status === 200, child, `sdk-scheme-adapter ${dfspId} outbound on ${outbound}`);
    await waitFor(() => portOpen(inbound), child, `sdk-scheme-adapter ${dfspId} inbound on ${inbound}`);
  } catch (error) {
    await adapter.stop();
    throw error;
  }
  return adapter;
}

/** The adapter's outbound API: one JSON call, answer parsed. */
export async function outbound(adapter, method, path, body) {
  const response = await fetch(`${adapter.outboundUrl}${path}`, {
    method, headers: { 'content-type': 'application/json', accept: 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: parseJson(Buffer.from(text)), text };
}

/** The schema errors the adapter logged ("Validation result"): path, keyword, message. */
export function validationResults(adapter) {
  return adapter.child.output.split('\n').filter((line) => line.includes('"msg":"Validation result"')).map((line) => {
    try {
      const { ctx } = JSON.parse(line);
      return { path: ctx.request?.path, method: ctx.request?.method, errors: ctx.validationResult };
    } catch {
      return { line };
    }
  });
}

// The headers the adapter's header check reads (its 3101 "Malformed syntax" names none).
const fspiopHeadersOf = ({ headers }) => Object.fromEntries(Object.entries(headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)));

/** One entry per refused exchange: what the switch sent, the adapter's answer and schema errors. */
export function describeRefusals(adapter) {
  const refused = adapter.refused();
  if (refused.length === 0) return '';
  return [...refused.map((exchange) => `${adapter.dfspId} refused ${exchange.method} ${exchange.path} `
    + `HTTP ${exchange.status} ${JSON.stringify(exchange.response)}\n  headers sent: ${JSON.stringify(fspiopHeadersOf(exchange))}`
    + `\n  body sent: ${JSON.stringify(exchange.body)}`),
  ...validationResults(adapter).map((result) => `  ${adapter.dfspId} schema errors: ${JSON.stringify(result)}`)].join('\n');
}
