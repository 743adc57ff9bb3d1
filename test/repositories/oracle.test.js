// account-lookup/oracle/repository.js (the built-in oracle's oracle_party table) against a
// real MariaDB: lookups by type, identifier and sub-id with the currency rule, who may own a
// party (a registration never takes a party from the DFSP that serves it; the bulk loader
// and the oracle API's PUT do), the answers registerParties gives, also to two DFSPs racing,
// and the literal-SQL bulk statement's escaping. Each test uses identifiers of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { createTestDatabase } from '../support/environment.js';
import {
  countParties, deleteParty, findParty, registerParties, upsertDecimalIdentifiers, upsertParties,
} from '../../account-lookup/oracle/repository.js';

let env;
let db;

before(async () => {
  env = await createTestDatabase();
  db = env.db;
});
after(async () => { await env?.drop(); });

/** A fresh MSISDN-like identifier, so tests never see each other's parties. */
const msisdn = () => `4670${randomInt(10_000_000, 99_999_999)}`;
const party = (fields) => ({ type: 'MSISDN', id: msisdn(), ...fields });
/** The lookup of a party by its key alone (no currency filter). */
const lookup = ({ type, id, subId }) => findParty(db, { type, id, subId });

test('findParty answers as an oracle does: the DFSP, its currency and sub-id when stored, or null', async () => {
  const plain = party({ fspId: 'dfspa', currency: 'USD' });
  const withSubId = { ...plain, subId: 'savings', fspId: 'dfspb', currency: undefined };
  await upsertParties(db, [plain, withSubId]);

  assert.deepEqual(await findParty(db, { type: 'MSISDN', id: plain.id }), { fspId: 'dfspa', currency: 'USD' });
  assert.deepEqual(await findParty(db, { type: 'MSISDN', id: plain.id, subId: 'savings' }), { fspId: 'dfspb', partySubIdOrType: 'savings' },
    'a sub-id is a party of its own, and no currency means no currency key');
  assert.equal(await findParty(db, { type: 'MSISDN', id: plain.id, subId: 'current' }), null);
  assert.equal(await findParty(db, { type: 'EMAIL', id: plain.id }), null, 'the type is part of the key');
  assert.equal(await findParty(db, { type: 'MSISDN', id: msisdn() }), null);

  assert.deepEqual(await findParty(db, { type: 'MSISDN', id: plain.id, currency: 'USD' }), { fspId: 'dfspa', currency: 'USD' });
  assert.equal(await findParty(db, { type: 'MSISDN', id: plain.id, currency: 'EUR' }), null, 'registered for another currency: no match');
  assert.deepEqual(await findParty(db, { type: 'MSISDN', id: plain.id, subId: 'savings', currency: 'EUR' }), { fspId: 'dfspb', partySubIdOrType: 'savings' },
    'a party registered without a currency matches any');
});

test('upsertParties never takes a party from its DFSP; only that DFSP may change its currency; setOwner moves it', async () => {
  const owned = party({ fspId: 'dfspa', currency: 'USD' });
  await upsertParties(db, [owned]);

  await upsertParties(db, [{ ...owned, fspId: 'dfspb', currency: 'EUR' }]);
  assert.deepEqual(await lookup(owned), { fspId: 'dfspa', currency: 'USD' }, "another DFSP's registration changes nothing");

  await upsertParties(db, [{ ...owned, currency: 'EUR' }]);
  assert.deepEqual(await lookup(owned), { fspId: 'dfspa', currency: 'EUR' }, "the owner's repeat changes the currency");

  await upsertParties(db, [{ ...owned, fspId: 'dfspb', currency: 'KES' }], { setOwner: true });
  assert.deepEqual(await lookup(owned), { fspId: 'dfspb', currency: 'KES' });
  await upsertParties(db, []);
});

