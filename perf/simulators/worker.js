// One simulator process: every DFSP's callback endpoint (a port shared by all processes via
// node:cluster, path /fsp/<dfsp>/...) and this process's payer bridge (its own port,
// BRIDGE_PORT + index). Callbacks for the payer side are settled here when this process owns
// them, or relayed through the primary to the owner.
import http from 'node:http';
import cluster from 'node:cluster';
import { createCorrelator, ownerOf } from './correlator.js';
import { readBody } from './fspiop.js';
import { answerAsPayee } from './payee.js';
import { handleBridge } from './bridge.js';
import { readConfig } from './config.js';
import { createFaultSwitch } from './faults.js';

const config = readConfig(process.env);
const worker = Number(process.env.SIM_WORKER_INDEX ?? 0);
const correlator = createCorrelator({ maxWaiting: config.maxWaiting });
const faults = createFaultSwitch();
// What the payers did beyond one request per phase (bridge.js), for the validity gate.
const counters = { resent: 0, asked: 0, failedTransfers: [] };
const context = { config, worker, correlator, counters };
let relayed = 0;

/** A PUT callback to payer `name`: its correlation key, owner and outcome. */
function callbackOf(name, parts, text) {
  const isError = parts.at(-1) === 'error';
  const resource = parts[0];
  const id = resource === 'parties' ? `${parts[1]}/${parts[2]}` : parts[1];
  // The DFSP the callback is addressed to is part of the key: a callback to the payee of
  // a transfer (a 3106 for its repeated fulfil, say) must never settle what its payer waits for.
  const key = `${resource}:${name}:${id}`;
  const body = text ? JSON.parse(text) : {};
  const failed = isError || (resource === 'transfers' && body.transferState !== 'COMMITTED');
  return { key, owner: ownerOf(resource, resource === 'parties' ? parts[2] : id, config.workers), outcome: failed ? { error: body.errorInformation?.errorCode ?? body.transferState, body } : { body } };
}

function onCallback(name, parts, text) {
  const { key, owner, outcome } = callbackOf(name, parts, text);
  if (owner === worker || !cluster.isWorker) correlator.settle(key, outcome);
  else {
    relayed += 1;
    process.send({ relay: true, owner, key, outcome });
  }
}

async function onDfspRequest(request, response) {
  const text = await readBody(request);
  const [, name, ...parts] = request.url.split('?')[0].split('/').filter(Boolean);
  // Only the payee role fails: callbacks to the payers still arrive, so what the payers
  // were told stays measurable while a payee is broken.
  if (request.method !== 'PUT' && faults.intercept(response)) return;
  response.writeHead(request.method === 'PUT' ? 200 : 202).end();
  if (request.method === 'PUT') onCallback(name, parts, text);
  else answerAsPayee(config, name, request.method, parts, text, request.headers);
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

process.on('message', (message) => {
  if (message?.relay) correlator.settle(message.key, message.outcome);
});

const dfspServer = http.createServer({ keepAliveTimeout: 65_000 }, (request, response) => {
  onDfspRequest(request, response).catch(() => { if (!response.headersSent) response.writeHead(400).end(); });
});
const bridgeServer = http.createServer({ keepAliveTimeout: 65_000 }, async (request, response) => {
  if (request.url === '/fault') {
    await setFault(request, response);
    return;
  }
  if (request.url === '/stats') {
    response.end(JSON.stringify({ worker, waiting: correlator.size, relayed, ...counters, rss: process.memoryUsage().rss }));
    return;
  }
  await handleBridge(context, request, response, await readBody(request));
});
dfspServer.listen(config.simPort, config.host);
bridgeServer.listen({ port: config.bridgePort + worker, host: config.host, exclusive: true });
