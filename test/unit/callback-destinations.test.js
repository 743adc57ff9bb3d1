// The callback destination policy: which addresses a callback may connect to, in every
// spelling an address has (IPv4, IPv6, IPv4-mapped, NAT64), what CALLBACK_ALLOWED_CIDRS opens,
// and the lookup that checks every address a name resolves to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../platform/config.js';
import { readDeliveryConfig } from '../../platform/delivery/config.js';
import {
  DestinationRefusedError, createDestinationPolicy, parseCidr, parseCidrList, refusedKindOf,
} from '../../platform/delivery/callback-destinations.js';

const REFUSED = {
  unspecified: ['0.0.0.0', '0.1.2.3', '::', '::ffff:0.0.0.0', '64:ff9b::'],
  loopback: ['127.0.0.1', '127.255.255.254', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::FFFF:7f00:1', '64:ff9b::127.0.0.1', '64:ff9b::7f00:1'],
  private: [
    '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.0.1', '192.168.255.255',
    'fc00::1', 'fd12:3456::1', 'fdff:ffff::1', 'fec0::1', '::ffff:10.1.2.3', '::ffff:ac10:1', '64:ff9b::c0a8:101', '64:ff9b::192.168.1.1',
  ],
  link_local: ['169.254.0.1', '169.254.255.255', 'fe80::1', 'febf:ffff::1', 'fe80::1%eth0', '::ffff:169.254.1.1', '64:ff9b::a9fe:101'],
  metadata: ['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16', '192.0.0.192', 'fd00:ec2::254', '::ffff:a9fe:a9fe', '64:ff9b::169.254.169.254'],
  carrier_grade_nat: ['100.64.0.1', '100.127.255.254', '::ffff:100.64.0.1', '64:ff9b::6440:1'],
  multicast: ['224.0.0.1', '239.255.255.255', 'ff02::1', 'ff0e::1', '::ffff:224.0.0.251'],
  broadcast: ['255.255.255.255', '::ffff:255.255.255.255'],
  reserved: ['240.0.0.1', '192.0.0.8', '::7f00:1', '::10.0.0.1', '64:ff9b:1::7f00:1', '2002:7f00:1::1', '2002:a00:1::'],
};
const PUBLIC = [
  '8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.1', '100.63.255.255', '100.128.0.1', '169.253.255.255', '169.255.0.1',
  '192.169.0.1', '223.255.255.255', '11.0.0.1', '2001:4860:4860::8888', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '64:ff9b::808:808',
  'fbff::1', 'fe00::1',
];

const allowing = (text) => createDestinationPolicy({ allowedCidrs: parseCidrList(text) });

test('every refused range is told apart, in IPv4, IPv6, IPv4-mapped and NAT64 spellings; public addresses pass', () => {
  for (const [kind, addresses] of Object.entries(REFUSED)) {
    for (const address of addresses) assert.equal(refusedKindOf(address), kind, address);
  }
  for (const address of PUBLIC) assert.equal(refusedKindOf(address), null, address);
});

test('without an allow-list every such address is refused with its kind and a reason naming the setting', () => {
  const policy = createDestinationPolicy();
  for (const [kind, addresses] of Object.entries(REFUSED)) {
    for (const address of addresses) {
      const refusal = policy.refusalOf(address);
      assert.ok(refusal instanceof DestinationRefusedError, address);
      assert.deepEqual([refusal.kind, refusal.code], [kind, 'CALLBACK_DESTINATION_REFUSED'], address);
      assert.match(refusal.message, /not a callback destination unless CALLBACK_ALLOWED_CIDRS/, address);
    }
  }
  for (const address of PUBLIC) assert.equal(policy.refusalOf(address), null, address);
  assert.equal(policy.refusalOf('10.0.0.5', 'dfsp.internal').message,
    'dfsp.internal resolves to 10.0.0.5, which is a private address, not a callback destination unless CALLBACK_ALLOWED_CIDRS allows it');
});

test('the allow-list opens exactly its ranges, whatever spelling the address comes in', () => {
  const policy = allowing('127.0.0.0/8, ::1, 10.20.0.0/16,fd00:1234::/32');
  for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1', '64:ff9b::7f00:1', '10.20.1.2', '::ffff:10.20.1.2', 'fd00:1234::5']) {
    assert.equal(policy.refusalOf(address), null, address);
  }
  for (const address of ['10.21.0.1', '192.168.1.1', 'fd00:1235::5', '169.254.1.1', '100.64.0.1', '0.0.0.0', '::']) {
    assert.ok(policy.refusalOf(address), address);
  }
});

