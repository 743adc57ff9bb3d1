// The settlement API's whole decisions, without I/O: a new settlement (model, windows, the
// accounts it starts with), a window's content at close, a PUT (resets and the windows that
// follow a settlement reaching SETTLED), an abort, and how a settlement's windows follow it
// when it ends. Allowed and refused cases both; a step only a bug can ask for throws.
// Expected values are written out here, not derived from the domain's tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WINDOW_STATE as W, decideSettlementWindows, decideWindowsAfterSettlement } from '../../ledger/domain/settlement-windows.js';
import {
  SETTLEMENT_END_STATES, SETTLEMENT_STATE as S, closedWindowContent, decideNewSettlement, decideSettlementAbort, decideSettlementUpdate,
  grossSettlementChanges, grossSettlementPositionChanges, newSettlementAccounts, settlementPositionChanges, settlementResetChanges,
} from '../../ledger/domain/settlements.js';
import { FAILURE, isFailure } from '../../platform/domain/failures.js';

const model = (fields) => ({
  id: 1, name: 'DEFERREDNET', settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED',
  currency: null, isActive: true, autoPositionReset: true, ...fields,
});
const DEFAULT_NET = model({ id: 1, name: 'DEFERREDNET' });
const USD_NET = model({ id: 2, name: 'DEFERREDNETUSD', currency: 'USD' });
const EUR_GROSS = model({ id: 3, name: 'CGSEUR', settlementGranularity: 'GROSS', settlementDelay: 'IMMEDIATE', currency: 'EUR' });
const NO_RESET = model({ id: 4, name: 'NORESET', currency: 'XOF', autoPositionReset: false });
const MODELS = [DEFAULT_NET, USD_NET, EUR_GROSS, NO_RESET];

const content = (id, settlementWindowId, fields) => ({ id, settlementWindowId, currency: 'USD', settlementModelId: USD_NET.id, state: W.closed, settlementId: null, ...fields });

// ---------------------------------------------------------------------------------------------
// Which windows a settlement takes, and which of them move

test('a settlement moves its content and every window not pending already to PENDING_SETTLEMENT', () => {
  const windows = new Map([
    [1, { id: 1, state: W.closed, content: [content(11, 1)] }],
    [2, { id: 2, state: W.aborted, content: [content(21, 2, { state: W.aborted, settlementId: 7 })] }],
    [3, { id: 3, state: W.pendingSettlement, content: [content(31, 3, { currency: 'KES', settlementModelId: DEFAULT_NET.id, state: W.pendingSettlement, settlementId: 8 }), content(32, 3)] }],
  ]);
  const taken = decideSettlementWindows({ requestedIds: [3, 2, 1], windows, settles: (item) => item.settlementModelId === USD_NET.id });
  assert.equal(taken.state, W.pendingSettlement);
  assert.deepEqual(taken.windowIds, [1, 2, 3]);
  assert.deepEqual(taken.content.map((item) => item.id), [11, 21, 32]);
  assert.deepEqual(taken.movingWindowIds, [1, 2], 'window 3 is pending in settlement 8 already and stays as it is');
});

test('a new settlement: an unknown or gross model is refused before its windows are looked at, then the windows are checked', () => {
  const windows = new Map([[1, { id: 1, state: W.closed, content: [content(11, 1)] }], [2, { id: 2, state: W.open, content: [] }]]);
  const unknown = decideNewSettlement({ models: MODELS, modelName: 'NOPE', requestedIds: [2], windows });
  assert.deepEqual([unknown.code, unknown.detail], [FAILURE.settlementModelNotFound, 'Settlement model not found: NOPE']);
  const gross = decideNewSettlement({ models: MODELS, modelName: 'CGSEUR', requestedIds: [2], windows });
  assert.deepEqual([gross.code, gross.detail], [FAILURE.validation, 'Settlement can not be created for GROSS or IMMEDIATE models']);
  const open = decideNewSettlement({ models: MODELS, modelName: 'DEFERREDNETUSD', requestedIds: [1, 2], windows });
  assert.deepEqual([open.code, open.detail], [FAILURE.validation, 'Inapplicable windows 2']);
  const otherModel = decideNewSettlement({ models: MODELS, modelName: 'DEFERREDNET', requestedIds: [1], windows });
  assert.deepEqual([otherModel.code, otherModel.detail], [FAILURE.validation, 'Inapplicable windows 1'], 'content closed under another model is not taken');

  const created = decideNewSettlement({ models: MODELS, modelName: 'DEFERREDNETUSD', requestedIds: [1], windows });
  assert.equal(created.ok, true);
  assert.equal(created.model, USD_NET);
  assert.equal(created.state, 'PENDING_SETTLEMENT');
  assert.deepEqual([created.taken.windowIds, created.taken.content.map((item) => item.id), created.taken.movingWindowIds], [[1], [11], [1]]);
});

