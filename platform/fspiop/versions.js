// The versions of the FSPIOP API the switch speaks, per resource, and the negotiation the API
// definition describes (§3.3.4): a request states its version in Content-Type as
// `major.minor`; Accept names the versions a client takes, a major version alone meaning any
// of its minors; a version the switch does not speak is refused with 3001 and the versions it
// does speak. Every version is validated against its own document from api-snippets
// (openapi.js), and what the hub originates goes out in a version its receiver takes.
// Pure: everything here is a function of its arguments.
import { boundedMemo } from '../bounded-memo.js';

/** Every version of the API the switch knows, oldest first, each with its own document. */
export const API_VERSIONS = Object.freeze(['1.0', '1.1', '2.0']);

/**
 * The versions each resource is served in. A resource added in 2.0 (`fxQuotes: ['2.0']`) is
 * one entry here; its routes then accept 2.0 only and answer 3001 otherwise.
 */
export const RESOURCE_VERSIONS = Object.freeze({
  parties: API_VERSIONS,
  participants: API_VERSIONS,
  quotes: API_VERSIONS,
  bulkQuotes: API_VERSIONS,
  transfers: API_VERSIONS,
  transactionRequests: API_VERSIONS,
  authorizations: API_VERSIONS,
  bulkTransfers: API_VERSIONS,
  // The resources of currency conversion exist from 2.0 on.
  services: Object.freeze(['2.0']),
  fxQuotes: Object.freeze(['2.0']),
  fxTransfers: Object.freeze(['2.0']),
});

/** The version the hub speaks when nothing says what its receiver takes (FSPIOP_VERSION_DEFAULT). */
export const SCHEME_VERSION_DEFAULT = '1.1';

const VERSION_PARAMETER = /;\s?version=(\d+(?:\.\d+)?)\s*(?:[;,]|$)/i;

/** Mojaloop's versioned media type for a resource, e.g. `transfers`. */
export function interopContentType(resource, version = SCHEME_VERSION_DEFAULT) {
  return `application/vnd.interoperability.${resource}+json;version=${version}`;
}

/**
 * The Content-Type of the switch's synchronous answer to a request about `resource` (§3.3.4:
 * the server states `major.minor`): the version the client sent in or its Accept takes
 * (answerVersionOf), else, for a request whose version the switch does not speak, the newest
 * the resource is served in.
 */
export function answerContentTypeOf(headers, resource) {
  const versions = versionsOf(resource);
  return interopContentType(resource, answerVersionOf(headers, resource) ?? versions[versions.length - 1]);
}

/** The versions a resource is served in, oldest first; throws for a resource the table lacks. */
export function versionsOf(resource) {
  const versions = RESOURCE_VERSIONS[resource];
  if (!versions) throw new Error(`no FSPIOP versions are configured for the resource ${resource}`);
  return versions;
}

/** The `major.minor` a Content-Type states (`…+json;version=2.0` → '2.0'), or null. */
export function contentVersionOf(contentType) {
  const match = VERSION_PARAMETER.exec(typeof contentType === 'string' ? contentType : '');
  return match && match[1].includes('.') ? match[1] : null;
}

/** Whether an Accept entry's version (`1`, `1.1`, or none at all) admits `version` (`major.minor`). */
function admits(asked, version) {
  if (asked === undefined) return true;
  return asked.includes('.') ? asked === version : version.split('.')[0] === asked;
}

/**
 * The versions of `resource` an Accept value admits, newest first. An absent Accept admits
 * every version; entries for other resources or with other media types admit none.
 */
export function acceptedVersionsOf(accept, resource) {
  const versions = versionsOf(resource);
  if (typeof accept !== 'string' || accept.trim() === '') return [...versions].reverse();
  const asked = [];
  for (const entry of accept.split(',')) {
    const match = /^\s*application\/vnd\.interoperability\.([A-Za-z]+)\+json(?:\s?;\s?version=([^\s;,]*))?\s*$/i.exec(entry);
    if (match && match[1] === resource) asked.push(match[2]);
  }
  return versions.filter((version) => asked.some((entry) => admits(entry, version))).reverse();
}

/**
 * The version to answer a DFSP in, from the headers of a message it sent about `resource`:
 * the version it sent in, when its Accept admits that version or names none of the resource
 * (a callback's Accept means nothing, and HTTP clients send `*\/*`); otherwise the newest its
 * Accept admits; null when neither names a version the resource is served in (a message with
 * no headers, such as an expiry).
 */
export function answerVersionOf(headers, resource) {
  if (!headers || !RESOURCE_VERSIONS[resource]) return null;
  return answerVersionMemo(`${resource}\u0000${headers['content-type'] ?? ''}\u0000${headers.accept ?? ''}`);
}

function decideAnswerVersion(key) {
  const [resource, contentType, accept] = key.split('\u0000');
  const sent = contentVersionOf(contentType);
  const accepted = accept ? acceptedVersionsOf(accept, resource) : [];
  if (sent && versionsOf(resource).includes(sent) && (accepted.length === 0 || accepted.includes(sent))) return sent;
  return accepted[0] ?? null;
}

// A DFSP sends the same few header values again and again: each pair is read once, not once
// per message on the way to a callback.
const ANSWER_VERSIONS_MAX = 1_000;
const answerVersionMemo = boundedMemo(decideAnswerVersion, ANSWER_VERSIONS_MAX);

/**
 * `versionOf(id, fsp)`: the version to answer `fsp` in about `id`, from the messages of a batch
 * (events with `id`, `from` and `headers`) that `fsp` sent, the last one counting; undefined
 * when it sent none. The messages are read only when a hub answer asks, so a batch that only
 * forwards pays nothing.
 */
export function senderVersionsOf(messages, resource) {
  let versions = null;
  return (id, fsp) => {
    if (!versions) {
      versions = new Map();
      for (const message of messages) {
        const version = answerVersionOf(message.headers, resource);
        if (version) versions.set(`${message.id}\u0000${message.from}`, version);
      }
    }
    return versions.get(`${id}\u0000${fsp}`);
  };
}

/**
 * The version the hub speaks for `resource` when it knows nothing of its receiver: the scheme
 * default when the resource is served in it, else the resource's newest (a resource that
 * exists only from 2.0 on is spoken in 2.0 whatever the default).
 */
export function defaultVersionOf(resource, schemeDefault = SCHEME_VERSION_DEFAULT) {
  const versions = RESOURCE_VERSIONS[resource] ?? API_VERSIONS;
  return versions.includes(schemeDefault) ? schemeDefault : versions[versions.length - 1];
}

/**
 * The extension list of a 3001 answer: the supported versions, each as `{ key: major, value:
 * minor }`, as the API definition asks (§3.3.4.3) and Mojaloop's hub answers.
 */
export function supportedVersionsExtensionList(versions) {
  return { extension: versions.map((version) => { const [key, value] = version.split('.'); return { key, value }; }) };
}
