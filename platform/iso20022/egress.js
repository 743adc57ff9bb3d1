// Every callback goes out in its receiver's API (docs/iso20022.md, "Egress"; issue 34). The
// notification handler and account-lookup both send callbacks through prepareCallback(), which
// decides the headers and body bytes from the event, the URL and the API type the receiver is
// registered with:
// - a forward between DFSPs of the same API goes out as today: the sender's bytes, headers and
//   signature (an ISO 20022 sender's own bytes, kept beside the FSPIOP form the switch runs on);
// - a forward across APIs is converted (FSPIOP to ISO 20022 with Mojaloop's mapping library;
//   ISO 20022 to FSPIOP is the FSPIOP form the edge already made), in the receiver's media type,
//   signed by the hub over the bytes sent, with `fspiop-switch-*` headers naming the signer and
//   describing the original, which the receiver can check against the sender's signature;
// - a call the hub makes in its own name (always FSPIOP) is converted for an ISO 20022 receiver
//   and signed by the hub as every hub call is;
// - a forward without a body (GET /parties) keeps the sender's signature, which covers no media
//   type; only its Accept and Content-Type are rewritten to the receiver's API.
// A conversion that fails is a failed callback with a reason, never a crash or a retry.
import { createHash } from 'node:crypto';
import { buildCallbackHeaders, callbackBody, fspiopCallbackBody, isForward } from '../delivery/callback-request.js';
import { interopContentType } from '../fspiop/versions.js';
import { API_TYPE, apiTypeOfMediaType, isoContentType, isoVersionsOf, requestApiType } from './media-types.js';
import { loadTransformFacades } from './transformer.js';
import { transactionOfIlpPacket } from '../fspiop/ilp-transaction.js';
import { isoOperation } from './document.js';

/** The headers a converted forward carries about its original (README, "Signatures"). */
export const SWITCH_HEADERS = Object.freeze({
  signer: 'fspiop-switch-signer',
  originalSource: 'fspiop-switch-original-source',
  originalSignature: 'fspiop-switch-original-signature',
  originalContentType: 'fspiop-switch-original-content-type',
  originalDigest: 'fspiop-switch-original-digest',
});

/** Why a callback could not be converted into its receiver's API: a failure of that callback alone. */
export const CONVERSION_FAILED = 'conversion';

// An ISO 20022 charge bearer the FSPIOP messages of a transfer do not state (the quote's
// amountType is not in them): shared, the mapping library's own choice when it has no quote.
const CHARGE_BEARER_UNSTATED = 'SHAR';

/**
 * The API a callback goes out in: the receiver's registered one for the five resources the
 * ISO 20022 document has, FSPIOP for every other (a DFSP's type governs only those five).
 * A missing type is FSPIOP, the default of every registration.
 */
export function receiverApiType(apiType, resource) {
  return apiType === API_TYPE.iso20022 && isoVersionsOf(resource).length > 0 ? API_TYPE.iso20022 : API_TYPE.fspiop;
}

/** The API the event's body was written in: a forward's sender's, and FSPIOP for the hub's own calls. */
export function senderApiType(event) {
  return isForward(event) ? requestApiType(event.headers) : API_TYPE.fspiop;
}

/**
 * The mapping library's operation for a callback: `post`, `put`, `putError` or `patch`, or
 * null for a GET. An error callback is told by its endpoint type (…_ERROR) or, for an
 * endpoint registered as a base URL (quotes), by the path called.
 */
export function isoOperationOf(callback, url) {
  if (callback.method === 'GET') return null;
  if (callback.method === 'PUT' && (/_ERROR$/.test(callback.endpointType) || /\/error$/.test(url.pathname))) return 'putError';
  return callback.method.toLowerCase();
}

/** The id a callback's path names after its resource (`/quotes/{ID}`), else the event's id. */
function pathIdOf(event, url) {
  const segments = url.pathname.split('/');
  const at = segments.lastIndexOf(event.callback.resource);
  const id = at >= 0 ? segments[at + 1] : undefined;
  return id ? decodeURIComponent(id) : event.id;
}

/** The mapping library's `params` of a callback: the party of a /parties one, the id of the others. */
function paramsOf(event, url) {
  const { templateParams = {}, resource } = event.callback;
  if (resource !== 'parties') return { ID: pathIdOf(event, url) };
  const params = { Type: templateParams.partyIdType, ID: templateParams.partyIdentifier };
  if (templateParams.partySubIdOrType) params.SubId = templateParams.partySubIdOrType;
  return params;
}

/** A DFSP as the party of a transfer when the transaction names no person or organisation. */
const fspAsParty = (fsp) => ({ Id: { OrgId: { Othr: { Id: fsp } } } });
const fspAsAgent = (fsp) => ({ FinInstnId: { Othr: { Id: fsp } } });

