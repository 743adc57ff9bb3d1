// The one message format on every topic (DESIGN.md, "Kafka topics and keys"):
// {id, type, action, from, to, headers, body, rawBody?, state?, at}.
// Encoding and decoding live here so that no handler invents its own variant, and so that a
// poison message becomes a typed value a handler can route to an error path instead of a
// batch that fails, rewinds and fails again forever.
//
// A DFSP's body is serialised once per hop. An event that carries `rawBody` (the DFSP's
// original text, which its JWS signature covers) is written with that text only: `body` is
// by construction JSON.parse(rawBody), so writing both would serialise the same payload
// twice and parse it twice again at the other end. The decoded event gets its `body` back
// from `rawBody`. Events whose consumer decides on the body (transfer and quote events) have
// it parsed at decode, so a rawBody that is not JSON is a MalformedEventError there, on the
// path every handler already takes for a malformed message. Events the switch produced from
// a DFSP message it had already parsed and checked (position and notification events) mostly
// carry the body on to a callback unread, so their `body` is parsed on first read and cached.
// An event without rawBody (a hub-originated callback, a timeout) keeps its body as written.

const REQUIRED_FIELDS = ['id', 'type', 'action'];
const FIELD_ORDER = ['id', 'type', 'action', 'from', 'to', 'headers', 'body', 'rawBody', 'state', 'at'];
const PREVIEW_LENGTH = 200;
// Event types whose consumers relay a DFSP's body rather than decide on it (see above).
const BODY_PARSED_ON_READ = new Set(['position', 'notification']);

/** A message that is not a usable event; `reason` says why, `preview` shows its start. */
export class MalformedEventError extends Error {
  constructor(reason, { preview = '', cause } = {}) {
    super(`malformed event: ${reason}`, cause ? { cause } : undefined);
    this.name = 'MalformedEventError';
    this.code = 'MALFORMED_EVENT';
    this.reason = reason;
    this.preview = preview;
  }
}

function missingFields(event) {
  return REQUIRED_FIELDS.filter((name) => typeof event[name] !== 'string' || event[name] === '');
}

function isPlainObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * The DFSP's original request body travels as text: JSON is UTF-8 by definition (RFC 8259)
 * and the edge rejects anything that does not parse, so the text round-trips to the very
 * bytes a JWS signature covers. A Buffer is accepted for convenience.
 */
function normaliseRawBody(rawBody) {
  if (rawBody === undefined || rawBody === null || typeof rawBody === 'string') return rawBody;
  if (Buffer.isBuffer(rawBody)) return rawBody.toString('utf8');
  throw new TypeError('event.rawBody must be a string or a Buffer');
}

/**
 * Serialises an event. Missing required fields are a programming error on the producing
 * side, so they throw here rather than reach a topic and become someone else's poison.
 * With a rawBody, `body` is neither written nor read (reading it could parse it for nothing).
 */
export function encodeEvent(event) {
  if (!isPlainObject(event)) throw new TypeError('an event must be an object');
  const missing = missingFields(event);
  if (missing.length > 0) throw new TypeError(`event is missing ${missing.join(', ')}`);
  const rawBody = normaliseRawBody(event.rawBody);
  const skipBody = typeof rawBody === 'string';
  // The envelope's fields come first in a fixed order; type-specific fields (a position
  // event's accountId, a notification's callback) follow as they are.
  const ordered = {};
  for (const name of FIELD_ORDER) {
    if (name === 'body' && skipBody) continue;
    const value = name === 'rawBody' ? rawBody : event[name];
    if (value !== undefined) ordered[name] = value;
  }
  for (const name of Object.keys(event)) {
    if (FIELD_ORDER.includes(name)) continue;
    const value = event[name];
    if (value !== undefined) ordered[name] = value;
  }
  return Buffer.from(JSON.stringify(ordered), 'utf8');
}

function previewOf(text) {
  return text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH)}…` : text;
}

function parseRawBody(rawBody) {
  try {
    return JSON.parse(rawBody);
  } catch (error) {
    throw new MalformedEventError('rawBody is not JSON', { preview: previewOf(rawBody), cause: error });
  }
}

function defineBody(event, value) {
  Object.defineProperty(event, 'body', { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Gives `event` a `body` parsed from its rawBody on first read, then kept as a plain
 * property; assigning a body replaces it. Enumerable, so that a spread or deepEqual sees it
 * (and parses it: copyForRelay() is the copy that does not).
 */
function defineBodyParsedOnRead(event) {
  Object.defineProperty(event, 'body', {
    enumerable: true,
    configurable: true,
    get() {
      const body = parseRawBody(this.rawBody);
      defineBody(this, body);
      return body;
    },
    set(value) {
      defineBody(this, value);
    },
  });
}

function restoreBody(event, text) {
  if (event.rawBody === undefined || event.rawBody === null || event.body !== undefined) return;
  if (typeof event.rawBody !== 'string') throw new MalformedEventError('rawBody is not a string', { preview: previewOf(text) });
  if (BODY_PARSED_ON_READ.has(event.type)) defineBodyParsedOnRead(event);
  else defineBody(event, parseRawBody(event.rawBody));
}

/**
 * Parses a message value (Buffer or string) into an event, or throws MalformedEventError
 * when the value is empty, not JSON, not an object, lacks a non-empty id, type or action, or
 * carries a rawBody (for a type whose body is parsed at decode) that is not JSON.
 */
export function decodeEvent(value) {
  if (value === null || value === undefined) throw new MalformedEventError('empty message value');
  const text = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
  let event;
  try {
    event = JSON.parse(text);
  } catch (error) {
    throw new MalformedEventError('value is not JSON', { preview: previewOf(text), cause: error });
  }
  if (!isPlainObject(event)) {
    throw new MalformedEventError('value is not a JSON object', { preview: previewOf(text) });
  }
  const missing = missingFields(event);
  if (missing.length > 0) {
    throw new MalformedEventError(`missing ${missing.join(', ')}`, { preview: previewOf(text) });
  }
  restoreBody(event, text);
  return event;
}

/**
 * The body of `event` as another event carries it on: its rawBody alone when it has one
 * (encodeEvent writes nothing else, and reading `body` could parse it just to drop it),
 * otherwise its body.
 */
export function carriedBody(event) {
  const { rawBody } = event;
  return typeof rawBody === 'string' || Buffer.isBuffer(rawBody) ? { rawBody } : { body: event.body };
}

/**
 * A shallow copy of `event` with `changes`, for producing it again: a spread would read a
 * body that is still unread text and parse it for nothing, so the copy carries it as
 * carriedBody() does.
 */
export function copyForRelay(event, changes = {}) {
  const copy = {};
  for (const name of Object.keys(event)) {
    if (name !== 'body' && name !== 'rawBody') copy[name] = event[name];
  }
  return Object.assign(copy, carriedBody(event), changes);
}

/** True for the error decodeEvent throws, so callers need not import the class. */
export function isMalformedEvent(error) {
  return error instanceof MalformedEventError;
}
