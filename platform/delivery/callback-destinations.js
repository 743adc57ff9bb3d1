// Where the switch may connect to deliver a callback. DFSPs register their callback URLs, and
// the notification handler and account-lookup call them from inside the scheme's network: a
// URL is a request the switch makes on a DFSP's behalf. Unchecked, a DFSP could have the switch
// call services that listen only on its own loopback, the cluster's private addresses, or the
// cloud's metadata service (where instance credentials are served).
//
// So the address a callback's socket connects to is checked, not the name in the URL: a name is
// resolved once, every address it resolves to is checked, and the socket connects to one of
// exactly those addresses (the `lookup` below is what net.connect uses), so a name that
// resolves elsewhere a moment later (DNS rebinding) cannot slip between check and connect.
// Addresses that are not on the public internet are refused unless the scheme's operator
// allow-lists them (CALLBACK_ALLOWED_CIDRS): a switch whose DFSPs sit on a private network
// lists that network, and the local runtime lists loopback, where its simulators listen.
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns';

const ALLOW_SETTING = 'CALLBACK_ALLOWED_CIDRS';

// The kinds of address a callback may not reach, in the order they are told apart (the first
// that holds names the refusal in the log and in the callback's outcome). IPv4-mapped
// (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses are checked as the IPv4 address they
// carry (effectiveAddress below).
const REFUSED_RANGES = Object.freeze([
  // AWS (EC2, ECS task role), Alibaba, Azure (WireServer), Oracle Cloud and EC2's IPv6 metadata service.
  ['metadata', ['169.254.169.254/32', '169.254.170.2/32', '100.100.100.200/32', '168.63.129.16/32', '192.0.0.192/32', 'fd00:ec2::254/128']],
  ['unspecified', ['0.0.0.0/8', '::/128']],
  ['loopback', ['127.0.0.0/8', '::1/128']],
  ['private', ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7', 'fec0::/10']],
  ['link_local', ['169.254.0.0/16', 'fe80::/10']],
  ['carrier_grade_nat', ['100.64.0.0/10']],
  ['multicast', ['224.0.0.0/4', 'ff00::/8']],
  ['broadcast', ['255.255.255.255/32']],
  // IETF protocol assignments and the old class E; IPv4-compatible IPv6 (deprecated), local-use
  // NAT64 (its IPv4 address may sit anywhere in it), 6to4 (deprecated, it carries an IPv4 address too).
  ['reserved', ['192.0.0.0/24', '240.0.0.0/4', '::/96', '64:ff9b:1::/48', '2002::/16']],
]);

const DESCRIPTIONS = Object.freeze({
  metadata: 'a cloud metadata service',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  link_local: 'a link-local address',
  carrier_grade_nat: 'a carrier-grade NAT address (100.64.0.0/10)',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
});

// IPv6 prefixes whose last 32 bits are an IPv4 address the packets end up at.
const EMBEDDING_IPV4 = blockListOf([parseCidr('::ffff:0:0/96'), parseCidr('64:ff9b::/96')]);

/**
 * A callback was not sent because of where it would go. `kind` is one of REFUSED_RANGES' kinds,
 * `placeholder_host` for a URL template whose host a request would fill in, or a kind of the
 * callback URL rules (platform/domain/callback-urls.js: `not_http`, `metadata`, `link_local`);
 * all are final: the destination does not change by trying again.
 */
export class DestinationRefusedError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'DestinationRefusedError';
    this.code = 'CALLBACK_DESTINATION_REFUSED';
    this.kind = kind;
  }
}