test('a new settlement\'s accounts start PENDING_SETTLEMENT with their owner and net amount', () => {
  const nets = [{ accountId: 5, currency: 'USD', netAmount: 100n }, { accountId: 9, currency: 'USD', netAmount: -100n }];
  assert.deepEqual(newSettlementAccounts({ nets, participantOfAccount: new Map([[5, 50], [9, 90]]) }), [
    { accountId: 5, currency: 'USD', netAmount: 100n, participantId: 50, state: 'PENDING_SETTLEMENT' },
    { accountId: 9, currency: 'USD', netAmount: -100n, participantId: 90, state: 'PENDING_SETTLEMENT' },
  ]);
});

// ---------------------------------------------------------------------------------------------
// A window's content at close

test('a closing window records CLOSED POSITION content per currency not settled gross, under the currency\'s model now', () => {
  const unsettledTotals = [
    { currency: 'USD', transferCount: 3, amount: 300n },
    { currency: 'EUR', transferCount: 1, amount: 10n },
    { currency: 'KES', transferCount: 2, amount: 20n },
  ];
  assert.deepEqual(closedWindowContent({ unsettledTotals, models: MODELS }), [
    { currency: 'USD', transferCount: 3, amount: 300n, settlementModelId: USD_NET.id, ledgerAccountType: 'POSITION', state: 'CLOSED' },
    { currency: 'KES', transferCount: 2, amount: 20n, settlementModelId: DEFAULT_NET.id, ledgerAccountType: 'POSITION', state: 'CLOSED' },
  ]);
  assert.deepEqual(closedWindowContent({ unsettledTotals: [], models: MODELS }), []);
  assert.throws(() => closedWindowContent({ unsettledTotals, models: [USD_NET] }), /no settlement model governs EUR/);
});

// ---------------------------------------------------------------------------------------------
// How windows follow a settlement that ends

/** Window 1 holds settlement 5's USD only; window 2 also EUR of settlement 6 (pending); window 3 also EUR settled already. */
function windowsOfSettlement5() {
  return [
    { id: 3, state: W.pendingSettlement, content: [content(31, 3, { state: W.pendingSettlement, settlementId: 5 }), content(32, 3, { currency: 'EUR', state: W.settled, settlementId: 4 })] },
    { id: 1, state: W.pendingSettlement, content: [content(11, 1, { state: W.pendingSettlement, settlementId: 5 })] },
    { id: 2, state: W.pendingSettlement, content: [content(21, 2, { state: W.pendingSettlement, settlementId: 5 }), content(22, 2, { currency: 'EUR', state: W.pendingSettlement, settlementId: 6 })] },
  ];
}

test('SETTLED: the settlement\'s own content is settled, and a window once every currency of it is', () => {
  assert.deepEqual(decideWindowsAfterSettlement({ settlementId: 5, windows: windowsOfSettlement5(), state: W.settled }), {
    state: 'SETTLED', contentIds: [31, 11, 21], windowIds: [1, 3],
  });
});

