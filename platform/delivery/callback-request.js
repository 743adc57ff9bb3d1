// What an HTTP callback looks like, decided from a notification event alone (handlers/README.md,
// "Notification events"): the URL rendered from the DFSP's endpoint template, the headers of a
// forward or of a hub-originated call, and the body bytes. Pure: no I/O, the clock is passed in.
import { boundedMemo } from '../bounded-memo.js';
import { createDfspVersions } from './dfsp-versions.js';
import { contentVersionOf, interopContentType } from '../fspiop/versions.js';
import { ORIGINAL_BODY_HEADER, originalBodyOf } from '../iso20022/original.js';

// GET forwards a party lookup (GET /parties) to the DFSP that serves the party.
export const CALLBACK_METHODS = Object.freeze(['GET', 'POST', 'PUT', 'PATCH']);

/** The placeholders Mojaloop's endpoint templates use, and nothing else. */
const TEMPLATE_PARAMS = ['transferId', 'commitRequestId', 'bulkTransferId', 'quoteId', 'partyIdType', 'partyIdentifier', 'partySubIdOrType', 'requestId', 'ID'];
const PLACEHOLDER = /{{\s*([A-Za-z]+)\s*}}/g;

// Headers that describe one hop's connection or framing: they are recomputed for our own call,
// never copied from the DFSP's request to the switch. The switch's internal header holding an
// ISO 20022 message's original body (platform/iso20022/original.js) is no header of the DFSP's
// either: its bytes go out as the body, or not at all.
const HOP_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding', 'keep-alive', ORIGINAL_BODY_HEADER]);

/** A template naming a parameter the event did not supply cannot be rendered. */
export class TemplateError extends Error {
  constructor(message) {
    super(message);
    this.name = 'TemplateError';
  }
}

// A template split once into literal text and placeholders, so that a callback renders by
// concatenation instead of a regular-expression pass per call. Templates come from the
// admin API, a few per DFSP; the bound only guards against an endpoint list that churns.
const COMPILED_TEMPLATES_MAX = 1_000;

function compileTemplate(template) {
  const parts = [];
  let literalStart = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    parts.push(template.slice(literalStart, match.index), { name: match[1], placeholder: match[0] });
    literalStart = match.index + match[0].length;
  }
  parts.push(template.slice(literalStart));
  return parts;
}

const compiledTemplate = boundedMemo(compileTemplate, COMPILED_TEMPLATES_MAX);

/**
 * Replaces `{{name}}` placeholders with URL-encoded values from `params`. An unknown or
 * missing placeholder throws TemplateError: sending to a URL with a literal `{{…}}` in it
 * would only earn a 404 from the DFSP.
 */
export function renderTemplate(template, params = {}) {
  const parts = compiledTemplate(template);
  let rendered = parts[0];
  for (let index = 1; index < parts.length; index += 2) {
    const { name, placeholder } = parts[index];
    if (!TEMPLATE_PARAMS.includes(name)) throw new TemplateError(`unknown placeholder ${placeholder}`);
    const value = params[name];
    if (value === undefined || value === null || value === '') throw new TemplateError(`no value for ${placeholder}`);
    rendered += encodeURIComponent(String(value)) + parts[index + 1];
  }
  return rendered;
}

/**
 * The callback URL: the rendered template, plus `callback.path` when the endpoint is a base
 * URL (FSPIOP_CALLBACK_URL_QUOTES is registered as one). Returns a URL object.
 */
export function callbackUrl(template, callback) {
  let rendered = renderTemplate(template, callback.templateParams);
  if (callback.path) {
    const path = callback.path.startsWith('/') ? callback.path : `/${callback.path}`;
    rendered = rendered.replace(/\/+$/, '') + path;
  }
  return new URL(rendered);
}

/** True when the event forwards a DFSP's request (it carries that DFSP's headers). */
export function isForward(event) {
  const { headers } = event;
  if (headers === null || typeof headers !== 'object') return false;
  for (const name in headers) if (Object.hasOwn(headers, name)) return true;
  return false;
}

// The Date header has a resolution of one second: formatted once per second, not per call.
let lastHttpDate = { second: NaN, text: '' };

function httpDate(now) {
  const second = Math.floor(now.getTime() / 1000);
  if (second !== lastHttpDate.second) lastHttpDate = { second, text: now.toUTCString() };
  return lastHttpDate.text;
}

function copyForwardHeaders(source) {
  const headers = {};
  for (const [name, value] of Object.entries(source)) {
    const key = name.toLowerCase();
    if (!HOP_HEADERS.has(key) && value !== undefined && value !== null) headers[key] = String(value);
  }
  return headers;
}

