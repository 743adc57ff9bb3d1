// A DFSP for tests and the demo, served over real HTTP. Like a real DFSP it derives the ILP
// fulfilment from a secret (ILPv4, as Mojaloop's SDKs do): fulfilment = HMAC-SHA256(secret,
// the packet's data), condition = SHA-256(fulfilment). As a payee it answers GET /parties for
// the parties it holds, POST /quotes with an ILP packet and condition from its secret, and
// POST /transfers by PUTting the fulfilment (or an error, or nothing); it records every call.
// How it answers a prepare is chosen per transfer (setBehaviour), so that tests sharing a
// payee never depend on what another test asked of it.
// `urls` says where its answers go: { transfers, quotes, parties } base URLs of the switch.
// Given `fxRates` ({ 'USD/EUR': '0.9' }) it is also an FXP (fxp-simulator.js): it answers
// POST /fxQuotes at those rates and POST /fxTransfers by reserving the conversion.
import { createHash } from 'node:crypto';
import { fulfilmentFor, quoteIlp } from '../../perf/simulators/payee-ilp.js';
import { startRecordingServer } from './recording-server.js';
import { dfspHeaders, fetchSigned } from '../../scripts/lib/fspiop-headers.js';
import { jwsKeyPair, testPublicKeysOf } from './jws-keys.js';
import { testClientTlsFor } from './scheme-tls.js';
import { answerFxQuote, answerFxTransfer } from './fxp-simulator.js';
import { fspiopToIso, isoDocumentProblem, isoHeaders, isoOperationOf, isoResourceOf, isoToFspiop } from './iso-codec.js';
import { API_TYPE, apiTypeOfMediaType } from '../../platform/iso20022/media-types.js';

/** A DFSP's headers for /transfers (the resource most tests use). */
export function fspiopHeaders(source, destination, options) {
  return dfspHeaders('transfers', source, destination, options);
}

// A payee's ILP work is shared with the load-test simulators (perf/simulators/payee-ilp.js).
export { fulfilmentFor, quoteIlp } from '../../perf/simulators/payee-ilp.js';

/**
 * How a payee answers a prepare: 'fulfil' (COMMITTED), 'reserve' (transferState RESERVED),
 * 'wrong-fulfilment', 'reject' (PUT …/error 5104), or 'late' (no answer at all, as a payee
 * that answers after the expiration, if ever).
 */
const PAYEE_BEHAVIOURS = new Set(['fulfil', 'reserve', 'wrong-fulfilment', 'reject', 'late']);
const DEFAULT_BEHAVIOUR = 'fulfil';

/**
 * `dfsp.setBehaviour(transferId, behaviour)` chooses how it answers that transfer's prepare;
 * any other transfer is fulfilled. An unknown behaviour throws at once, where a typo would
 * otherwise look like a payee that never answers.
 */
/**
 * It signs everything it sends with `privateKey` (the test run's key of its name by default)
 * and verifies every call it receives with `publicKeysOf` (recording-server.js). It calls an
 * HTTPS edge with `tls` ({ ca, cert, key }: its client certificate; the test run's of its name
 * by default, scheme-tls.js). With `serverTls` ({ cert, key, ca }) it serves its own endpoints
 * over HTTPS and admits only callers with a client certificate from `ca` (recording-server.js).
 */