/**
 * The terms of the quote a PUT /quotes or POST /transfers belongs to, as the ISO 20022 quote
 * messages state them (`CdtTrfTxInf`: debtor, creditor, their agents, charge bearer): what the
 * mapping library takes as `$context` to write a pacs.082 or pacs.008. The notification handler
 * keeps no quote; the ILP packet the payee made from the quote carries the transaction (payer
 * and payee), so the parties are read from it and written by the library's own POST /quotes
 * mapping (docs/iso20022.md says why). A side the packet does not name is its DFSP.
 */
async function quoteTermsOf(facades, { body, payerFsp, payeeFsp }) {
  const transaction = transactionOfIlpPacket(body.ilpPacket) ?? {};
  const { payer, payee } = transaction;
  let stated = {};
  if (payer?.partyIdInfo && payee?.partyIdInfo) {
    const quote = {
      quoteId: transaction.quoteId ?? 'unstated', transactionId: transaction.transactionId ?? 'unstated', payer, payee,
      amountType: 'SEND', amount: transaction.amount ?? body.amount ?? body.transferAmount, transactionType: transaction.transactionType ?? {},
    };
    stated = (await facades.FSPIOP.quotes.post({ body: quote })).body.CdtTrfTxInf ?? {};
  }
  return {
    CdtTrfTxInf: {
      ChrgBr: CHARGE_BEARER_UNSTATED,
      Dbtr: stated.Dbtr?.Id ? stated.Dbtr : fspAsParty(payerFsp),
      DbtrAgt: stated.DbtrAgt?.FinInstnId ? stated.DbtrAgt : fspAsAgent(payerFsp),
      Cdtr: stated.Cdtr?.Id ? stated.Cdtr : fspAsParty(payeeFsp),
      CdtrAgt: stated.CdtrAgt?.FinInstnId ? stated.CdtrAgt : fspAsAgent(payeeFsp),
    },
  };
}

/**
 * The event's FSPIOP body as an object: its `body` (a decoded event parses its rawBody on first
 * read), else its rawBody parsed (account-lookup's forwards carry only the bytes).
 */
function fspiopBodyOf(event) {
  const body = event.body ?? (typeof event.rawBody === 'string' ? JSON.parse(event.rawBody) : undefined);
  if (body === null || typeof body !== 'object') throw new Error('the callback has no FSPIOP body to convert');
  return body;
}

/**
 * The event's FSPIOP body converted into the ISO 20022 message of its operation (an object),
 * or a thrown Error saying why it cannot be. `headers` are the callback's (FSPIOP-Source and
 * -Destination name the DFSPs, or the hub and its receiver).
 */
export async function isoBodyOf({ event, url, headers, facades }) {
  const { resource } = event.callback;
  const operation = isoOperationOf(event.callback, url);
  const facade = facades.FSPIOP[resource]?.[operation];
  if (typeof facade !== 'function') throw new Error(`${event.callback.method} /${resource} has no ISO 20022 form`);
  const body = fspiopBodyOf(event);
  const source = {
    body,
    headers: { 'fspiop-source': headers['fspiop-source'], 'fspiop-destination': headers['fspiop-destination'] },
    params: paramsOf(event, url),
  };
  if (resource === 'quotes' && operation === 'put') {
    // The payee answers the payer: Source is the payee, Destination the payer.
    const terms = await quoteTermsOf(facades, { body, payerFsp: headers['fspiop-destination'], payeeFsp: headers['fspiop-source'] });
    source.$context = { isoPostQuote: terms };
  } else if (resource === 'transfers' && operation === 'post') {
    source.$context = { isoPostQuoteResponse: await quoteTermsOf(facades, { body, payerFsp: body.payerFsp, payeeFsp: body.payeeFsp }) };
  }
  const converted = await facade(source);
  if (converted?.body === null || typeof converted?.body !== 'object') throw new Error('the mapping produced no body');
  const problem = isoDocumentProblemOf(event.callback.method, isoTemplateOf(resource, operation, source.params), converted.body);
  if (problem) throw new Error(problem);
  return converted.body;
}

/** The ISO 20022 document's path of an operation (`/parties/{Type}/{ID}/error`, `/transfers`, …). */
function isoTemplateOf(resource, operation, params) {
  const ids = resource === 'parties' ? ['{Type}', '{ID}', ...(params.SubId ? ['{SubId}'] : [])] : (operation === 'post' ? [] : ['{ID}']);
  return `/${[resource, ...ids, ...(operation === 'putError' ? ['error'] : [])].join('/')}`;
}

/**
 * Why a converted message would not be valid ISO 20022, or null. What the mapping writes is
 * checked before it is sent, so that what FSPIOP allows and ISO 20022 does not (a UUID where
 * ISO 20022 wants a ULID, a party the document cannot express) fails here with its reason and
 * its requester is told, instead of the receiver refusing a message the hub signed.
 */
function isoDocumentProblemOf(method, template, body) {
  const { message, validate } = isoOperation(method, template);
  if (validate(body)) return null;
  const [error] = validate.errors;
  return `the ${message} would not be valid ISO 20022: ${error.instancePath || '/'} ${error.message}`;
}

/** `sha-256=<base64url of the SHA-256 of bytes>`, the original's digest a receiver compares. */
export function originalDigestOf(bytes) {
  return `sha-256=${createHash('sha256').update(bytes).digest('base64url')}`;
}