/**
 * Headers of a forward: the DFSP's own, unchanged, since its FSPIOP-Signature covers
 * Source, Destination and Date. Only what the DFSP left out is filled in. A signature that
 * bound no destination (a payer's GET /parties routed by the oracle, signed to prove its
 * sender to the switch) would not verify once the switch names one, so it goes no further.
 */
function forwardHeaders(event, resource, now) {
  const headers = copyForwardHeaders(event.headers);
  headers['content-type'] ??= interopContentType(resource);
  headers.date ??= httpDate(now);
  headers['fspiop-source'] ??= event.from;
  if (headers['fspiop-destination'] === undefined) {
    headers['fspiop-destination'] = event.to;
    delete headers['fspiop-signature'];
  }
  return headers;
}

/** The major version a Content-Type states, asked for in the Accept of a call that expects an answer. */
function majorOf(contentType) {
  return (contentVersionOf(contentType) ?? '1.1').split('.')[0];
}

// Without a memory of what DFSPs sent, a hub call goes out in the version its event names, or
// in the scheme's default.
const NO_MEMORY = createDfspVersions();

/**
 * Headers of a call the hub makes in its own name, in the version its receiver takes
 * (dfsp-versions.js); the hub's signature is added over them (hub-signature.js).
 */
function hubHeaders(event, resource, { hubName, now, versions }) {
  return {
    'content-type': interopContentType(resource, versions.versionFor(event)),
    date: httpDate(now),
    'fspiop-source': hubName,
    'fspiop-destination': event.to,
  };
}

/**
 * Every header of the callback for `event` sent to `url` (a URL object). `now` is a Date;
 * `versions` (dfsp-versions.js) says which version a hub call goes out in.
 * Both kinds get FSPIOP-URI and FSPIOP-HTTP-Method unless the DFSP set them; PUT and PATCH
 * callbacks carry no Accept, since they answer a request rather than ask for an answer.
 */
export function buildCallbackHeaders({ event, url, hubName, now, versions = NO_MEMORY }) {
  const { method, resource } = event.callback;
  const headers = isForward(event) ? forwardHeaders(event, resource, now) : hubHeaders(event, resource, { hubName, now, versions });
  headers['fspiop-uri'] ??= `${url.pathname}${url.search}`;
  headers['fspiop-http-method'] ??= method;
  if (method === 'PUT' || method === 'PATCH') delete headers.accept;
  else headers.accept ??= interopContentType(resource, majorOf(headers['content-type']));
  for (const name in headers) if (headers[name] === undefined || headers[name] === null) delete headers[name];
  return headers;
}

/**
 * The body bytes as the message's sender wrote them: the DFSP's original text when there is
 * one (an ISO 20022 message's, kept beside its FSPIOP form, or an FSPIOP one's rawBody), so
 * that its signature verifies.
 */
export function callbackBody(event) {
  const original = originalBodyOf(event.headers);
  if (original !== undefined) return Buffer.from(original, 'utf8');
  return fspiopCallbackBody(event);
}

/** The body bytes in FSPIOP: the DFSP's FSPIOP text when it sent one, else the body as JSON. */
export function fspiopCallbackBody(event) {
  if (typeof event.rawBody === 'string') return Buffer.from(event.rawBody, 'utf8');
  if (event.body === undefined || event.body === null) return Buffer.alloc(0);
  return Buffer.from(JSON.stringify(event.body), 'utf8');
}

/**
 * Why a decoded event cannot be delivered, or null when it can. These are defects of the
 * producing handler; retrying them would never succeed.
 */
export function invalidNotificationReason(event) {
  if (event.type !== 'notification') return `type is ${event.type}, not notification`;
  if (typeof event.to !== 'string' || event.to === '') return 'to is missing';
  const { callback } = event;
  if (callback === null || typeof callback !== 'object') return 'callback is missing';
  if (typeof callback.endpointType !== 'string' || callback.endpointType === '') return 'callback.endpointType is missing';
  if (!CALLBACK_METHODS.includes(callback.method)) return `callback.method ${callback.method} is not one of ${CALLBACK_METHODS.join(', ')}`;
  if (typeof callback.resource !== 'string' || !/^[A-Za-z]+$/.test(callback.resource)) return 'callback.resource is missing';
  if (callback.path !== undefined && typeof callback.path !== 'string') return 'callback.path is not a string';
  if (callback.version !== undefined && !/^\d+\.\d+$/.test(callback.version)) return 'callback.version is not a major.minor version';
  return null;
}
