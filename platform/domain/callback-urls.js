// Which callback URLs the switch will call. A DFSP's callback URL is a request the switch makes
// on the DFSP's behalf from inside the scheme's network, so it must be HTTP(S), its scheme, host
// and port fixed text (no placeholder a request could fill in, callback-url-templates.js), and
// never a link-local or cloud metadata address (where instance credentials are served) unless a
// lab explicitly allows it (CALLBACK_URL_ALLOW_LINK_LOCAL).
//
// The same rules are applied twice: by the admin API when a URL is registered, for an early
// answer to the operator (ledger/domain/callback-urls.js), and by the deliverer on the URL it is
// about to call (platform/delivery/deliver.js), so that a URL that reached the database some
// other way is not called either. Names are checked as written; what a name resolves to is
// checked when a callback connects (platform/delivery/callback-destinations.js), as no check of
// the text can see where a name will point later.
import { originPlaceholderProblem } from './callback-url-templates.js';

const METADATA_HOST_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal']);
const METADATA_IPV6 = new Set(['fd00:ec2::254']);

function isLinkLocalIpv4(host) {
  const octets = host.split('.');
  return octets.length === 4 && octets.every((octet) => /^\d{1,3}$/.test(octet)) && octets[0] === '169' && octets[1] === '254';
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a9fe:a9fe`), if it is one. */
function mappedIpv4(ipv6) {
  const match = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(ipv6);
  if (!match) return undefined;
  const [high, low] = [parseInt(match[1], 16), parseInt(match[2], 16)];
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

function isLinkLocalIpv6(ipv6) {
  return /^fe[89ab][0-9a-f]:/.test(ipv6);
}

const metadata = (what) => ({ kind: 'metadata', why: `${what} is a cloud metadata service` });
const linkLocal = (why) => ({ kind: 'link_local', why });

/** Why `host` (a URL's normalised hostname) is off limits, as `{ kind, why }`, or undefined if it is not. */
function forbiddenHost(host) {
  const name = host.replace(/\.$/, '');
  if (METADATA_HOST_NAMES.has(name)) return metadata(name);
  if (isLinkLocalIpv4(name)) return linkLocal(`${name} is a link-local address (169.254.0.0/16, where cloud metadata is served)`);
  if (!name.startsWith('[')) return undefined;
  const ipv6 = name.slice(1, -1);
  if (METADATA_IPV6.has(ipv6)) return metadata(ipv6);
  if (isLinkLocalIpv6(ipv6)) return linkLocal(`${ipv6} is a link-local address (fe80::/10)`);
  const ipv4 = mappedIpv4(ipv6);
  if (ipv4 && isLinkLocalIpv4(ipv4)) return linkLocal(`${ipv6} maps to the link-local address ${ipv4}`);
  return undefined;
}

/**
 * Why the switch may not call `url` (a URL object, such as a template rendered for one callback),
 * as `{ kind, reason }`, or undefined when it may. `kind` is `not_http`, `metadata` or
 * `link_local`; `reason` follows the URL's name in a sentence. `allowLinkLocal` is
 * CALLBACK_URL_ALLOW_LINK_LOCAL (a lab only); it never lets another scheme through.
 */
export function parsedCallbackUrlProblem(url, { allowLinkLocal = false } = {}) {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { kind: 'not_http', reason: `must be an http or https URL, not ${url.protocol}` };
  }
  if (allowLinkLocal) return undefined;
  const host = forbiddenHost(url.hostname);
  return host && { kind: host.kind, reason: `refused: ${host.why}` };
}

/**
 * Why the callback URL or template `value` (text, as a DFSP registers it) may not be called, as
 * `{ kind, reason }`, or undefined when it may. Templates (`{{transferId}}` in the path or
 * query) parse as URLs, so they are checked like any other; besides parsedCallbackUrlProblem's
 * kinds, `kind` is `placeholder_host` or `not_a_url`.
 */
export function callbackUrlProblem(value, { allowLinkLocal = false } = {}) {
  // Before parsing: `http://dfsp:{{port}}/` is no URL, and the placeholder is the reason why.
  const placeholder = originPlaceholderProblem(value);
  if (placeholder) return { kind: 'placeholder_host', reason: `refused: ${placeholder}` };
  let url;
  try {
    url = new URL(value);
  } catch {
    return { kind: 'not_a_url', reason: `"${value}" is not a URL` };
  }
  return parsedCallbackUrlProblem(url, { allowLinkLocal });
}
