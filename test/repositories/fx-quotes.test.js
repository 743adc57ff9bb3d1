// quoting/repositories/fx-quotes.js's statements against a real MariaDB, run as the handler
// runs them (platform/db.js inTransaction): what insertFxQuotes stores and selectFxQuotes maps
// back, what updateFxQuotes changes, and the parties' conversion facts read through the
// ledger's port (states, active position currencies, currency pairs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, testConfig } from '../support/environment.js';
import { createSqlPool, inTransaction } from '../../platform/db.js';
import { QUOTE_STATE } from '../../quoting/domain/quotes.js';
import {
  fxPartiesFromRows, fxQuotesFromRows, insertFxQuotes, selectFxParties, selectFxQuotes, updateFxQuotes,
} from '../../quoting/repositories/fx-quotes.js';
import { insertAccounts, insertParticipant, setAccountsActive, setParticipantActive } from '../../ledger/repositories/participants.js';
import { insertCurrencyPair } from '../../ledger/repositories/currency-pairs.js';

const NOW = new Date('2030-05-01T09:00:00.000Z');
const ACCEPTED_AT = 1_900_000_000_123;

let env;
let pool;

async function participant(name, currencies, { pairs = [], inactivePositions = [], isActive = true } = {}) {
  const { db } = env;
  const participantId = await insertParticipant(db, { name, createdBy: 'test', now: NOW });
  for (const currency of currencies) {
    const [positionId] = await insertAccounts(db, { participantId, currency, types: ['POSITION', 'SETTLEMENT'], isActive: true, createdBy: 'test', now: NOW });
    if (inactivePositions.includes(currency)) await setAccountsActive(db, [positionId], false);
  }
  for (const [sourceCurrency, targetCurrency] of pairs) await insertCurrencyPair(db, { participantId, sourceCurrency, targetCurrency, createdBy: 'test', now: NOW });
  if (!isActive) await setParticipantActive(db, participantId, false);
}

before(async () => {
  env = await createTestDatabase();
  pool = createSqlPool(testConfig().db, { database: env.name });
  await participant('payerfsp', ['USD']);
  await participant('fxp', ['USD', 'EUR'], { pairs: [['USD', 'EUR'], ['EUR', 'USD']], inactivePositions: [] });
  await participant('halffxp', ['USD', 'EUR'], { pairs: [['USD', 'EUR']], inactivePositions: ['EUR'] });
  await participant('sleepyfsp', [], { isActive: false });
});
after(async () => {
  await pool?.end();
  await env?.drop();
});

const read = (statements) => inTransaction(pool, (tx) => tx.read(...statements));

test('the parties\' conversion facts: states, active position currencies and pairs; a participant without accounts still has its state', async () => {
  const [factRows, stateRows] = await read(selectFxParties(['payerfsp', 'fxp', 'halffxp', 'sleepyfsp', 'ghostfsp', ''], []));
  const parties = fxPartiesFromRows(factRows, stateRows);
  const sorted = (facts) => ({ ...facts, activePositionCurrencies: [...facts.activePositionCurrencies].sort() });
  assert.deepEqual(sorted(parties.get('payerfsp')), { isActive: true, activePositionCurrencies: ['USD'], pairs: [] });
  assert.deepEqual(sorted(parties.get('fxp')).activePositionCurrencies, ['EUR', 'USD']);
  assert.deepEqual(new Set(parties.get('fxp').pairs.map((pair) => `${pair.sourceCurrency}>${pair.targetCurrency}`)), new Set(['USD>EUR', 'EUR>USD']));
  assert.deepEqual(parties.get('halffxp').activePositionCurrencies, ['USD'], 'an inactive position account does not count');
  assert.deepEqual(parties.get('sleepyfsp'), { isActive: false, activePositionCurrencies: [], pairs: [] });
  assert.equal(parties.has('ghostfsp'), false);
});

test('an fx quote stored, read back locked with its parties\' states, and answered', async () => {
  const id = randomUUID();
  const fxQuote = {
    conversionRequestId: id, initiatingFsp: 'payerfsp', counterPartyFsp: 'fxp', state: QUOTE_STATE.forwarded, requestHash: 'h1',
    requestAt: ACCEPTED_AT, answerHash: null, answerAt: null, answer: null,
    request: { headers: { 'fspiop-source': 'payerfsp' }, rawBody: '{ "conversionRequestId" : "x" }', sourceCurrency: 'USD', targetCurrency: 'EUR' },
  };
  await inTransaction(pool, async (tx) => { tx.write(insertFxQuotes([fxQuote], NOW)); });
  const rawAnswer = '{"conversionTerms": {"note":"café"},  "condition":"c"}';
  const changes = { state: QUOTE_STATE.answered, answerHash: 'h2', answerAt: ACCEPTED_AT + 1, answer: { headers: { 'fspiop-source': 'fxp' }, rawBody: rawAnswer, errorCode: null } };
  await inTransaction(pool, async (tx) => {
    const [rows, factRows, stateRows] = await tx.read(selectFxQuotes([id], { forUpdate: true }), ...selectFxParties([], [id]));
    const { request, ...withoutRequest } = fxQuote;
    assert.ok(request, 'the request is stored but no decision reads it back');
    assert.deepEqual(fxQuotesFromRows(rows).get(id), withoutRequest);
    assert.equal(factRows, undefined);
    const parties = fxPartiesFromRows(factRows, stateRows);
    assert.deepEqual([parties.get('payerfsp'), parties.get('fxp')], [{ isActive: true }, { isActive: true }]);
    tx.write(...updateFxQuotes([{ conversionRequestId: id, changes }], NOW));
  });
  const [rows] = await read([selectFxQuotes([id])]);
  const stored = fxQuotesFromRows(rows).get(id);
  assert.deepEqual([stored.state, stored.answerHash, stored.answerAt, stored.answer.rawBody, stored.answer.headers], ['ANSWERED', 'h2', ACCEPTED_AT + 1, rawAnswer, { 'fspiop-source': 'fxp' }]);
  const row = await env.db('fx_quote').where({ conversion_request_id: id }).first();
  assert.deepEqual([row.source_currency, row.target_currency, row.request_body], ['USD', 'EUR', fxQuote.request.rawBody]);
});
