// The portal's own computations, which the browser runs: decimal amounts without Number, the
// standing of a DFSP from the admin API's answers, settlement rows and their CSV, and the
// forwarder's URLs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, createHash } from 'node:crypto';
import { add, compare, formatAmount, isAmount, negate, percentOf, subtract } from '../../portal/app/money.js';
import { byHeadroomUsed, headroomOf, standingOf } from '../../portal/app/views/positions.js';
import { accountOwners, nextAccountState, settlementCsv, settlementRows } from '../../portal/app/views/settlement-model.js';
import { keyFingerprint, newUuid } from '../../portal/app/ids.js';
import { upstreamUrl } from '../../portal/server/forward.js';

test('amounts add and subtract exactly, past what a Number holds', () => {
  assert.equal(add('0.1', '0.2'), '0.3');
  assert.equal(subtract('10000', '4815.5'), '5184.5');
  assert.equal(add('99999999999999.9999', '0.0001'), '100000000000000');
  assert.equal(negate('-4815'), '4815');
  assert.equal(compare('2.50', '2.5'), 0);
  assert.equal(compare('-1', '0'), -1);
  assert.equal(formatAmount('1234567.5'), '1,234,567.5');
  assert.equal(formatAmount('-1000'), '-1,000');
  assert.equal(formatAmount(null), '—');
  assert.equal(isAmount('1.23456'), false);
  assert.throws(() => add('1e3', '1'), /not an amount/);
});

test('the share of a cap used is a percentage, zero for a zero cap', () => {
  assert.equal(percentOf('2500', '10000'), 25);
  assert.equal(percentOf('1', '3'), 33.33);
  assert.equal(percentOf('5', '0'), 0);
});

const participant = { name: 'payerfsp', isActive: '1' };
const accounts = [
  { id: '3', ledgerAccountType: 'POSITION', currency: 'USD', isActive: '1', value: '2500', reservedValue: '10' },
  { id: '4', ledgerAccountType: 'SETTLEMENT', currency: 'USD', isActive: '1', value: '-5000', reservedValue: '0' },
  { id: '9', ledgerAccountType: 'POSITION', currency: 'EUR', isActive: '0', value: '-20', reservedValue: '0' },
];
const limits = [{ name: 'payerfsp', currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: '10000' } }, { name: 'other', currency: 'EUR', limit: { type: 'NET_DEBIT_CAP', value: '1' } }];

test("a DFSP's standing per currency: position, cap, headroom, liquidity cover and flags", () => {
  const [usd, eur] = standingOf(participant, accounts, limits);
  assert.deepEqual({ ...usd }, {
    name: 'payerfsp', currency: 'USD', participantActive: true, accountActive: true, positionAccountId: '3', settlementAccountId: '4',
    position: '2500', reserved: '10', ndc: '10000', liquidity: '5000', headroom: '2500', usedPercent: 50,
  });
  assert.equal(eur.ndc, null, "another DFSP's cap is not this one's");
  assert.equal(eur.headroom, null, 'neither a cap nor a cover: no headroom to show');
  assert.equal(eur.usedPercent, 0);
  assert.equal(eur.accountActive, false);
  assert.equal(eur.liquidity, null);
});

test('headroom is what a DFSP can still pay: the lower of its cap and its cover, less its position', () => {
  assert.deepEqual(headroomOf('2500', '10000', '5000'), { headroom: '2500', usedPercent: 50 });
  assert.deepEqual(headroomOf('2500', '4000', '5000'), { headroom: '1500', usedPercent: 62.5 });
  assert.deepEqual(headroomOf('-20', null, '100'), { headroom: '120', usedPercent: 0 });
  assert.deepEqual(headroomOf('1', null, null), { headroom: null, usedPercent: 0 });
});

test('DFSPs nearest their cap come first', () => {
  const rows = [{ name: 'a', currency: 'USD', usedPercent: 10 }, { name: 'b', currency: 'USD', usedPercent: 90 }, { name: 'c', currency: 'EUR', usedPercent: 10 }];
  assert.deepEqual(rows.sort(byHeadroomUsed).map((row) => row.name), ['b', 'a', 'c']);
});

test('a settlement account moves one state at a time, and no further than SETTLED', () => {
  assert.equal(nextAccountState('PENDING_SETTLEMENT'), 'PS_TRANSFERS_RECORDED');
  assert.equal(nextAccountState('PS_TRANSFERS_COMMITTED'), 'SETTLED');
  assert.equal(nextAccountState('SETTLED'), null);
  assert.equal(nextAccountState('ABORTED'), null);
});

test("a settlement's rows name each account's DFSP, and its CSV quotes what needs quoting", () => {
  const owners = accountOwners([{ name: 'payerfsp', accounts }, { name: 'pay,ee"fsp', accounts: [{ id: '5', currency: 'USD' }] }]);
  const settlement = {
    id: '7', state: 'PENDING_SETTLEMENT',
    participants: [
      { id: '2', accounts: [{ id: '3', state: 'PENDING_SETTLEMENT', netSettlementAmount: { amount: '185', currency: 'USD' } }] },
      { id: '3', accounts: [{ id: '5', state: 'PS_TRANSFERS_RECORDED', netSettlementAmount: { amount: '-185', currency: 'USD' } }] },
    ],
  };
  const rows = settlementRows(settlement, owners);
  assert.deepEqual(rows.map((row) => [row.name, row.participantId, row.accountId, row.currency, row.netAmount, row.state]), [
    ['payerfsp', '2', '3', 'USD', '185', 'PENDING_SETTLEMENT'],
    ['pay,ee"fsp', '3', '5', 'USD', '-185', 'PS_TRANSFERS_RECORDED'],
  ]);
  assert.equal(settlementCsv(settlement, rows), 'settlementId,settlementState,dfsp,participantId,accountId,currency,netAmount,accountState\n'
    + '7,PENDING_SETTLEMENT,payerfsp,2,3,USD,185,PENDING_SETTLEMENT\n7,PENDING_SETTLEMENT,"pay,ee""fsp",3,5,USD,-185,PS_TRANSFERS_RECORDED\n');
});

test('an idempotency key is a fresh version 4 UUID', () => {
  const keys = new Set(Array.from({ length: 100 }, newUuid));
  assert.equal(keys.size, 100);
  for (const key of keys) assert.match(key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
});

test("a JWS key's fingerprint is the SHA-256 of its DER", async () => {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const pem = publicKey.export({ type: 'spki', format: 'pem' });
  const expected = createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex').toUpperCase().match(/../g).join(':');
  assert.equal(await keyFingerprint(pem), expected);
});

test('the forwarder keeps the path and query the browser sent, under the API base', () => {
  const url = new URL('http://portal/api/settlement/v2/settlementWindows?state=OPEN&x=%2F');
  assert.equal(upstreamUrl('http://settlement:3007/', 'settlement', url), 'http://settlement:3007/v2/settlementWindows?state=OPEN&x=%2F');
  assert.equal(upstreamUrl('http://admin:3001', 'admin', new URL('http://portal/api/admin')), 'http://admin:3001/');
});