test('ABORTED: the settlement\'s own content is aborted and every window given back, one an earlier abort gave back as well', () => {
  const windows = windowsOfSettlement5();
  windows[2].state = W.aborted; // settlement 6 was aborted first
  assert.deepEqual(decideWindowsAfterSettlement({ settlementId: 5, windows, state: W.aborted }), {
    state: 'ABORTED', contentIds: [31, 11, 21], windowIds: [1, 2, 3],
  });
});

test('a settlement\'s windows follow it to SETTLED or ABORTED only, and a step outside the window table throws', () => {
  for (const state of [W.open, W.closed, W.pendingSettlement]) {
    assert.throws(() => decideWindowsAfterSettlement({ settlementId: 5, windows: windowsOfSettlement5(), state }), /follow it to SETTLED or ABORTED/, state);
  }
  const closedContent = [{ id: 1, state: W.pendingSettlement, content: [content(11, 1, { state: W.closed, settlementId: 5 })] }];
  assert.throws(() => decideWindowsAfterSettlement({ settlementId: 5, windows: closedContent, state: W.settled }), /illegal settlement window transition CLOSED → SETTLED/);
  const closedWindow = [{ id: 1, state: W.closed, content: [content(11, 1, { state: W.pendingSettlement, settlementId: 5 })] }];
  assert.throws(() => decideWindowsAfterSettlement({ settlementId: 5, windows: closedWindow, state: W.aborted }), /illegal settlement window transition CLOSED → ABORTED/);
  const settledWindow = [{ id: 1, state: W.settled, content: [content(11, 1, { state: W.pendingSettlement, settlementId: 5 })] }];
  assert.throws(() => decideWindowsAfterSettlement({ settlementId: 5, windows: settledWindow, state: W.aborted }), /illegal settlement window transition SETTLED → ABORTED/);
});

// ---------------------------------------------------------------------------------------------
// A PUT's whole decision

function settlementOf(state, accountStates, modelId = USD_NET.id) {
  return {
    id: 5, modelId, state,
    accounts: new Map(accountStates.map((accountState, index) => [index + 1, { accountId: index + 1, participantId: 101 + index, state: accountState, netAmount: 10n }])),
  };
}
const ask = (accountId, state) => ({ participantId: 100 + accountId, accountId, state, reason: 'r' });

test('a PUT resets the positions of the accounts that reach PS_TRANSFERS_COMMITTED now, under a model with autoPositionReset only', () => {
  const settlement = settlementOf(S.reserved, [S.reserved, S.committed, S.reserved]);
  const requested = [ask(1, S.committed), ask(2, S.committed), ask(3, S.reserved)];
  const decision = decideSettlementUpdate({ settlement, requested, models: MODELS, windows: [] });
  assert.deepEqual(decision.resetAccountIds, [1], 'account 2 is committed already and account 3 stays');
  assert.equal(decision.nextState, null);
  assert.equal(decision.windowsAfter, null);
  const noReset = decideSettlementUpdate({ settlement: settlementOf(S.reserved, [S.reserved], NO_RESET.id), requested: [ask(1, S.committed)], models: MODELS, windows: [] });
  assert.deepEqual(noReset.resetAccountIds, []);
  assert.deepEqual(noReset.nextState, { state: S.committed, reason: 'All settlement accounts are PS_TRANSFERS_COMMITTED' });
});

test('a PUT that settles the settlement settles its windows; one that only moves it on leaves them', () => {
  const windows = [{ id: 1, state: W.pendingSettlement, content: [content(11, 1, { state: W.pendingSettlement, settlementId: 5 })] }];
  const settling = decideSettlementUpdate({ settlement: settlementOf(S.committed, [S.committed, S.committed]), requested: [ask(1, S.settled)], models: MODELS, windows });
  assert.equal(settling.nextState.state, S.settling);
  assert.equal(settling.windowsAfter, null);
  const settled = decideSettlementUpdate({ settlement: settlementOf(S.settling, [S.settled, S.committed]), requested: [ask(2, S.settled)], models: MODELS, windows });
  assert.equal(settled.nextState.state, S.settled);
  assert.deepEqual(settled.windowsAfter, { state: 'SETTLED', contentIds: [11], windowIds: [1] });
  const refused = decideSettlementUpdate({ settlement: settlementOf(S.settled, [S.settled]), requested: [ask(1, S.committed)], models: MODELS, windows });
  assert.deepEqual([refused.changes, refused.refusals.map((item) => item.detail), refused.windowsAfter], [[], ['State change not allowed'], null]);
});

