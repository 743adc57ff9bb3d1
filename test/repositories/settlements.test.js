// ledger/repositories/settlements.js against a real MariaDB, driven through the settlement
// API's changes (settlement-updates.js) without HTTP: the sums a settlement nets are those of
// exactly the content it takes, a PUT writes each account's own state, reason and external
// reference, and the number of statements a settlement's life issues (created, moved through
// every state, settled or aborted) does not grow with the number of windows it covers, nor,
// apart from the position resets (positions.js), with the number of its accounts. Statements
// are counted with knex's query events. Each test closes windows of its own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase } from '../support/environment.js';
import { amountToColumn } from '../../ledger/domain/money.js';
import { decideCloseWindow } from '../../ledger/domain/settlement-windows.js';
import { SETTLEMENT_STATE as S, closedWindowContent } from '../../ledger/domain/settlements.js';
import { insertSettlementModel, listSettlementModels } from '../../ledger/repositories/onboarding.js';
import {
  closeWindowAndOpenNext, findSettlement, findSettlements, findWindow, findWindows, openWindowId, transferSumsOfContent, windowTotals,
} from '../../ledger/repositories/settlements.js';
import { abortSettlement, createSettlement, updateAccounts } from '../../ledger/settlement-api/settlement-updates.js';
import { CURRENCY, HUB_NAME, onboardDfsp, onboardHub, units } from './fixtures.js';

const T0 = new Date('2030-05-01T08:00:00.000Z');
const MODEL = 'DEFERREDNETUSD';

let env;
let db;
let deps;
let dfsps;

before(async () => {
  env = await createTestDatabase();
  db = env.db;
  const hub = await onboardHub(db, { now: T0 });
  await insertSettlementModel(db, {
    name: MODEL, settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED', currency: CURRENCY,
    requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  }, T0);
  dfsps = [];
  for (let index = 1; index <= 5; index += 1) dfsps.push(await onboardDfsp(db, { name: `setfsp${index}`, hub, now: T0 }));
  let tick = 0;
  deps = { db, config: { hubName: HUB_NAME }, clock: () => new Date(T0.getTime() + 1000 * (tick += 1)) };
});
after(async () => { await env?.drop(); });

/** A transfer of `amount` from payer to payee, as the position handler records it in the open window. */
const payment = (payer, payee, amount) => ({ payer, payee, amount });

/** Records `payments` in the open window and closes it as POST /settlementWindows/{id} does; returns its id. */
function closedWindowHolding(payments, { grossSettledIndexes = [] } = {}) {
  return db.transaction(async (trx) => {
    const id = await openWindowId(trx, { forUpdate: true });
    await trx('settlement_window_transfer').insert(payments.map((item, index) => ({
      transfer_id: randomUUID(), settlement_window_id: id, payer_account_id: item.payer.positionAccountId, payee_account_id: item.payee.positionAccountId,
      currency: CURRENCY, amount: amountToColumn(units(item.amount)), committed_at: T0, gross_settled_at: grossSettledIndexes.includes(index) ? T0 : null,
    })));
    const decision = decideCloseWindow({ id, window: await findWindow(trx, id), openWindowId: id, transferCount: payments.length });
    assert.equal(decision.ok, true);
    const contentRows = closedWindowContent({ unsettledTotals: await windowTotals(trx, id, { grossSettled: false }), models: await listSettlementModels(trx) });
    await closeWindowAndOpenNext(trx, { id, closedState: decision.closedState, openState: decision.nextState, reason: 'test', contentRows, now: T0 });
    return id;
  });
}

/** Payments around a ring of `count` DFSPs: each account of the settlement has a net. */
const ring = (count, amount = '10') => Array.from({ length: count }, (unused, index) => payment(dfsps[index], dfsps[(index + 1) % count], `${amount}.${index + 1}`));

/** Runs `work` and counts the statements knex sends meanwhile (nothing else runs on `db` during a test). */
async function countingStatements(work) {
  const statements = [];
  const listener = (query) => statements.push(query.sql);
  db.on('query', listener);
  try {
    const result = await work();
    return { result, count: statements.length, statements };
  } finally {
    db.off('query', listener);
  }
}

