// What the switch reads of an ILP packet's transaction for the operators' searches: the quote
// and both parties as the payee's DFSP wrote them, and nothing (never an error) from a packet
// that does not decode.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { partyKey, searchKeysOfIlpPacket, transactionOfIlpPacket } from '../../platform/fspiop/ilp-transaction.js';
import { quoteIlp } from '../../perf/simulators/payee-ilp.js';

const expiration = new Date(Date.now() + 60000).toISOString();
const party = (partyIdentifier) => ({ partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier, fspId: 'somefsp' } });

test("a packet's transaction gives the quote id and both parties as search keys", () => {
  const transaction = { quoteId: 'b51ec534-ee48-4575-b6a9-ead2955b8069', payer: party('27710000001'), payee: party('27710000002') };
  const { ilpPacket } = quoteIlp({ secret: 's', transferId: 't1', amount: '10', currency: 'USD', payeeAddress: 'g.payee', expiration, transaction });
  assert.equal(transactionOfIlpPacket(ilpPacket).transactionId, 't1');
  assert.deepEqual(searchKeysOfIlpPacket(ilpPacket), { quoteId: transaction.quoteId, payerParty: 'MSISDN:27710000001', payeeParty: 'MSISDN:27710000002' });
});

test('a packet without a transaction, or that does not decode, gives no keys', () => {
  const { ilpPacket } = quoteIlp({ secret: 's', transferId: 't1', amount: '10', currency: 'USD', payeeAddress: 'g.payee', expiration });
  const none = { quoteId: null, payerParty: null, payeeParty: null };
  assert.deepEqual(searchKeysOfIlpPacket(ilpPacket), none);
  assert.deepEqual(searchKeysOfIlpPacket('AYIBgQAAAAAAAAPoFGcuc2ltcGxlLnBheWVlLm1zaXNkbg'), none);
  assert.deepEqual(searchKeysOfIlpPacket(undefined), none);
});

test('a party key is its type and identifier, at most the column\'s 160 characters, or null without both', () => {
  assert.equal(partyKey({ partyIdType: 'MSISDN', partyIdentifier: '123' }), 'MSISDN:123');
  assert.equal(partyKey({ partyIdType: 'ACCOUNT_ID', partyIdentifier: 'x'.repeat(128) }).length, 139);
  assert.equal(partyKey({ partyIdType: 'T'.repeat(32), partyIdentifier: 'x'.repeat(128) }).length, 160);
  assert.equal(partyKey({ partyIdType: 'MSISDN' }), null);
  assert.equal(partyKey(undefined), null);
});
