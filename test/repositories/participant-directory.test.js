// ledger/ports/participant-directory.js against a real MariaDB: what other contexts may know of
// the ledger's participants (a name and whether it is active, nothing else), and the states
// statement a context runs in its own transaction, joined with its own table.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase } from '../support/environment.js';
import { runStatement } from '../../platform/db.js';
import {
  findParticipantState, participantStatesFromRows, participantStatesStatementFor,
} from '../../ledger/ports/participant-directory.js';
import { insertParticipant, setParticipantActive } from '../../ledger/repositories/participants.js';

const T0 = new Date('2030-05-01T09:00:00.000Z');

let env;
let db;

before(async () => {
  env = await createTestDatabase();
  db = env.db;
  await db.transaction(async (trx) => {
    for (const name of ['activefsp', 'ownerfsp']) await insertParticipant(trx, { name, createdBy: 'test', now: T0 });
    await setParticipantActive(trx, await insertParticipant(trx, { name: 'sleepyfsp', createdBy: 'test', now: T0 }), false);
  });
});
after(async () => {
  await env?.drop();
});

test('a participant is known by its name and active state only; an unknown name is null', async () => {
  assert.deepEqual(await findParticipantState(db, 'activefsp'), { name: 'activefsp', isActive: true });
  assert.deepEqual(await findParticipantState(db, 'sleepyfsp'), { name: 'sleepyfsp', isActive: false });
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