test('a metadata address stays refused under a range that contains it; only an entry naming it opens it', () => {
  const broad = allowing('169.254.0.0/16,100.64.0.0/10,fd00::/8');
  assert.equal(broad.refusalOf('169.254.1.1'), null, 'the link-local range is open');
  for (const address of ['169.254.169.254', '100.100.100.200', 'fd00:ec2::254', '::ffff:169.254.169.254']) {
    assert.equal(broad.refusalOf(address)?.kind, 'metadata', address);
    assert.match(broad.refusalOf(address).message, /unless CALLBACK_ALLOWED_CIDRS names that address/);
  }
  const named = allowing('169.254.169.254/32,fd00:ec2::254');
  assert.equal(named.refusalOf('169.254.169.254'), null);
  assert.equal(named.refusalOf('fd00:ec2::254'), null);
  assert.equal(named.refusalOf('169.254.169.253')?.kind, 'link_local');
});

test('CIDR lists: ranges and single addresses, empty entries ignored, anything else refused at start-up', () => {
  assert.deepEqual(parseCidrList(' 10.0.0.0/8 ,, ::1 ,fd00::/8'), [
    { address: '10.0.0.0', prefix: 8, family: 'ipv4' }, { address: '::1', prefix: 128, family: 'ipv6' }, { address: 'fd00::', prefix: 8, family: 'ipv6' },
  ]);
  assert.deepEqual(parseCidrList(''), []);
  assert.deepEqual(parseCidr('127.0.0.1'), { address: '127.0.0.1', prefix: 32, family: 'ipv4' });
  for (const bad of ['10/8', '10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/8/8', 'localhost', '10.0.0.0/-1', '10.0.0.0/0x8']) {
    assert.throws(() => parseCidr(bad), /is not a CIDR range/, bad);
  }
  assert.deepEqual(readDeliveryConfig({}).allowedCidrs, [], 'nothing private allowed by default');
  assert.deepEqual(readDeliveryConfig({ CALLBACK_ALLOWED_CIDRS: '127.0.0.0/8,::1/128' }).allowedCidrs.map((c) => `${c.address}/${c.prefix}`),
    ['127.0.0.0/8', '::1/128']);
  assert.throws(() => readDeliveryConfig({ CALLBACK_ALLOWED_CIDRS: '10.0.0.0/8,intranet' }),
    (error) => error instanceof ConfigError && /CALLBACK_ALLOWED_CIDRS: "intranet" is not a CIDR range/.test(error.message));
});

/** A resolver with scripted answers, in dns.lookup's `all: true` shape. */
function scriptedResolver(answers) {
  const asked = [];
  const resolve = (hostname, options, callback) => {
    asked.push({ hostname, options });
    const answer = answers[hostname];
    if (!answer) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
    return callback(null, answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  };
  return { resolve, asked };
}

const lookupOf = (policy, hostname, options) => new Promise((resolve) => {
  policy.lookup(hostname, options, (error, address, family) => resolve({ error, address, family }));
});

test('the lookup asks for every address, refuses a name if any of them is refused, and answers in the shape asked for', async () => {
  const { resolve, asked } = scriptedResolver({
    'dfsp.example': ['203.0.113.10', '2001:db8::10'],
    'mixed.example': ['203.0.113.10', '127.0.0.1'],
    'rebind.example': ['::ffff:169.254.169.254'],
    'nothing.example': [],
  });
  const policy = createDestinationPolicy({ allowedCidrs: [], resolve });
  assert.deepEqual(await lookupOf(policy, 'dfsp.example', { family: 0 }), { error: null, address: '203.0.113.10', family: 4 });
  assert.deepEqual(asked[0], { hostname: 'dfsp.example', options: { family: 0, all: true } }, 'every address is asked for');
  const all = await lookupOf(policy, 'dfsp.example', { all: true });
  assert.deepEqual(all.address, [{ address: '203.0.113.10', family: 4 }, { address: '2001:db8::10', family: 6 }]);

  const mixed = await lookupOf(policy, 'mixed.example', { all: true });
  assert.ok(mixed.error instanceof DestinationRefusedError, 'one refused address refuses the name: the socket may try any of them');
  assert.equal(mixed.error.message, 'mixed.example resolves to 127.0.0.1, which is a loopback address, not a callback destination unless CALLBACK_ALLOWED_CIDRS allows it');
  assert.equal((await lookupOf(policy, 'rebind.example', {})).error.kind, 'metadata');
  assert.equal((await lookupOf(policy, 'nothing.example', {})).error.code, 'ENOTFOUND');
  assert.equal((await lookupOf(policy, 'unknown.example', {})).error.code, 'ENOTFOUND', 'a resolver error passes through as it is');
});

test('with the real resolver, localhost is refused unless loopback is allowed', async () => {
  const refused = await lookupOf(createDestinationPolicy(), 'localhost', {});
  assert.equal(refused.error?.kind, 'loopback');
  const allowed = await lookupOf(allowing('127.0.0.0/8,::1'), 'localhost', {});
  assert.equal(allowed.error, null);
  assert.equal(refusedKindOf(allowed.address), 'loopback');
});