/** `a.b.c.d/n`, `x:y::/n` or a single address, as `{ address, prefix, family }`; throws on anything else. */
export function parseCidr(text) {
  const [address, prefixText, extra] = text.trim().split('/');
  const version = isIP(address);
  const bits = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (version === 0 || extra !== undefined || !/^\d{1,3}$/.test(prefixText ?? '0') || prefix > bits) {
    throw new Error(`"${text.trim()}" is not a CIDR range (10.0.0.0/8, fd00::/8) or an address`);
  }
  return Object.freeze({ address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' });
}

/** A comma-separated list of CIDR ranges (CALLBACK_ALLOWED_CIDRS); empty entries are ignored. */
export function parseCidrList(text) {
  return text.split(',').filter((entry) => entry.trim() !== '').map(parseCidr);
}

function blockListOf(cidrs) {
  const list = new BlockList();
  for (const { address, prefix, family } of cidrs) list.addSubnet(address, prefix, family);
  return list;
}

const RANGES = REFUSED_RANGES.map(([kind, cidrs]) => ({ kind, list: blockListOf(cidrs.map(parseCidr)) }));

/**
 * The address a packet to `address` is delivered to, as `{ address, family }`: an IPv4-mapped
 * or NAT64 IPv6 address is the IPv4 address in its last 32 bits, so that `::ffff:127.0.0.1`
 * and `64:ff9b::a9fe:a9fe` are judged as 127.0.0.1 and 169.254.169.254.
 */
function effectiveAddress(address) {
  const plain = address.split('%')[0]; // a zone id (fe80::1%eth0) names an interface, not an address
  if (isIP(plain) === 4) return { address: plain, family: 'ipv4' };
  if (!EMBEDDING_IPV4.check(plain, 'ipv6')) return { address: plain, family: 'ipv6' };
  if (plain.includes('.')) return { address: plain.slice(plain.lastIndexOf(':') + 1), family: 'ipv4' };
  // Within a /96 the last two groups are the IPv4 address; `::` there stands for zeros.
  const [high, low] = plain.split(':').slice(-2).map((group) => parseInt(group || '0', 16));
  return { address: [high >> 8, high & 255, low >> 8, low & 255].join('.'), family: 'ipv4' };
}

const kindOf = (target) => RANGES.find(({ list }) => list.check(target.address, target.family))?.kind ?? null;

/** The kind of address `address` is when a callback may not reach it by default, or null for a public one. */
export function refusedKindOf(address) {
  return kindOf(effectiveAddress(address));
}

/**
 * The policy. `allowedCidrs` (parsed CALLBACK_ALLOWED_CIDRS) opens ranges that are refused by
 * default; `resolve` is dns.lookup (tests give it other answers). A metadata service stays
 * refused under a range that merely contains it (allowing a cluster's 100.64.0.0/10 must not
 * also hand a DFSP the node's credentials at 100.100.100.200): only an entry naming that
 * single address opens it.
 */
export function createDestinationPolicy({ allowedCidrs = [], resolve = dnsLookup } = {}) {
  const allowed = blockListOf(allowedCidrs);
  const allowedExactly = blockListOf(allowedCidrs.filter(({ prefix, family }) => prefix === (family === 'ipv4' ? 32 : 128)));

  /** A DestinationRefusedError when a callback may not connect to `address` (which `host` resolved to), else null. */
  function refusalOf(address, host = address) {
    const target = effectiveAddress(address);
    const kind = kindOf(target);
    if (kind === null) return null;
    if ((kind === 'metadata' ? allowedExactly : allowed).check(target.address, target.family)) return null;
    const what = host === address ? address : `${host} resolves to ${address}, which`;
    const unless = kind === 'metadata' ? `${ALLOW_SETTING} names that address` : `${ALLOW_SETTING} allows it`;
    return new DestinationRefusedError(kind, `${what} is ${DESCRIPTIONS[kind]}, not a callback destination unless ${unless}`);
  }

  /**
   * dns.lookup's signature, for net.connect's `lookup` option: resolves every address of the
   * name and fails with DestinationRefusedError if any of them is refused, since the socket
   * may try any of them. The socket then connects to what this returned, nothing else.
   */
  function lookup(hostname, options, callback) {
    resolve(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} resolves to no address`), { code: 'ENOTFOUND' }));
      for (const { address } of addresses) {
        const refusal = refusalOf(address, hostname);
        if (refusal) return callback(refusal);
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  }

  return { refusalOf, lookup };
}
