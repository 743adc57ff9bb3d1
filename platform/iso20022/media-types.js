// The ISO 20022 media types of the FSPIOP API and which API a request speaks. Mojaloop's ISO
// 20022 mode carries the same resources and routes as FSPIOP, with bodies that are ISO 20022
// messages in JSON and a media type of their own per resource:
// `application/vnd.interoperability.iso20022.<resource>+json;version=2.0`. The request's
// Content-Type (its Accept for a GET, which has no body) says which API it speaks; the edge
// then validates it against the document of that API (docs/iso20022.md).
// Pure: everything here is a function of its arguments.
import { HEADER_WORDING } from '../fspiop/headers.js';
import { interopContentType } from '../fspiop/versions.js';

/** The two APIs a DFSP may speak, as the admin API registers them. */
export const API_TYPE = Object.freeze({ fspiop: 'FSPIOP', iso20022: 'ISO20022' });

/**
 * The resources served in ISO 20022 and their versions: the ISO 20022 document of
 * api-snippets 18.x describes these five from FSPIOP 2.0 on, and nothing else.
 */
export const ISO_RESOURCE_VERSIONS = Object.freeze({
  parties: Object.freeze(['2.0']),
  quotes: Object.freeze(['2.0']),
  transfers: Object.freeze(['2.0']),
  fxQuotes: Object.freeze(['2.0']),
  fxTransfers: Object.freeze(['2.0']),
});

// As headers.js parses the FSPIOP media types: type, subtype and parameter names are
// case-insensitive, the resource name is compared exactly, one optional space around ';'.
const ISO_MEDIA = /^application\/vnd\.interoperability\.iso20022\.([A-Za-z]+)\+json(?:\s?;\s?version=([^\s;,]*))?$/i;
const ANY_INTEROP_MEDIA = /^\s*application\/vnd\.interoperability\./i;
const ISO_PREFIX = /^\s*application\/vnd\.interoperability\.iso20022\./i;
const CONTENT_VERSION_SYNTAX = /^\d+\.\d+$/;
const ACCEPT_VERSION_SYNTAX = /^\d+(?:\.\d+)?$/;

/** The ISO 20022 media type of a resource, e.g. `transfers` in 2.0. */
export function isoContentType(resource, version = '2.0') {
  return `application/vnd.interoperability.iso20022.${resource}+json;version=${version}`;
}

/** The versions a resource is served in as ISO 20022, or an empty list when it is not. */
export function isoVersionsOf(resource) {
  return ISO_RESOURCE_VERSIONS[resource] ?? [];
}

/**
 * Which API a media type names: ISO20022 for `…interoperability.iso20022.<resource>+json`,
 * FSPIOP for any other `…interoperability.…` type, null for anything else (absent, `*\/*`).
 * Only the prefix is read, so a malformed ISO type is still known as ISO and refused in ISO's
 * words rather than FSPIOP's.
 */
export function apiTypeOfMediaType(value) {
  if (typeof value !== 'string') return null;
  if (ISO_PREFIX.test(value)) return API_TYPE.iso20022;
  return ANY_INTEROP_MEDIA.test(value) ? API_TYPE.fspiop : null;
}

/**
 * The API a request speaks: its Content-Type's when it has one, else (a GET) the API its
 * Accept names when every entry names the same one, else FSPIOP, which the switch spoke first.
 */
export function requestApiType(headers) {
  const stated = apiTypeOfMediaType(headers?.['content-type']);
  if (stated) return stated;
  const asked = String(headers?.accept ?? '').split(',').map(apiTypeOfMediaType).filter(Boolean);
  return asked.length > 0 && asked.every((type) => type === asked[0]) ? asked[0] : API_TYPE.fspiop;
}

/**
 * Parses an ISO 20022 media type: `{ resource, version }` (version undefined when none is
 * stated), or null when the value is not one.
 */
export function parseIsoMediaType(value) {
  const match = ISO_MEDIA.exec(String(value ?? '').trim());
  return match ? { resource: match[1], version: match[2] } : null;
}

function problem(code, detail, extra = {}) {
  return { code, detail, ...extra };
}

/**
 * Checks an ISO 20022 Content-Type against the route's resource, as headers.js checks an
 * FSPIOP one: null when acceptable, 3101 when malformed or naming another resource, 3001 with
 * the supported versions when the version is not one the resource is served in as ISO 20022.
 */
export function checkIsoContentType(value, resource) {
  const parsed = parseIsoMediaType(value);
  if (!parsed || parsed.version === undefined || !CONTENT_VERSION_SYNTAX.test(parsed.version) || parsed.resource !== resource) {
    return problem(3101, HEADER_WORDING.malformed('content-type'));
  }
  const supported = isoVersionsOf(resource);
  if (!supported.includes(parsed.version)) return problem(3001, HEADER_WORDING.contentTypeVersion, { supportedVersions: supported });
  return null;
}

/** Whether an Accept entry's version (`2`, `2.0` or none) admits `version` (`major.minor`). */
function admits(asked, version) {
  if (asked === undefined) return true;
  return asked.includes('.') ? asked === version : version.split('.')[0] === asked;
}

/**
 * The versions of `resource` an ISO 20022 Accept admits, newest first (every one when the
 * Accept is absent or blank); entries of other resources or media types admit none.
 */
export function acceptedIsoVersionsOf(accept, resource) {
  const versions = isoVersionsOf(resource);
  if (typeof accept !== 'string' || accept.trim() === '') return [...versions].reverse();
  const asked = accept.split(',').map(parseIsoMediaType).filter((parsed) => parsed?.resource === resource).map((parsed) => parsed.version);
  return versions.filter((version) => asked.some((entry) => admits(entry, version))).reverse();
}

/**
 * Checks an ISO 20022 Accept, which may list several media types: every entry well formed
 * for the route's resource, and one at least admitting a version the resource is served in.
 */
export function checkIsoAccept(value, resource) {
  const entries = String(value).split(',').map(parseIsoMediaType);
  const malformed = entries.some((parsed) => !parsed || parsed.resource !== resource || (parsed.version !== undefined && !ACCEPT_VERSION_SYNTAX.test(parsed.version)));
  if (malformed) return problem(3101, HEADER_WORDING.malformed('accept'));
  if (acceptedIsoVersionsOf(value, resource).length === 0) {
    return problem(3001, HEADER_WORDING.acceptVersion, { supportedVersions: isoVersionsOf(resource) });
  }
  return null;
}

/**
 * The FSPIOP media type standing for an ISO 20022 one of the same resource and version, so
 * that the header rules both APIs share (Date, FSPIOP-Source, required headers, sizes) are
 * applied by headers.js once the ISO media types themselves are checked. Any other value is
 * returned as it is.
 */
export function fspiopEquivalentOf(value) {
  const entries = String(value).split(',').map((entry) => ({ entry, parsed: parseIsoMediaType(entry) }));
  if (entries.some(({ parsed }) => !parsed)) return value;
  return entries.map(({ parsed }) => (parsed.version === undefined
    ? `application/vnd.interoperability.${parsed.resource}+json`
    : interopContentType(parsed.resource, parsed.version))).join(', ');
}