export async function startTestDfsp({
  name, secret = `${name}-secret`, switchUrl, urls = {}, port = 0, privateKey = jwsKeyPair(name).privateKey, publicKeysOf = testPublicKeysOf, tls, serverTls,
  fxRates = {}, apiType = API_TYPE.fspiop,
}) {
  const behaviours = new Map();
  const dfsp = {
    name, secret, privateKey, apiType, isoQuotes: new Map(), sent: [], delayMs: 0, parties: new Map(), urls: { transfers: switchUrl, ...urls }, fxRates: new Map(Object.entries(fxRates)),
    tlsFor: (url) => tls ?? testClientTlsFor(url, name),
    setBehaviour(transferId, behaviour) {
      if (!PAYEE_BEHAVIOURS.has(behaviour)) throw new Error(`unknown payee behaviour ${behaviour}; one of ${[...PAYEE_BEHAVIOURS].join(', ')}`);
      behaviours.set(transferId, behaviour);
    },
    behaviourFor: (transferId) => behaviours.get(transferId) ?? DEFAULT_BEHAVIOUR,
  };
  const server = await startRecordingServer({
    name,
    port,
    publicKeysOf,
    tls: serverTls,
    readCall: readIsoCall,
    onCall: (call) => {
      if (call.method === 'POST' && call.path === '/transfers') setTimeout(() => answerPrepare(dfsp, call, dfsp.urls.transfers), dfsp.delayMs);
      if (call.method === 'POST' && call.path === '/quotes') answerQuote(dfsp, call).catch(() => {});
      if (call.method === 'GET' && call.path.startsWith('/parties/')) answerParty(dfsp, call).catch(() => {});
      if (call.method === 'POST' && call.path === '/fxQuotes' && dfsp.fxRates.size > 0) answerFxQuote(dfsp, call, send).catch(() => {});
      if (call.method === 'POST' && call.path === '/fxTransfers' && dfsp.fxRates.size > 0) answerFxTransfer(dfsp, call, send).catch(() => {});
    },
  });
  return Object.assign(dfsp, server);
}

/**
 * An ISO 20022 call is read as an ISO 20022 DFSP reads it: its body checked against the ISO
 * 20022 document (`isoProblem`, null when it fits), kept as it came (`isoBody`) and read into
 * FSPIOP (`body`), so that the DFSP's answers and the tests' waits speak FSPIOP either way.
 */
async function readIsoCall(call) {
  if (call.body === undefined || apiTypeOfMediaType(call.headers['content-type']) !== API_TYPE.iso20022) return;
  const operation = isoOperationOf(call.method, call.path);
  call.isoBody = call.body;
  try {
    call.isoProblem = isoDocumentProblem(call.method, operation.template, call.isoBody);
    call.body = await isoToFspiop(call);
  } catch (error) {
    call.isoProblem = `not readable as ISO 20022: ${error.message}`;
  }
}

/**
 * The FSPIOP version a DFSP answers a request in: 2.0 for a request in 2.0 (whose ids may be
 * ULIDs, as every id from an ISO 20022 DFSP is, which 1.1 refuses), else 1.1 as before.
 */
function answerVersionOf(call) {
  return /version=2\b/.test(call.headers['content-type'] ?? '') ? '2.0' : '1.1';
}

/** The fulfilment of a prepare's ILP packet, or null when the packet does not decode. */
function fulfilmentOf(dfsp, prepare) {
  try {
    return fulfilmentFor(dfsp.secret, prepare.ilpPacket);
  } catch {
    return null;
  }
}

/** The payee's answer to a prepare, by the behaviour chosen for its transfer. */
async function answerPrepare(dfsp, call, switchUrl) {
  const prepare = call.body;
  const headers = fspiopHeaders(dfsp.name, prepare.payerFsp, { accept: false, version: answerVersionOf(call) });
  const url = `${switchUrl}/transfers/${prepare.transferId}`;
  const fulfilment = fulfilmentOf(dfsp, prepare);
  if (fulfilment === null) {
    // A packet that does not decode (a fuzzed one) is refused as a real payee would.
    await send(dfsp, `${url}/error`, 'PUT', headers, { errorInformation: { errorCode: '3100', errorDescription: 'The ILP packet does not decode' } });
    return;
  }
  const completedTimestamp = new Date().toISOString();
  const bodies = {
    fulfil: { url, body: { fulfilment, completedTimestamp, transferState: 'COMMITTED' } },
    reserve: { url, body: { fulfilment, completedTimestamp, transferState: 'RESERVED' } },
    'wrong-fulfilment': { url, body: { fulfilment: createHash('sha256').update(fulfilment).digest('base64url'), completedTimestamp, transferState: 'COMMITTED' } },
    reject: { url: `${url}/error`, body: { errorInformation: { errorCode: '5104', errorDescription: 'Payee rejected the transaction' } } },
  };
  const answer = bodies[dfsp.behaviourFor(prepare.transferId)];
  if (!answer) return;
  await send(dfsp, answer.url, 'PUT', headers, answer.body);
}