test('registerParties answers each party in order: registered, or served by whom', async () => {
  const taken = party({ fspId: 'dfspa' });
  await upsertParties(db, [taken]);
  const fresh = party({ fspId: 'dfspb', currency: 'USD' });
  const ownRepeat = { ...taken, fspId: 'dfspa', currency: 'USD' };

  const answers = await registerParties(db, [{ ...taken, fspId: 'dfspb' }, fresh, ownRepeat]);
  assert.deepEqual(answers, [{ registered: false, servedBy: 'dfspa' }, { registered: true }, { registered: true }]);
  assert.deepEqual(await lookup(fresh), { fspId: 'dfspb', currency: 'USD' });
  assert.deepEqual(await lookup(taken), { fspId: 'dfspa', currency: 'USD' });
});

test('two DFSPs registering the same new party at once: exactly one gets it, the other is told who', async () => {
  const contested = party({});
  const [a, b] = await Promise.all([
    registerParties(db, [{ ...contested, fspId: 'dfspa' }]),
    registerParties(db, [{ ...contested, fspId: 'dfspb' }]),
  ]);
  const { fspId: owner } = await lookup(contested);
  const winners = [['dfspa', a[0]], ['dfspb', b[0]]].filter(([, answer]) => answer.registered);
  assert.deepEqual(winners.map(([fsp]) => fsp), [owner], 'the one answered "registered" is the one stored');
  const loser = [['dfspa', a[0]], ['dfspb', b[0]]].find(([, answer]) => !answer.registered);
  assert.deepEqual(loser[1], { registered: false, servedBy: owner });
});

test('upsertDecimalIdentifiers writes many identifiers in one statement, taking them over, with its constants escaped', async () => {
  const fspId = "dfsp'q\\x";
  const identifiers = Array.from({ length: 250 }, () => msisdn());
  await upsertParties(db, [{ type: 'MSISDN', id: identifiers[0], fspId: 'previous', currency: 'USD' }]);

  await upsertDecimalIdentifiers(db, { type: 'MSISDN', fspId, currency: 'EUR' }, identifiers);
  assert.equal(await countParties(db, { fspId }), new Set(identifiers).size);
  assert.deepEqual(await findParty(db, { type: 'MSISDN', id: identifiers[0] }), { fspId, currency: 'EUR' }, 'the bulk load sets the owner');
  assert.equal(await countParties(db, { fspId: 'previous' }), 0);

  const subId = "it's";
  await upsertDecimalIdentifiers(db, { type: 'MSISDN', subId, fspId: 'dfspc' }, [identifiers[1]]);
  assert.deepEqual(await findParty(db, { type: 'MSISDN', id: identifiers[1], subId }), { fspId: 'dfspc', partySubIdOrType: subId });
});

test('upsertDecimalIdentifiers refuses an identifier that is not decimal digits and writes none of the chunk', async () => {
  const good = msisdn();
  await assert.rejects(upsertDecimalIdentifiers(db, { type: 'MSISDN', fspId: 'dfspd' }, [good, "1' OR '1'='1"]), TypeError);
  assert.equal(await findParty(db, { type: 'MSISDN', id: good }), null);
  assert.equal(await countParties(db, { fspId: 'dfspd' }), 0);
});

test('deleteParty removes exactly the party with that type, identifier and sub-id; countParties counts by DFSP', async () => {
  const id = msisdn();
  await upsertParties(db, [
    { type: 'MSISDN', id, fspId: 'dfspe' }, { type: 'MSISDN', id, subId: 'savings', fspId: 'dfspe' }, { type: 'ACCOUNT_ID', id, fspId: 'dfspe' },
  ]);
  const total = await countParties(db);
  assert.equal(await countParties(db, { fspId: 'dfspe' }), 3);

  await deleteParty(db, { type: 'MSISDN', id });
  assert.equal(await findParty(db, { type: 'MSISDN', id }), null);
  assert.deepEqual(await findParty(db, { type: 'MSISDN', id, subId: 'savings' }), { fspId: 'dfspe', partySubIdOrType: 'savings' });
  assert.deepEqual(await findParty(db, { type: 'ACCOUNT_ID', id }), { fspId: 'dfspe' });
  assert.equal(await countParties(db, { fspId: 'dfspe' }), 2);
  assert.equal(await countParties(db), total - 1);
});
