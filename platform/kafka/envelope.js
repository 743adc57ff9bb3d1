// The one message format on every topic (DESIGN.md, "Kafka topics and keys"):
// {id, type, action, from, to, headers, body, rawBody?, state?, at}.
// Encoding and decoding live here so that no handler invents its own variant, and so that a
// poison message becomes a typed value a handler can route to an error path instead of a
// batch that fails, rewinds and fails again forever.

const REQUIRED_FIELDS = ['id', 'type', 'action'];
const FIELD_ORDER = ['id', 'type', 'action', 'from', 'to', 'headers', 'body', 'rawBody', 'state', 'at'];
const PREVIEW_LENGTH = 200;

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
 */
export function encodeEvent(event) {
  if (!isPlainObject(event)) throw new TypeError('an event must be an object');
  const missing = missingFields(event);
  if (missing.length > 0) throw new TypeError(`event is missing ${missing.join(', ')}`);
  // The envelope's fields come first in a fixed order; type-specific fields (a position
  // event's accountId, a notification's callback) follow as they are.
  const ordered = {};
  for (const name of FIELD_ORDER) {
    const value = name === 'rawBody' ? normaliseRawBody(event[name]) : event[name];
    if (value !== undefined) ordered[name] = value;
  }
  for (const [name, value] of Object.entries(event)) {
    if (!(name in ordered) && value !== undefined) ordered[name] = value;
  }
  return Buffer.from(JSON.stringify(ordered), 'utf8');
}

function previewOf(text) {
  return text.length > PREVIEW_LENGTH ? `${text.slice(0, PREVIEW_LENGTH)}…` : text;
}

/**
 * Parses a message value (Buffer or string) into an event, or throws MalformedEventError
 * when the value is empty, not JSON, not an object, or lacks a non-empty id, type or action.
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
  return event;
}

/** True for the error decodeEvent throws, so callers need not import the class. */
export function isMalformedEvent(error) {
  return error instanceof MalformedEventError;
}