/**
 * What a DFSP of ISO 20022 sends for an FSPIOP `body`: the ISO 20022 message and media type,
 * `context` the ISO 20022 quote messages the mapping needs (isoPostQuote, isoPostQuoteResponse).
 * A DFSP of FSPIOP, and a resource ISO 20022 does not carry, send the FSPIOP body as it is.
 */
export async function wireMessage(dfsp, url, method, headers, body, context) {
  const { pathname } = new URL(url);
  const resource = isoResourceOf(pathname);
  if (dfsp.apiType !== API_TYPE.iso20022 || !resource) return { headers, text: JSON.stringify(body) };
  if (body === undefined) return { headers: isoHeaders(headers, resource), text: undefined };
  const iso = await fspiopToIso({ method, path: pathname, headers, body, context });
  return { headers: isoHeaders(headers, resource), text: JSON.stringify(iso) };
}

async function send(dfsp, url, method, headers, body, context) {
  try {
    const wire = await wireMessage(dfsp, url, method, headers, body, context);
    const response = await fetchSigned(url, { method, headers: wire.headers, body: wire.text, privateKey: dfsp.privateKey, tls: dfsp.tlsFor(url) });
    dfsp.sent.push({ url, status: response.status, answer: await response.text(), text: wire.text });
  } catch (error) {
    dfsp.sent.push({ url, error: error.message });
  }
}

/**
 * GET /parties/{Type}/{ID}: the party it holds (PUT), or 3204 (PUT …/error). Asked in v2.0
 * (Accept version 2), it answers in v2.0 with the currencies the party receives in
 * (`supportedCurrencies`, a 2.0 field), when its record names them.
 */
async function answerParty(dfsp, call) {
  const [, , type, id] = call.path.split('/');
  const party = dfsp.parties.get(`${type}/${id}`);
  const url = `${dfsp.urls.parties}/parties/${type}/${id}`;
  const version = /version=2\b/.test(call.headers.accept ?? '') || dfsp.apiType === API_TYPE.iso20022 ? '2.0' : '1.1';
  const headers = dfspHeaders('parties', dfsp.name, call.headers['fspiop-source'], { accept: false, version });
  if (!party) {
    await send(dfsp, `${url}/error`, 'PUT', headers, { errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } });
    return;
  }
  await send(dfsp, url, 'PUT', headers, {
    party: {
      partyIdInfo: { partyIdType: type, partyIdentifier: id, fspId: dfsp.name }, name: party.name,
      ...(version === '2.0' && party.supportedCurrencies ? { supportedCurrencies: party.supportedCurrencies } : {}),
    },
  });
}

/** POST /quotes: the payee's quote, its ILP packet and condition derived from the secret. */
async function answerQuote(dfsp, call) {
  const { quoteId, transactionId, amount, payer, payee, transactionType } = call.body;
  const expiration = new Date(Date.now() + 60000).toISOString();
  // The transaction in the packet names the quote and both parties, as Mojaloop's SDKs write it.
  const transaction = { quoteId, payee, payer, transactionType };
  const ilp = quoteIlp({ secret: dfsp.secret, transferId: transactionId, amount: amount.amount, currency: amount.currency, payeeAddress: `g.${dfsp.name}`, expiration, transaction });
  await send(dfsp, `${dfsp.urls.quotes}/quotes/${quoteId}`, 'PUT', dfspHeaders('quotes', dfsp.name, payer.partyIdInfo.fspId, { accept: false, version: answerVersionOf(call) }), {
    transferAmount: amount, expiration, ilpPacket: ilp.ilpPacket, condition: ilp.condition,
  }, { isoPostQuote: call.isoBody });
}
