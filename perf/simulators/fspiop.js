// Cheap FSPIOP plumbing for the simulators: bodies, keep-alive HTTP clients (one for plain
// HTTP, one per DFSP for edges that ask for its client certificate), and the DFSPs' signatures.
import http from 'node:http';
import https from 'node:https';
import { privateKeyFromPem, signFspiopMessage } from '../../platform/fspiop/jws.js';
import { readDfspPrivateKey } from '../../tools/lib/jws-key-files.js';
import { ensureClientCertificate } from '../../scripts/lib/scheme-certs.js';

// Idle keep-alive sockets are dropped after 4 s, before the servers' 5 s keepAliveTimeout
// (Node's default) closes them under a request.
export const AGENT_OPTIONS = Object.freeze({ keepAlive: true, maxSockets: 512, timeout: 4_000 });
const plainAgent = new http.Agent(AGENT_OPTIONS);
const tlsAgents = new Map();

/**
 * The agent DFSP `name` calls `url` with: over HTTPS its own, presenting its client certificate
 * from the scheme's CA in `config.tlsDir` (perf/provision.js makes it), so its connections are
 * its own and the edge knows it by them (mutual TLS).
 */
function agentFor(config, name, url) {
  if (!url.startsWith('https:')) return plainAgent;
  if (!tlsAgents.has(name)) {
    if (!config.tlsDir) throw new Error(`${url} is HTTPS: SCHEME_TLS_DIR must name the scheme's certificates`);
    tlsAgents.set(name, new https.Agent({ ...AGENT_OPTIONS, ...ensureClientCertificate(config.tlsDir, name).tls }));
  }
  return tlsAgents.get(name);
}

/**
 * Sends a request; resolves to `{ status, text, resentOnReset }`, or `{ status: 0, text: error,
 * resentOnReset }` on a network error. A request on a reused keep-alive socket that was reset
 * is sent once more (Node's advice; FSPIOP requests are idempotent: a duplicate is recognised
 * by its hash). The reset may have come after the server took the request, so the copy sent
 * again may be a duplicate at the switch: `resentOnReset` says whether it was sent, for the
 * payers' count of duplicates that the validity gate allows for.
 */
export function send(url, method, requestHeaders, body, agent = plainAgent, resentOnReset = false) {
  return new Promise((resolve) => {
    const request = (agent instanceof https.Agent ? https : http).request(url, { method, agent, headers: requestHeaders }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode, text, resentOnReset }));
    });
    request.on('error', (error) => {
      if (!resentOnReset && request.reusedSocket && (error.code === 'ECONNRESET' || error.message === 'socket hang up')) {
        resolve(send(url, method, requestHeaders, body, agent, true));
      } else resolve({ status: 0, text: error.message, resentOnReset });
    });
    request.end(body);
  });
}

// A DFSP's answer that the switch did not take (the connection refused or cut off before an
// answer, or 503: not stored) is sent again, a second apart, up to ANSWER_ATTEMPTS times, as a
// DFSP's callback client does: an edge pod replaced in a rolling upgrade may refuse it, and an
// answer lost there leaves its requester waiting for what was given. Repeating an answer is
// harmless: the switch recognises the same answer again (handlers/README.md, quoting/README.md).
const ANSWER_ATTEMPTS = 15;
const ANSWER_RESEND_INTERVAL_MS = 1_000;

/** sendAs for an answer (PUT): sent again while the switch has not taken it. */
export async function answerAs(config, name, url, method, requestHeaders, body) {
  for (let attempt = 1; ; attempt += 1) {
    const sent = await sendAs(config, name, url, method, requestHeaders, body);
    if (![0, 503].includes(sent.status) || attempt === ANSWER_ATTEMPTS) return sent;
    await new Promise((resolve) => setTimeout(resolve, ANSWER_RESEND_INTERVAL_MS));
  }
}

/** Reads a request body as text. */
export function readBody(request) {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => { text += chunk; });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

export function reply(response, status, body) {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, text ? { 'content-type': 'application/json' } : {}).end(text);
}

// Parsed once per DFSP and process: parsing a PEM key costs more than signing with it.
const privateKeys = new Map();

function privateKeyOf(keysDirectory, name) {
  if (!privateKeys.has(name)) {
    const pem = readDfspPrivateKey(keysDirectory, name);
    if (!pem) throw new Error(`no JWS key for ${name} in ${keysDirectory} (perf/provision.js makes it)`);
    privateKeys.set(name, privateKeyFromPem(pem));
  }
  return privateKeys.get(name);
}

/**
 * Sends a request as DFSP `name`, signed with its key over exactly the text sent (the
 * FSPIOP-URI is the URL's path): the switch requires it of a body, and a request without one
 * is signed over the empty payload so that its sender is proven too (its rate limit is its
 * own DFSP's, not its address's). Over HTTPS it presents the DFSP's client certificate.
 */
export async function sendAs(config, name, url, method, requestHeaders, body) {
  const agent = agentFor(config, name, url);
  if (!config.sign) return send(url, method, requestHeaders, body, agent);
  const { pathname, search } = new URL(url);
  const signature = await signFspiopMessage({
    privateKey: privateKeyOf(config.keysDirectory, name), method, uri: `${pathname}${search}`, headers: requestHeaders, body,
  });
  return send(url, method, { ...requestHeaders, ...signature }, body, agent);
}