const created = (windowIds) => createSettlement(deps, { settlementModel: MODEL, reason: 'test', settlementWindows: windowIds.map((id) => ({ id: String(id) })) });

const everyAccountTo = (settlement, state) => [...settlement.accounts.values()].map((account) => ({
  participantId: account.participantId, accountId: account.accountId, state, reason: `to ${state}`,
}));

/**
 * A settlement over `windowCount` windows of payments among `dfspCount` DFSPs, created and
 * moved through every state to SETTLED; returns the statements each step issued.
 */
async function settledLife({ windowCount, dfspCount }) {
  const windowIds = [];
  for (let index = 0; index < windowCount; index += 1) windowIds.push(await closedWindowHolding(ring(dfspCount)));
  const steps = { create: await countingStatements(() => created(windowIds)) };
  assert.equal(steps.create.result.state, S.pendingSettlement, JSON.stringify(steps.create.result));
  const id = steps.create.result.id;
  for (const state of [S.recorded, S.reserved, S.committed, S.settled]) {
    const settlement = await findSettlement(db, id);
    steps[state] = await countingStatements(() => updateAccounts(deps, id, everyAccountTo(settlement, state)));
    assert.equal(steps[state].result.state, state);
  }
  const windows = await findWindows(db, { ids: windowIds });
  assert.deepEqual(windows.map((window) => [window.state, window.content.map((content) => content.state)]), windowIds.map(() => [S.settled, [S.settled]]));
  return steps;
}

/** A settlement over `windowCount` windows, moved to PS_TRANSFERS_RECORDED and aborted; returns each step's statements. */
async function abortedLife({ windowCount, dfspCount }) {
  const windowIds = [];
  for (let index = 0; index < windowCount; index += 1) windowIds.push(await closedWindowHolding(ring(dfspCount)));
  const steps = { create: await countingStatements(() => created(windowIds)) };
  const id = steps.create.result.id;
  steps[S.recorded] = await countingStatements(async () => updateAccounts(deps, id, everyAccountTo(await findSettlement(db, id), S.recorded)));
  steps.abort = await countingStatements(() => abortSettlement(deps, id, { state: S.aborted, reason: 'test abort' }));
  assert.deepEqual(steps.abort.result, { id, state: S.aborted, reason: 'test abort' });
  const windows = await findWindows(db, { ids: windowIds });
  assert.ok(windows.every((window) => window.state === S.aborted && window.content.every((content) => content.state === S.aborted)));
  return steps;
}

const countsOf = (steps, names = Object.keys(steps)) => Object.fromEntries(names.map((name) => [name, steps[name].count]));

test('query events are counted, inside transactions too', async () => {
  const { count } = await countingStatements(() => db.transaction((trx) => trx('settlement').count({ n: '*' })));
  assert.ok(count >= 1, `${count} statements`);
});

test('a settlement over five windows issues as many statements at every step as one over a single window', async () => {
  const one = await settledLife({ windowCount: 1, dfspCount: 3 });
  const five = await settledLife({ windowCount: 5, dfspCount: 3 });
  assert.deepEqual(countsOf(five), countsOf(one), `one window:\n${one.create.statements.join('\n')}\nfive windows:\n${five.create.statements.join('\n')}`);
  const abortedOne = await abortedLife({ windowCount: 1, dfspCount: 3 });
  const abortedFive = await abortedLife({ windowCount: 5, dfspCount: 3 });
  assert.deepEqual(countsOf(abortedFive), countsOf(abortedOne));
});

test('a settlement of five accounts issues as many statements as one of two, apart from the position resets', async () => {
  const two = await settledLife({ windowCount: 2, dfspCount: 2 });
  const five = await settledLife({ windowCount: 2, dfspCount: 5 });
  // PS_TRANSFERS_COMMITTED resets positions through positions.js, which writes each position row on its own.
  const withoutResets = ['create', S.recorded, S.reserved, S.settled];
  assert.deepEqual(countsOf(five, withoutResets), countsOf(two, withoutResets));
  assert.deepEqual(countsOf(await abortedLife({ windowCount: 2, dfspCount: 5 })), countsOf(await abortedLife({ windowCount: 2, dfspCount: 2 })));
});

