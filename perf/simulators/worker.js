// One simulator process (main.js starts SIM_WORKERS of them): the callback endpoints of the
// DFSPs registered on its port, SIM_PORT + index (path /fsp/<dfsp>/...), and its payer bridge
// on BRIDGE_PORT + index. perf/provision.js registers each DFSP on the port of the process
// whose bridge k6 calls for that DFSP as payer, so a payer's callbacks always arrive here; the
// payee side is stateless and answers whatever reaches this port.
import http from 'node:http';
import { createCorrelator } from './correlator.js';
import { readBody } from './fspiop.js';
import { answerAsPayee } from './payee.js';
import { answerAsFxp } from './fxp.js';
import { answerBulkAsPayee } from './bulk.js';
import { handleBridge } from './bridge.js';
import { answerAsRequestToPay } from './request-to-pay.js';
import { readConfig } from './config.js';
import { createFaultSwitch } from './faults.js';
import { answerAsIsoPayee, isIsoCall, readCall } from './iso-dfsp.js';
import { preloadIsoCodec } from './iso20022.js';

const config = readConfig(process.env);
if (config.isoDfsps.size > 0) preloadIsoCodec();
const worker = Number(process.env.SIM_WORKER_INDEX ?? 0);
const correlator = createCorrelator({ maxWaiting: config.maxWaiting });
const faults = createFaultSwitch();
// What the payers did beyond one request per phase (bridge.js), for the validity gate; the
// conversion payments completed (the warm-up's too, which k6 does not tell apart), and the
// switch's PATCHes to the FXPs by conversionState (a conversion's end, told to its FXP); the
// requests to pay its merchants were told were paid, and those of them approved by OTP.
const counters = {
  resent: 0, asked: 0, failedTransfers: [], conversionsCompleted: 0, fxPatches: {}, requestsToPayCompleted: 0, requestsToPayWithOtpCompleted: 0,
  // Payments with an ISO 20022 DFSP on either side, completed, by type pair ('ISO20022→FSPIOP':
  // n, iso-dfsp.js), and the ISO 20022 calls that could not be read into FSPIOP.
  isoPayments: {}, isoUnreadable: 0,
};
const context = { config, worker, correlator, counters };
// Callbacks that settled nothing: late ones (their waiter had timed out), those addressed to
// a payee (a PATCH's answer, say), or a registration that points at the wrong process.
let unmatched = 0;

// What a callback's outcome must say for its request to have succeeded, by resource: a
// payment committed, a conversion reserved (or committed, when the FXP's answer was a GET's).
const SUCCEEDED = Object.freeze({ transfers: (body) => body.transferState === 'COMMITTED', fxTransfers: (body) => ['RESERVED', 'COMMITTED'].includes(body.conversionState) });

/** The id a callback is correlated by: the party, the services path (FXP/USD/EUR), or the resource's id. */
function callbackId(resource, parts, isError) {
  if (resource === 'parties') return `${parts[1]}/${parts[2]}`;
  if (resource === 'services') return parts.slice(1, isError ? -1 : undefined).join('/');
  return parts[1];
}

/** A PUT callback to payer `name` with its body (parsed, in FSPIOP): its correlation key and outcome. */
function callbackOf(name, parts, body) {
  const isError = parts.at(-1) === 'error';
  const resource = parts[0];
  const id = callbackId(resource, parts, isError);
  // The DFSP the callback is addressed to is part of the key: a callback to the payee of
  // a transfer (a 3106 for its repeated fulfil, say) must never settle what its payer waits for.
  const key = `${resource}:${name}:${id}`;
  const failed = isError || (SUCCEEDED[resource] ? !SUCCEEDED[resource](body) : false);
  return { key, outcome: failed ? { error: body.errorInformation?.errorCode ?? body.transferState ?? body.conversionState, body } : { body } };
}

function onCallback(name, parts, body, isoBody) {
  const { key, outcome } = callbackOf(name, parts, body ?? {});
  // An ISO 20022 payer's transfer needs the ISO 20022 answer to its quote (iso-dfsp.js).
  if (isoBody !== undefined && !outcome.error) outcome.isoBody = isoBody;
  if (!correlator.settle(key, outcome)) unmatched += 1;
}

