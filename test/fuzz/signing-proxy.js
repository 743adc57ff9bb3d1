// A small HTTP proxy between the fuzzer and the three FSPIOP edges. Schemathesis generates
// requests from an FSPIOP document (fspiop-spec.js: v1.1, or the v2.0 slice with currency
// conversion); unsigned, every one with a body would stop at the signature check and prove
// little. In front of the edges this proxy routes each request by its first path segment
// (transfers and fxTransfers → api-adapter, quotes and fxQuotes → quoting, parties,
// participants and services → account-lookup) and, by mode:
//   - 'signed': makes the FSPIOP headers those of a registered DFSP (content type and accept
//     stating the document's version for the resource the path names, Date, FSPIOP-Source one
//     of the onboarded DFSPs, FSPIOP-Destination another), names the DFSPs in a transfer's
//     payerFsp/payeeFsp and in a conversion's initiatingFsp/counterPartyFsp (the payer and the
//     FXP), and, in every other transfer and conversion, the DFSPs' currency or the FXP's pair
//     and an expiration a few seconds ahead, so that prepares reach the position handler and fx
//     quotes reach the FXP; then signs the exact body with the source's key: the fuzzed body
//     goes as deep as the switch lets it;
//   - 'tampered': the same, then spoils the signature in one of several ways (another DFSP's
//     key, a changed body byte, a cut signature, an unusable protected header): the
//     verification path itself is fuzzed;
//   - 'raw': forwards the request as generated (headers and signatures as Schemathesis made
//     them).
// Edges with mutual TLS are called over HTTPS with the client certificate of the DFSP the
// request is sent as (in 'raw' mode its FSPIOP-Source if that is a registered DFSP, else the
// first one), so that the fuzzed request meets the checks behind the certificate's.
// Every answer's status and FSPIOP error code are counted, and each 5xx other than the
// switch's documented 501/2002 (an operation it does not serve) is kept with the exact request
// that got it.
import { Agent as HttpAgent, createServer, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { parse, stringify } from 'lossless-json';
import { signFspiopMessage } from '../../platform/fspiop/jws.js';
import { AGENT_OPTIONS } from '../../perf/simulators/fspiop.js';

// The edge of each resource (the first segment of its path, which is also the resource its
// media type names: application/vnd.interoperability.services+json for /services/FXP).
const RESOURCES = Object.freeze({
  transfers: 'transfers', fxTransfers: 'transfers', quotes: 'quotes', fxQuotes: 'quotes', bulkQuotes: 'quotes', transactionRequests: 'quotes', authorizations: 'quotes',
  parties: 'accountLookup', participants: 'accountLookup', services: 'accountLookup',
});
// The resources of a conversion: sent between the initiating DFSP and the FXP.
const CONVERSION_RESOURCES = new Set(['fxTransfers', 'fxQuotes']);
const STRIPPED = ['fspiop-signature', 'fspiop-uri', 'fspiop-http-method', 'content-length'];
const KEPT_FINDINGS_MAX = 50;
const KEPT_BODY_BYTES_MAX = 70_000;
const SAMPLES_PER_CODE = Number(process.env.FUZZ_SAMPLES_PER_CODE ?? 3);

const media = (resource, version) => `application/vnd.interoperability.${resource}+json;version=${version}`;

/** The FSPIOP headers of a registered DFSP for this request, over the fuzzed ones. */
function dfspHeaders(headers, { method, resource, version, source, destination }) {
  const fixed = { ...headers };
  for (const name of STRIPPED) delete fixed[name];
  // The version of the document the fuzzer generates from (fspiop-spec.js); Accept names its major.
  fixed['content-type'] = media(resource, version);
  if (method === 'PUT') delete fixed.accept; else fixed.accept = media(resource, version.split('.')[0]);
  fixed.date = new Date().toUTCString();
  fixed['fspiop-source'] = source;
  fixed['fspiop-destination'] = destination;
  return fixed;
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `amount` with `currency`, when it is an object to put one in; a zero amount (the document's
 * example, so a frequent one) becomes 1, which every check of a positive amount passes.
 */
function inCurrency(amount, currency) {
  if (!isObject(amount)) return amount;
  return { ...amount, currency, ...(/^0(\.0*)?$/.test(String(amount.amount)) ? { amount: '1' } : {}) };
}

// How far ahead a deepened request expires: long enough to be prepared and reserved, short
// enough that the timeout handler has finished it before the survival checks look.
const DEEP_EXPIRY_MS = 20_000;

/**
 * Conversion terms between the pair; deepened, in the FXP's currency pair, expiring soon and
 * under a new `idField` (Schemathesis sends its examples' ids again and again: the same id with
 * other terms is refused 3106 before anything else is checked).
 */
function conversionBetween(terms, { source, destination }, deep, idField) {
  const named = { ...terms, initiatingFsp: source, counterPartyFsp: destination };
  if (!deep) return named;
  const { sourceCurrency, targetCurrency } = deep.currencyPair;
  return {
    ...named, [idField]: randomUUID(), sourceAmount: inCurrency(terms.sourceAmount, sourceCurrency), targetAmount: inCurrency(terms.targetAmount, targetCurrency), expiration: deep.expiration,
  };
}

/** A transfer prepare between the pair; deepened, in the DFSPs' currency, expiring soon and under a new id. */
function transferBetween(transfer, { source, destination }, deep) {
  const named = { ...transfer, payerFsp: source, payeeFsp: destination };
  if (!deep) return named;
  return { ...named, transferId: randomUUID(), amount: inCurrency(transfer.amount, deep.currencyPair.sourceCurrency), expiration: deep.expiration };
}

/**
 * A transfer prepare names the onboarded DFSPs, so that it reaches their positions; an fx
 * transfer or fx quote request names the payer and the FXP. Every other one is deepened when
 * `currencyPair` is given (the FXP's; the DFSPs hold its source currency): a transfer in the
 * DFSPs' currency, a conversion in the pair, each under a new id and expiring in
 * DEEP_EXPIRY_MS, so that it passes the checks a generated date or currency almost never does
 * and reaches the position handler and the FXP; the rest keep the fuzzed values.
 */
function withDfspNames(body, resource, { source, destination, counter, currencyPair }) {
  if (!RESOURCES[resource] || body.length === 0) return body;
  try {
    const parsed = parse(body.toString('utf8'));
    if (!isObject(parsed)) return body;
    // Not counter % 2, which decides the direction (pairFor): each direction gets both.
    const deep = currencyPair && Math.floor(counter / 2) % 2 === 0
      ? { currencyPair, expiration: new Date(Date.now() + DEEP_EXPIRY_MS).toISOString() } : undefined;
    const parties = { source, destination };
    if (resource === 'transfers' && 'payerFsp' in parsed) return Buffer.from(stringify(transferBetween(parsed, parties, deep)));
    if (resource === 'fxTransfers' && 'initiatingFsp' in parsed) return Buffer.from(stringify(conversionBetween(parsed, parties, deep, 'commitRequestId')));
    if (resource === 'fxQuotes' && isObject(parsed.conversionTerms)) {
      const conversionRequestId = deep ? randomUUID() : parsed.conversionRequestId;
      return Buffer.from(stringify({ ...parsed, conversionRequestId, conversionTerms: conversionBetween(parsed.conversionTerms, parties, deep, 'conversionId') }));
    }
    return body;
  } catch {
    return body;
  }
}

const SPOILERS = [
  (signature) => ({ ...signature, signature: signature.signature.slice(0, -4) }),
  (signature) => ({ ...signature, protectedHeader: Buffer.from('{"alg":"none"}').toString('base64url') }),
  (signature) => ({ ...signature, protectedHeader: Buffer.from('['.repeat(2000)).toString('base64url') }),
  (signature) => ({ signature: signature.signature }),
];

/** The FSPIOP errorInformation of an answer, if it carries one. */
function errorOf(answer) {
  try {
    return JSON.parse(answer.body.toString('utf8'))?.errorInformation ?? {};
  } catch {
    return {};
  }
}

/** A server error by the switch's contract: anything 5xx but 501 with 2002 (not served). */
export const isServerError = (status, errorCode) => status >= 500 && !(status === 501 && errorCode === '2002');

/**
 * Picks one DFSP pair per request, round robin, so both directions are exercised: a
 * conversion's messages go between the first DFSP and the FXP (the DFSP marked `fxp`), every
 * other request between the DFSPs that are not FXPs.
 */
function pairFor(counter, dfsps, resource) {
  const fxp = dfsps.find((dfsp) => dfsp.fxp);
  const parties = fxp && CONVERSION_RESOURCES.has(resource) ? [dfsps[0], fxp] : dfsps.filter((dfsp) => !dfsp.fxp);
  const source = parties[counter % parties.length];
  return { source: source.name, destination: parties[(counter + 1) % parties.length].name, privateKey: source.privateKey };
}

/** The DFSP whose client certificate a request goes with: its FSPIOP-Source if registered, else the first. */
const senderOf = (headers, dfsps) => dfsps.find((dfsp) => dfsp.name === headers['fspiop-source']) ?? dfsps[0];

async function prepareRequest(mode, req, body, { dfsps, counter, version, currencyPair }) {
  const resource = req.url.split(/[/?]/)[1];
  if (mode === 'raw' || !RESOURCES[resource]) return { headers: { ...req.headers }, body };
  const pair = pairFor(counter, dfsps, resource);
  const headers = dfspHeaders(req.headers, { method: req.method, resource, version, ...pair });
  const sent = withDfspNames(body, resource, { ...pair, counter, currencyPair });
  const spoil = mode === 'tampered' ? counter % (SPOILERS.length + 2) : -1;
  // Spoilers 4 and 5 sign correctly, then with another DFSP's key or over other bytes.
  const privateKey = spoil === SPOILERS.length ? pairFor(counter + 1, dfsps, resource).privateKey : pair.privateKey;
  const signedBody = spoil === SPOILERS.length + 1 ? Buffer.concat([sent, Buffer.from(' ')]) : sent;
  const signature = await signFspiopMessage({ privateKey, method: req.method, uri: req.url, headers, body: signedBody });
  if (spoil >= 0 && spoil < SPOILERS.length) {
    signature['fspiop-signature'] = JSON.stringify(SPOILERS[spoil](JSON.parse(signature['fspiop-signature'])));
  }
  return { headers: { ...headers, ...signature }, body: sent };
}

/**
 * Forwards a request. Its agent drops idle connections before the edge's keepAliveTimeout
 * does (AGENT_OPTIONS, as the load test's DFSPs), so no request goes out on a connection the
 * edge is closing: a reset or a closed connection is the edge's doing, a finding.
 */
function forward(target, { method, url, headers, body, agent }) {
  const request = target.startsWith('https:') ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = request(`${target}${url}`, { method, agent, headers: { ...headers, 'content-length': String(body.length) } }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * Starts a proxy in `mode` ('signed', 'tampered' or 'raw') in front of `edges`
 * ({ transfers, quotes, accountLookup } base URLs, or `all`: one upstream for every path, as
 * for the admin API in 'raw' mode); `dfsps` are `[{ name, privateKey, tls, fxp }]`, `tls` the
 * DFSP's client certificate (`{ ca, cert, key }`) for HTTPS edges, `fxp` true for the FXP
 * conversions go to. `version` is the FSPIOP version the signed requests state (that of the
 * document Schemathesis generates from); `currencyPair` (`{ sourceCurrency, targetCurrency }`)
 * the FXP's pair, the DFSPs holding its source currency: every other transfer and conversion
 * is deepened to pass the checks of currency and expiry.
 * Returns `{ url, statusCounts, errorCodeCounts, errorSamples, findings, serverErrors(), close() }`.
 */
export async function startFuzzProxy({ mode, edges, dfsps = [], version = '1.1', currencyPair }) {
  const agents = new Map(dfsps.filter((dfsp) => dfsp.tls).map((dfsp) => [dfsp.name, new HttpsAgent({ ...AGENT_OPTIONS, ...dfsp.tls })]));
  const plainAgent = new HttpAgent(AGENT_OPTIONS);
  const statusCounts = {};
  const errorCodeCounts = {};
  const errorSamples = {};
  const findings = [];
  let counter = 0;
  let serverErrors = 0;
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    counter += 1;
    const resource = req.url.split(/[/?]/)[1];
    const target = edges.all ?? edges[RESOURCES[resource]] ?? edges.transfers;
    let outgoing;
    let answer;
    const started = Date.now();
    try {
      outgoing = { method: req.method, url: req.url, ...await prepareRequest(mode, req, Buffer.concat(chunks), { dfsps, counter, version, currencyPair }) };
      const agent = target.startsWith('https:') ? agents.get(senderOf(outgoing.headers, dfsps)?.name) : plainAgent;
      answer = await forward(target, { ...outgoing, agent });
    } catch (error) {
      // The edge closed the connection or the request could not be sent: a finding (502).
      answer = { status: 502, headers: { 'content-type': 'text/plain' }, body: Buffer.from(`fuzz proxy: ${error.message}`) };
    }
    statusCounts[answer.status] = (statusCounts[answer.status] ?? 0) + 1;
    const { errorCode, errorDescription } = errorOf(answer);
    if (errorCode !== undefined) {
      errorCodeCounts[errorCode] = (errorCodeCounts[errorCode] ?? 0) + 1;
      // A few answers per code say why requests were refused (a signed request refused 3105
      // would mean the proxy, or the switch, signs or reads the message wrongly).
      errorSamples[errorCode] ??= [];
      if (errorSamples[errorCode].length < SAMPLES_PER_CODE) errorSamples[errorCode].push(`${req.method} ${req.url.slice(0, 120)}: ${String(errorDescription).slice(0, 200)}`);
    }
    if (isServerError(answer.status, errorCode)) serverErrors += 1;
    if (isServerError(answer.status, errorCode) && findings.length < KEPT_FINDINGS_MAX) {
      const body = (outgoing?.body ?? Buffer.concat(chunks)).toString('utf8');
      findings.push({
        mode, status: answer.status, answer: answer.body.toString('utf8').slice(0, 500), durationMs: Date.now() - started,
        method: outgoing?.method ?? req.method, url: req.url, headers: outgoing?.headers ?? req.headers, bodyBytes: body.length, body: body.slice(0, KEPT_BODY_BYTES_MAX),
      });
    }
    const headers = { ...answer.headers };
    delete headers['transfer-encoding'];
    delete headers.connection;
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    statusCounts,
    errorCodeCounts,
    errorSamples,
    findings,
    serverErrors: () => serverErrors,
    close: () => new Promise((resolve) => {
      for (const agent of [...agents.values(), plainAgent]) agent.destroy();
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}