test('transferSumsOfContent sums the transfers of exactly the content asked for, per payer and payee, without those settled gross', async () => {
  const [a, b, c] = dfsps;
  const first = await closedWindowHolding([payment(a, b, '10'), payment(a, b, '5.5'), payment(b, c, '3'), payment(c, a, '100')], { grossSettledIndexes: [3] });
  const second = await closedWindowHolding([payment(a, b, '1'), payment(c, b, '2')]);
  const third = await closedWindowHolding([payment(b, a, '1000')]);
  const contentIds = (await findWindows(db, { ids: [first, second] })).flatMap((window) => window.content.map((content) => content.id));
  const sums = await transferSumsOfContent(db, contentIds);
  const byPair = new Map(sums.map((sum) => [`${sum.payerAccountId}>${sum.payeeAccountId}`, sum]));
  assert.equal(sums.length, 3, JSON.stringify(sums, (key, value) => (typeof value === 'bigint' ? `${value}` : value)));
  assert.equal(byPair.get(`${a.positionAccountId}>${b.positionAccountId}`).amount, units('16.5'), 'both windows\' a → b transfers');
  assert.equal(byPair.get(`${b.positionAccountId}>${c.positionAccountId}`).amount, units('3'));
  assert.equal(byPair.get(`${c.positionAccountId}>${b.positionAccountId}`).amount, units('2'));
  assert.ok(sums.every((sum) => sum.currency === CURRENCY));
  assert.deepEqual(await transferSumsOfContent(db, []), []);
  assert.ok(third > second, 'the third window is left out');
});

test('a PUT writes each account\'s own state, reason and external reference in one statement, and findSettlements reads as findSettlement does', async () => {
  const windowId = await closedWindowHolding(ring(3));
  const settlement = await created([windowId]);
  const [first, second, third] = settlement.participants.flatMap((participant) => participant.accounts.map((account) => ({ participantId: participant.id, accountId: account.id })));
  const { statements } = await countingStatements(() => updateAccounts(deps, settlement.id, [
    { ...first, state: S.recorded, reason: 'bank file 1', externalReference: 'ref-1' },
    { ...second, state: S.recorded, reason: 'bank file 2' },
    { ...third, state: S.pendingSettlement, reason: 'not yet', externalReference: 'ref-3' },
  ]));
  assert.equal(statements.filter((sql) => /^update `settlement_participant_account`/i.test(sql)).length, 1, statements.join('\n'));
  const read = await findSettlement(db, settlement.id);
  assert.deepEqual([first, second, third].map(({ accountId }) => {
    const account = read.accounts.get(accountId);
    return [account.state, account.reason, account.externalReference];
  }), [[S.recorded, 'bank file 1', 'ref-1'], [S.recorded, 'bank file 2', null], [S.pendingSettlement, 'not yet', 'ref-3']]);
  const journal = await db('settlement_participant_account_state_change').where({ settlement_id: settlement.id }).orderBy('id').select('account_id', 'state', 'reason', 'external_reference');
  assert.deepEqual(journal.slice(3).map((row) => [row.account_id, row.state, row.reason, row.external_reference]), [
    [first.accountId, S.recorded, 'bank file 1', 'ref-1'], [second.accountId, S.recorded, 'bank file 2', null], [third.accountId, S.pendingSettlement, 'not yet', 'ref-3'],
  ]);

  const other = await created([await closedWindowHolding(ring(2))]);
  const both = await findSettlements(db, [other.id, settlement.id]);
  assert.deepEqual(both, [await findSettlement(db, settlement.id), await findSettlement(db, other.id)], 'in id order, each as findSettlement reads it');
  assert.deepEqual(await findSettlements(db, []), []);
});