test('a settlement naming a model that does not exist is a bug and throws', () => {
  assert.throws(() => decideSettlementUpdate({ settlement: settlementOf(S.reserved, [S.reserved], 99), requested: [], models: MODELS, windows: [] }), /settlement model 99/);
});

// ---------------------------------------------------------------------------------------------
// An abort's whole decision

test('an abort moves every account and gives back every window; aborting again only records the request; a committed one is refused', () => {
  const windows = [{ id: 1, state: W.pendingSettlement, content: [content(11, 1, { state: W.pendingSettlement, settlementId: 5 })] }];
  assert.deepEqual(decideSettlementAbort({ settlement: settlementOf(S.recorded, [S.recorded, S.pendingSettlement]), windows }), {
    ok: true, state: 'ABORTED', accountIds: [1, 2], windowsAfter: { state: 'ABORTED', contentIds: [11], windowIds: [1] },
  });
  assert.deepEqual(decideSettlementAbort({ settlement: settlementOf(S.aborted, [S.aborted]), windows: [] }), { ok: true, state: 'ABORTED', accountIds: [], windowsAfter: null });
  const refused = decideSettlementAbort({ settlement: settlementOf(S.committed, [S.committed]), windows });
  assert.ok(isFailure(refused));
  assert.deepEqual([refused.code, refused.detail], [FAILURE.settlementStateChangeRefused, 'State change is not allowed for settlement 5 in state PS_TRANSFERS_COMMITTED']);
});

test('a settlement ends SETTLED or ABORTED: those are the states no longer pending', () => {
  assert.deepEqual([...SETTLEMENT_END_STATES].sort(), ['ABORTED', 'SETTLED']);
});

// ---------------------------------------------------------------------------------------------
// The ledger changes of resets and of gross settlement

test('resets: each committing account\'s settlementPositionChanges; an account without a hub account is a bug', () => {
  const settlement = settlementOf(S.reserved, [S.reserved, S.reserved]);
  const counters = new Map([[1, { settlementAccountId: 21, hubAccountId: 99 }], [2, { settlementAccountId: 22, hubAccountId: 99 }]]);
  assert.deepEqual(settlementResetChanges({ settlement, accountIds: [2, 1], counters }), [
    ...settlementPositionChanges({ settlementId: 5, account: settlement.accounts.get(2), settlementAccountId: 22, hubAccountId: 99 }),
    ...settlementPositionChanges({ settlementId: 5, account: settlement.accounts.get(1), settlementAccountId: 21, hubAccountId: 99 }),
  ]);
  assert.deepEqual(settlementResetChanges({ settlement, accountIds: [], counters }), []);
  assert.throws(() => settlementResetChanges({ settlement, accountIds: [1], counters: new Map([[1, { settlementAccountId: 21, hubAccountId: null }]]) }), /position account 1/);
  assert.throws(() => settlementResetChanges({ settlement, accountIds: [2], counters: new Map() }), /position account 2/);
});

test('gross settlement: each transfer\'s grossSettlementPositionChanges; a position account without a settlement account is a bug', () => {
  const transfer = { transferId: 't1', payerAccountId: 1, payeeAccountId: 3, amount: 250n };
  const counters = new Map([[1, { settlementAccountId: 2 }], [3, { settlementAccountId: 4 }]]);
  assert.deepEqual(grossSettlementChanges({ transfers: [transfer], counters }), grossSettlementPositionChanges({ transfer, payerSettlementAccountId: 2, payeeSettlementAccountId: 4 }));
  assert.throws(() => grossSettlementChanges({ transfers: [transfer], counters: new Map([[1, { settlementAccountId: 2 }]]) }), /position account 3 has no settlement account/);
});
