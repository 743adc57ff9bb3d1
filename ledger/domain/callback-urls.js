// Which callback URLs a DFSP may register. The notification handler calls whatever is
// registered from inside the switch's network, so a URL is a request the switch makes on
// the registrant's behalf: it must be HTTP(S), its scheme, host and port fixed text (no
// placeholder a request could fill in), and never a link-local or cloud metadata address
// (where instance credentials are served) unless a lab explicitly allows it.
// Names are checked as written here, for an early answer to the operator; what a name
// resolves to is checked when a callback connects (platform/delivery/callback-destinations.js),
// as no check at registration can see where a name will point later.
import { originPlaceholderProblem } from '../../platform/domain/callback-url-templates.js';
import { URL_ENDPOINT_TYPES } from './participants.js';

// Only the URL types are checked here: an e-mail address or a Kafka topic name is never a
// request the switch makes, and the admin API's schema checks those values for what they are.
const URL_TYPES = new Set(URL_ENDPOINT_TYPES);

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

/** Why `host` (a URL's normalised hostname) is off limits, or undefined if it is not. */
function forbiddenHostReason(host) {
  const name = host.replace(/\.$/, '');
  if (METADATA_HOST_NAMES.has(name)) return `${name} is a cloud metadata service`;
  if (isLinkLocalIpv4(name)) return `${name} is a link-local address (169.254.0.0/16, where cloud metadata is served)`;
  if (!name.startsWith('[')) return undefined;
  const ipv6 = name.slice(1, -1);
  if (METADATA_IPV6.has(ipv6)) return `${ipv6} is a cloud metadata service`;
  if (isLinkLocalIpv6(ipv6)) return `${ipv6} is a link-local address (fe80::/10)`;
  const ipv4 = mappedIpv4(ipv6);
  if (ipv4 && isLinkLocalIpv4(ipv4)) return `${ipv6} maps to the link-local address ${ipv4}`;
  return undefined;
}

/**
 * Why a callback endpoint may not be registered, or undefined when it may. URL templates
 * (`{{transferId}}` in the path or query) parse as URLs, so they are checked like any other.
 * `allowLinkLocal` is CALLBACK_URL_ALLOW_LINK_LOCAL (a lab only).
 */
export function callbackEndpointProblem({ type, value }, { allowLinkLocal = false } = {}) {
  if (!URL_TYPES.has(type)) return undefined;
  // Before parsing: `http://dfsp:{{port}}/` is no URL, and the placeholder is the reason why.
  const placeholder = originPlaceholderProblem(value);
  if (placeholder) return `${type} refused: ${placeholder}`;
  let url;
  try {
    url = new URL(value);
  } catch {
    return `${type} "${value}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${type} must be an http or https URL, not ${url.protocol}`;
  if (allowLinkLocal) return undefined;
  const reason = forbiddenHostReason(url.hostname);
  return reason && `${type} refused: ${reason}`;
}
