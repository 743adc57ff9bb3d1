// The FSPIOP header rules every edge applies before it looks at a body (the table in
// reference/fspiop.md §2.5, after Mojaloop's central-services-shared headerValidation):
// Content-Type and Accept carry the resource and the API version, Date must be an HTTP
// date, and the headers the OpenAPI operation marks as required must be present.
// Everything here is a pure function of the header values, so it is tested without HTTP.
//
// The descriptions are Mojaloop's, word for word, because DFSPs and Mojaloop's acceptance
// tests compare them: a header is named in lower case, as HTTP/2 and Node carry it; an
// absent one is reported as Mojaloop's OpenAPI validation reports it ("/header must have
// required property 'fspiop-source'"), a malformed one as its header plugin does ("Invalid
// date header"), and an unsupported version with the plugin's two sentences.

import { acceptedVersionsOf, versionsOf } from './versions.js';

/** The headers an event carries onwards (handlers/README.md), keys lower-cased. */
export const FORWARDED_HEADERS = Object.freeze([
  'content-type', 'accept', 'date', 'fspiop-source', 'fspiop-destination', 'fspiop-signature',
  'fspiop-encryption', 'fspiop-uri', 'fspiop-http-method', 'traceparent', 'tracestate',
]);

// Type, subtype and parameter names are case-insensitive (RFC 7231 §3.1.1.1), the resource
// name is compared exactly, and one optional space may surround the ';' as Mojaloop allows.
const CONTENT_TYPE = /^application\/vnd\.interoperability\.([A-Za-z]+)\+json\s?;\s?version=([^\s;,]*)$/i;
const ACCEPT_ENTRY = /^application\/vnd\.interoperability\.([A-Za-z]+)\+json(?:\s?;\s?version=([^\s;,]*))?$/i;
const CONTENT_VERSION_SYNTAX = /^\d+\.\d+$/;
const ACCEPT_VERSION_SYNTAX = /^\d+(?:\.\d+)?$/;

/** A header problem: the FSPIOP code it answers with and a description naming the header. */
function problem(code, detail, extra = {}) {
  return { code, detail, ...extra };
}

/** Mojaloop's descriptions of header problems; `name` is the header's lower-case name. */
export const HEADER_WORDING = Object.freeze({
  missing: (name) => `/header must have required property '${name}'`,
  // Mojaloop's header plugin checks Accept before its OpenAPI validation, in its own words.
  acceptMissing: 'Accept is required',
  malformed: (name) => `Invalid ${name} header`,
  acceptVersion: 'The Client requested an unsupported version, see extension list for supported version(s).',
  contentTypeVersion: 'Client supplied a protocol version which is not supported by the server',
  oversized: (name, charsMax) => `${name} header is longer than ${charsMax} characters`,
});

function isBlank(value) {
  return value === undefined || value === null || String(value).trim() === '';
}

/**
 * Checks a Content-Type value against the route's resource. Returns null when it is
 * acceptable, or `{ code, detail, supportedVersions? }`: 3101 when malformed or naming
 * another resource, 3001 when the version is not one the resource is served in (versions.js).
 */
export function checkContentType(value, resource) {
  const match = CONTENT_TYPE.exec(String(value).trim());
  // A media type for another resource is malformed for this route, as Mojaloop parses it.
  if (!match || !CONTENT_VERSION_SYNTAX.test(match[2]) || match[1] !== resource) {
    return problem(3101, HEADER_WORDING.malformed('content-type'));
  }
  const supported = versionsOf(resource);
  if (!supported.includes(match[2])) {
    return problem(3001, HEADER_WORDING.contentTypeVersion, { supportedVersions: supported });
  }
  return null;
}

/**
 * Checks an Accept value, which may list several media types separated by commas. It is
 * acceptable when every entry is well formed for the route's resource and at least one
 * entry asks for a version the resource is served in (or for no version in particular):
 * `version=2` admits 2.0, `version=1` both 1.0 and 1.1.
 */
export function checkAccept(value, resource) {
  const entries = String(value).split(',').map((entry) => ACCEPT_ENTRY.exec(entry.trim()));
  const malformed = entries.some((match) => !match || match[1] !== resource || (match[2] !== undefined && !ACCEPT_VERSION_SYNTAX.test(match[2])));
  if (malformed) return problem(3101, HEADER_WORDING.malformed('accept'));
  if (acceptedVersionsOf(value, resource).length === 0) {
    return problem(3001, HEADER_WORDING.acceptVersion, { supportedVersions: versionsOf(resource) });
  }
  return null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const SHORT_DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const TIME = '(\\d{2}):(\\d{2})(?::(\\d{2}))?';

// RFC 7231 §7.1.1.1 asks recipients to accept IMF-fixdate and the two obsolete forms; the
// first pattern is RFC 1123's wider form (optional weekday, one-digit day, numeric zone),
// of which IMF-fixdate is the strict subset.
const RFC1123 = new RegExp(`^(?:${SHORT_DAY}, )?(\\d{1,2}) ${MONTH} (\\d{4}) ${TIME} (GMT|UT|UTC|Z|[+-]\\d{4})$`);
const RFC850 = new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} (GMT)$`);
const ASCTIME = new RegExp(`^${SHORT_DAY} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