function countPatch(body) {
  const state = body.conversionState ?? 'unknown';
  counters.fxPatches[state] = (counters.fxPatches[state] ?? 0) + 1;
}

// A PATCH /transfers/{ID} tells a merchant how the transfer it answered RESERVED ended
// (request-to-pay.js), as a callback does; any other PATCH is an FXP's conversion's end.
function onPatch(name, parts, body) {
  if (parts[0] === 'transfers') onCallback(name, parts, body);
  else countPatch(body);
}

/**
 * A call on the ISO 20022 side (iso-dfsp.js isIsoCall): read into FSPIOP, then settled as a
 * callback, or answered as an ISO 20022 payee. A call that cannot be read is counted.
 */
async function onIsoCall(name, method, parts, text, requestHeaders) {
  let read;
  try {
    read = await readCall(method, parts, requestHeaders, text);
  } catch (error) {
    counters.isoUnreadable += 1;
    if (counters.isoUnreadable <= 3) process.stderr.write(`${method} /${parts.join('/')} to ${name} not readable as ISO 20022: ${error.message}\n`);
    return;
  }
  if (method === 'PUT') onCallback(name, parts, read.body, read.isoBody);
  else if (method === 'PATCH') onPatch(name, parts, read.body);
  else await answerAsIsoPayee(config, name, method, parts, read, requestHeaders);
}

async function onDfspRequest(request, response) {
  const text = await readBody(request);
  const [, name, ...parts] = request.url.split('?')[0].split('/').filter(Boolean);
  // Only the payee role fails: callbacks to the payers still arrive, so what the payers
  // were told stays measurable while a payee is broken.
  if (request.method !== 'PUT' && faults.intercept(response)) return;
  // A PATCH (the switch telling an FXP how its conversion ended) is answered 200, as a PUT is.
  response.writeHead(['PUT', 'PATCH'].includes(request.method) ? 200 : 202).end();
  if (config.isoDfsps.size > 0 && isIsoCall(config, name, parts, request.headers)) await onIsoCall(name, request.method, parts, text, request.headers);
  else if (request.method === 'PUT') onCallback(name, parts, text ? JSON.parse(text) : undefined);
  else if (request.method === 'PATCH') onPatch(name, parts, JSON.parse(text));
  else {
    answerAsRequestToPay(context, name, request.method, parts, text, request.headers)
      ?? answerAsPayee(config, name, request.method, parts, text, request.headers) ?? answerAsFxp(config, name, request.method, parts, text, request.headers)
      ?? answerBulkAsPayee(config, name, request.method, parts, text, request.headers);
  }
}

/** POST /fault {mode, forMs}: this process's payee fault switch (faults.js); GET reads it. */
async function setFault(request, response) {
  try {
    if (request.method === 'POST') {
      const { mode, forMs } = JSON.parse(await readBody(request));
      faults.set(mode, forMs);
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(faults.state()));
  } catch (error) {
    response.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: error.message }));
  }
}

const dfspServer = http.createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
  onDfspRequest(request, response).catch(() => { if (!response.headersSent) response.writeHead(400).end(); });
});
const bridgeServer = http.createServer({ keepAliveTimeout: 65_000 }, async (request, response) => {
  if (request.url === '/fault') {
    await setFault(request, response);
    return;
  }
  if (request.url === '/stats') {
    response.end(JSON.stringify({ worker, waiting: correlator.size, unmatched, ...counters, rss: process.memoryUsage().rss }));
    return;
  }
  await handleBridge(context, request, response, await readBody(request));
});
// The IPC channel to main.js closes when it dies, however it died: no worker outlives it
// holding its ports.
process.on('disconnect', () => process.exit(0));
// Exiting on SIGTERM rather than being killed by it lets Node write what it was asked to at
// exit, such as a CPU profile (SIM_NODE_ARGS in perf/run.js).
process.on('SIGTERM', () => process.exit(0));
dfspServer.listen({ port: config.simPort + worker, host: config.host, exclusive: true });
bridgeServer.listen({ port: config.bridgePort + worker, host: config.host, exclusive: true });