// What an ISO 20022 message becomes in FSPIOP is FSPIOP 2.0 (the ISO 20022 document is FSPIOP
// 2.0's, and its ids are ULIDs, which 1.x refuses), whichever version the receiver last spoke.
const FSPIOP_VERSION_OF_ISO = '2.0';

/** The media type of `resource` in the receiver's API, for Content-Type (full version) or Accept (major only in FSPIOP). */
function mediaTypeFor(receiver, { event }, forAccept) {
  const { resource } = event.callback;
  if (receiver === API_TYPE.iso20022) return isoContentType(resource);
  return interopContentType(resource, forAccept ? FSPIOP_VERSION_OF_ISO.split('.')[0] : FSPIOP_VERSION_OF_ISO);
}

/**
 * The callback's headers with its Content-Type and Accept in the receiver's API where they
 * name the other one (those it has; one already in the receiver's API is left as it is).
 */
function inReceiverMediaTypes(headers, receiver, context) {
  const rewritten = { ...headers };
  const mediaTypes = [['content-type', false], ['accept', true]];
  // A GET from an ISO 20022 DFSP states its API in Accept alone; the Content-Type filled in
  // for it must then name the same version as the Accept, so both are written when either is.
  const across = mediaTypes.some(([name]) => {
    const stated = apiTypeOfMediaType(rewritten[name]);
    return stated && stated !== receiver;
  });
  if (!across) return rewritten;
  for (const [name, forAccept] of mediaTypes) {
    if (rewritten[name] !== undefined) rewritten[name] = mediaTypeFor(receiver, context, forAccept);
  }
  return rewritten;
}

/**
 * What a converted forward says about its original: the hub signs it, and the sender, its
 * signature as received, its media type and the digest of its bytes are named, so that a
 * receiver (or a dispute) can check the sender's signature over the original the switch keeps.
 */
function originalHeaders(event, original, hubName) {
  const headers = {
    [SWITCH_HEADERS.signer]: hubName,
    [SWITCH_HEADERS.originalSource]: event.headers['fspiop-source'] ?? event.from,
    [SWITCH_HEADERS.originalContentType]: event.headers['content-type'],
    [SWITCH_HEADERS.originalDigest]: originalDigestOf(original),
  };
  if (event.headers['fspiop-signature']) headers[SWITCH_HEADERS.originalSignature] = event.headers['fspiop-signature'];
  return headers;
}

/** The body in the receiver's API; throws when it cannot be converted. */
async function convertedBody({ event, url, headers, receiver, logger }) {
  if (receiver === API_TYPE.fspiop) return fspiopCallbackBody(event);
  const facades = await loadTransformFacades(logger);
  return Buffer.from(JSON.stringify(await isoBodyOf({ event, url, headers, facades })), 'utf8');
}

/**
 * The headers and body bytes of the callback for `event` to `url` (a URL object), whose
 * receiver is registered as `apiType` (FSPIOP when undefined): `{ headers, body }`, signed as
 * the case requires, or `{ failure: { reason, detail } }` when the body cannot be converted;
 * either names `conversion: { from, to }` (the two APIs) when the body had to be converted.
 * `hubName`, `signCallback` (platform/delivery/hub-signature.js), `versions`
 * (platform/delivery/dfsp-versions.js), `now` (epoch ms) and `logger` are the sender's.
 */
export async function prepareCallback({ event, url, apiType, hubName, signCallback, versions, now, logger }) {
  const { method, resource } = event.callback;
  const sender = senderApiType(event);
  const receiver = receiverApiType(apiType, resource);
  // A forward in FSPIOP says which version its sender speaks; a hub call goes out in its receiver's.
  if (isForward(event) && sender === API_TYPE.fspiop) versions.learn(event);
  const unsigned = buildCallbackHeaders({ event, url, hubName, now: new Date(now), versions });
  const original = callbackBody(event);
  // A forward without a body (a GET) has nothing to convert, and its sender's signature
  // covers no media type: the sender's signature stays, and only the media types change.
  if (original.length === 0 && isForward(event)) return { headers: inReceiverMediaTypes(unsigned, receiver, { event, versions }), body: original };
  if (sender === receiver) {
    return { headers: await signCallback({ event, method, url, headers: unsigned, body: original }), body: original };
  }
  const headers = inReceiverMediaTypes(unsigned, receiver, { event, versions });
  const conversion = { from: sender, to: receiver };
  let body;
  try {
    body = await convertedBody({ event, url, headers, receiver, logger });
  } catch (error) {
    return { conversion, failure: { reason: CONVERSION_FAILED, detail: `${method} /${resource} to ${receiver}: ${error.message}` } };
  }
  if (!isForward(event)) return { conversion, headers: await signCallback({ event, method, url, headers, body }), body };
  delete headers['fspiop-signature'];
  Object.assign(headers, originalHeaders(event, original, hubName));
  return { conversion, headers: await signCallback({ event, method, url, headers, body, byHub: true }), body };
}