// RFC 850's two-digit years; a fixed pivot keeps parsing independent of the clock.
function fullYear(twoDigits) {
  return twoDigits < 70 ? 2000 + twoDigits : 1900 + twoDigits;
}

function dateParts(text) {
  let m = RFC1123.exec(text);
  if (m) return { day: m[1], month: m[2], year: m[3], hour: m[4], minute: m[5], second: m[6], zone: m[7] };
  m = RFC850.exec(text);
  if (m) return { day: m[1], month: m[2], year: String(fullYear(Number(m[3]))), hour: m[4], minute: m[5], second: m[6], zone: 'GMT' };
  m = ASCTIME.exec(text);
  if (m) return { day: m[2].trim(), month: m[1], year: m[6], hour: m[3], minute: m[4], second: m[5], zone: 'GMT' };
  return null;
}

function zoneOffsetMinutes(zone) {
  if (!/^[+-]/.test(zone)) return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  return sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(3, 5)));
}

/**
 * Parses an HTTP date (RFC 7231 / RFC 1123) into epoch milliseconds, or returns null.
 * Calendar fields are range-checked (no 31 February, no hour 24); the weekday is not
 * compared with the date, since a wrong one says nothing about the instant meant.
 */
export function parseHttpDate(value) {
  const parts = dateParts(String(value).trim());
  if (!parts) return null;
  const [year, month, day] = [Number(parts.year), MONTHS.indexOf(parts.month), Number(parts.day)];
  const [hour, minute, second] = [Number(parts.hour), Number(parts.minute), Number(parts.second ?? 0)];
  if (hour > 23 || minute > 59 || second > 60) return null;
  const daysInMonth = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  if (day < 1 || day > daysInMonth) return null;
  return Date.UTC(year, month, day, hour, minute, Math.min(second, 59)) - zoneOffsetMinutes(parts.zone) * 60_000;
}

function checkDate(value) {
  return parseHttpDate(value) === null ? problem(3101, HEADER_WORDING.malformed('date')) : null;
}

// FspId is 1 to 32 characters in the API definition, and the switch onboards only names of
// letters, digits, '.', '_' and '-' (the admin API's participant name): an FSPIOP-Source of
// anything else, such as a list of thousands of commas, can name no sender and would only
// poison what keys on it (the rate limit, the key cache). FSPIOP-Destination is not held to
// it: a destination that names no DFSP is answered like any unknown one, by an error callback
// to the sender, as Mojaloop answers it.
const FSP_ID = /^[A-Za-z0-9_.-]{1,32}$/;

/** Null when an FSPIOP-Source value is an FspId the switch could have onboarded, else a 3101 problem. */
export function checkFspiopSource(value) {
  return FSP_ID.test(String(value)) ? null : problem(3101, HEADER_WORDING.malformed('fspiop-source'));
}

/**
 * The longest value of a header the switch forwards onwards. A JWS FSPIOP-Signature with an
 * RSA 4096 key is under 2,000 characters and W3C trace headers are under 600, so this only
 * stops a client from making every later callback carry its padding.
 */
export const FORWARDED_HEADER_CHARS_MAX = 4096;

function checkForwardedSizes(headers) {
  for (const name of FORWARDED_HEADERS) {
    const value = headers[name];
    if (value !== undefined && String(value).length > FORWARDED_HEADER_CHARS_MAX) {
      return problem(3100, HEADER_WORDING.oversized(name, FORWARDED_HEADER_CHARS_MAX));
    }
  }
  return null;
}

/**
 * Applies the header rules to lower-cased request headers. `required` lists the header
 * names (lower-case) the OpenAPI operation marks as required. Returns null, or the first
 * problem found as `{ code, detail, supportedVersions? }`: an oversized forwarded header
 * first, then Accept, Date and Content-Type in the order Mojaloop checks them, then the
 * others, so that the answer does not depend on header order. FSPIOP-Source must be an FspId.
 */
export function checkFspiopHeaders(headers, { resource, required }) {
  const checks = {
    'content-type': (v) => checkContentType(v, resource),
    accept: (v) => checkAccept(v, resource),
    date: checkDate,
    'fspiop-source': checkFspiopSource,
  };
  const oversized = checkForwardedSizes(headers);
  if (oversized) return oversized;
  const names = [...new Set(['accept', 'date', 'content-type', ...required])];
  for (const name of names) {
    const value = headers[name];
    // A callback (PUT, PATCH) expects no answer body, so its Accept means nothing; HTTP
    // clients send `*/*` by default, and refusing that would refuse correct callbacks.
    if (name === 'accept' && !required.includes('accept')) continue;
    if (isBlank(value)) {
      if (required.includes(name)) return problem(3102, name === 'accept' ? HEADER_WORDING.acceptMissing : HEADER_WORDING.missing(name));
      continue;
    }
    const found = checks[name]?.(value);
    if (found) return found;
  }
  return null;
}

/** The subset of request headers an event carries, keys lower-cased, absent ones left out. */
export function pickForwardedHeaders(headers) {
  const picked = {};
  for (const name of FORWARDED_HEADERS) {
    const value = headers[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}
