// ledger/ports/participant-directory.js against a real MariaDB: what other contexts may know of
// the ledger's participants (a name and whether it is active, nothing else), the states
// statement a context runs in its own transaction, joined with its own table, and the FXPs'
// pairs and active position currencies that /services/FXP decides on.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../support/environment.js';
import { runStatement } from '../../platform/db.js';
import {
  findFxpCandidates, findParticipantState, participantStatesFromRows, participantStatesStatementFor,
} from '../../ledger/ports/participant-directory.js';
import { insertAccounts, insertParticipant, setAccountsActive, setParticipantActive } from '../../ledger/repositories/participants.js';
import { insertCurrencyPair } from '../../ledger/repositories/currency-pairs.js';

const T0 = new Date('2030-05-01T09:00:00.000Z');

let env;
let db;

before(async () => {
  env = await createTestDatabase();
  db = env.db;
  await db.transaction(async (trx) => {
    for (const name of ['activefsp', 'ownerfsp']) await insertParticipant(trx, { name, createdBy: 'test', now: T0 });
    await setParticipantActive(trx, await insertParticipant(trx, { name: 'sleepyfsp', createdBy: 'test', now: T0 }), false);
    await insertParticipant(trx, { name: 'isofsp', apiType: 'ISO20022', createdBy: 'test', now: T0 });
  });
});
after(async () => {
  await env?.drop();
});

test('a participant is known by its name, active state and API type only; an unknown name is null', async () => {
  assert.deepEqual(await findParticipantState(db, 'activefsp'), { name: 'activefsp', isActive: true, apiType: 'FSPIOP' });
  assert.deepEqual(await findParticipantState(db, 'sleepyfsp'), { name: 'sleepyfsp', isActive: false, apiType: 'FSPIOP' });
  assert.deepEqual(await findParticipantState(db, 'isofsp'), { name: 'isofsp', isActive: true, apiType: 'ISO20022' });
  assert.equal(await findParticipantState(db, 'unknownfsp'), null);
});

test("the states statement reads named participants and those another context's rows name, in one statement", async () => {
  // Any table whose columns hold participant names will do: here the built-in oracle's parties.
  await db('oracle_party').insert([
    { party_id_type: 'MSISDN', party_identifier: '111', party_sub_id: '', fsp_id: 'ownerfsp' },
    { party_id_type: 'MSISDN', party_identifier: '222', party_sub_id: '', fsp_id: 'sleepyfsp' },
  ]);
  const select = participantStatesStatementFor({ table: 'oracle_party', keyColumn: 'party_identifier', nameColumns: ['fsp_id'] });
  const statesOf = async (names, keys) => [...participantStatesFromRows(await runStatement(db, select(names, keys))).entries()].sort();

  assert.deepEqual(await statesOf(['activefsp', 'unknownfsp', '', null], ['111', '222', '999']),
    [['activefsp', { isActive: true }], ['ownerfsp', { isActive: true }], ['sleepyfsp', { isActive: false }]]);
  assert.deepEqual(await statesOf([], ['111']), [['ownerfsp', { isActive: true }]]);
  assert.deepEqual(await statesOf(['sleepyfsp', 'sleepyfsp'], []), [['sleepyfsp', { isActive: false }]]);
  assert.equal(select([undefined, ''], []), null, 'nothing to read, no statement');
});

/** An FXP with accounts in `currencies` (POSITION accounts active in `active`) and `pairs`. */
async function fxpWith(name, { currencies, active = currencies, pairs, isActive = true }) {
  await db.transaction(async (trx) => {
    const participantId = await insertParticipant(trx, { name, createdBy: 'test', now: T0 });
    for (const currency of currencies) {
      const [positionId] = await insertAccounts(trx, { participantId, currency, types: ['POSITION', 'SETTLEMENT'], isActive: false, createdBy: 'test', now: T0 });
      if (active.includes(currency)) await setAccountsActive(trx, [positionId], true);
    }
    for (const [sourceCurrency, targetCurrency] of pairs) await insertCurrencyPair(trx, { participantId, sourceCurrency, targetCurrency, createdBy: 'test', now: T0 });
    if (!isActive) await setParticipantActive(trx, participantId, false);
  });
}

test('the FXP candidates: every participant with a pair, or with the pair asked, its active state and active position currencies', async () => {
  await fxpWith('fxpone', { currencies: ['USD', 'EUR'], pairs: [['USD', 'EUR'], ['EUR', 'USD']] });
  await fxpWith('fxptwo', { currencies: ['USD', 'EUR'], active: ['USD'], pairs: [['USD', 'EUR']], isActive: false });
  await fxpWith('fxpthree', { currencies: ['EUR', 'KES'], pairs: [['EUR', 'KES']] });
  await fxpWith('nopairs', { currencies: ['USD', 'EUR'], pairs: [] });
  const sorted = (candidates) => candidates.map((candidate) => ({ ...candidate, activePositionCurrencies: [...candidate.activePositionCurrencies].sort() }));

  assert.deepEqual(sorted(await findFxpCandidates(db, { sourceCurrency: 'USD', targetCurrency: 'EUR' })), [
    { name: 'fxpone', isActive: true, pairs: [{ sourceCurrency: 'USD', targetCurrency: 'EUR' }], activePositionCurrencies: ['EUR', 'USD'] },
    { name: 'fxptwo', isActive: false, pairs: [{ sourceCurrency: 'USD', targetCurrency: 'EUR' }], activePositionCurrencies: ['USD'] },
  ]);
  assert.deepEqual((await findFxpCandidates(db)).map((candidate) => [candidate.name, candidate.pairs.length]),
    [['fxpone', 2], ['fxpthree', 1], ['fxptwo', 1]], 'every FXP, none without a pair');
  assert.deepEqual(await findFxpCandidates(db, { sourceCurrency: 'KES', targetCurrency: 'EUR' }), []);
});
