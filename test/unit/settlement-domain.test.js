// The settlement domain without I/O: window states and the decisions over windows, settlement
// models, net amounts, the lock-step of settlement accounts, aborts, the ledger changes a
// settlement makes, and the committed transfers the position batch hands to the open window.
// Expected tables are written out here independently of the domain's own, so a changed table
// fails a test instead of passing by construction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  WINDOW_STATE as W, canWindowTransition, decideCloseWindow, decideSettlementWindows, windowTransition,
} from '../../ledger/domain/settlement-windows.js';
import {
  ACCOUNT_STATES, SETTLEMENT_STATE as S, decideAbort, decideAccountUpdates, decideSettlementModel,
  grossSettlementPositionChanges, isGrossCurrency, modelOfCurrency, netSettlementAmounts, settlementPositionChanges, settlementTransferId,
} from '../../ledger/domain/settlements.js';
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { TRANSFER_KIND, TRANSFER_STATE as T } from '../../ledger/domain/transfer-states.js';
import { parseAmount } from '../../ledger/domain/money.js';
import { FAILURE, isFailure } from '../../platform/domain/failures.js';

const sum = (values) => values.reduce((total, value) => total + value, 0n);

// ---------------------------------------------------------------------------------------------
// Settlement windows

/** The steps a window (or its content) may take, as central-settlement allows them. */
const ALLOWED_WINDOW_STEPS = new Set([
  `${W.open}→${W.closed}`,
  `${W.closed}→${W.pendingSettlement}`,
  `${W.pendingSettlement}→${W.settled}`,
  `${W.pendingSettlement}→${W.aborted}`,
  `${W.aborted}→${W.pendingSettlement}`,
]);
const WINDOW_STATES = Object.values(W);

test('window transitions: every pair of states is allowed exactly when the table lists it', () => {
  assert.deepEqual(WINDOW_STATES.sort(), ['ABORTED', 'CLOSED', 'OPEN', 'PENDING_SETTLEMENT', 'SETTLED']);
  for (const from of WINDOW_STATES) {
    for (const to of WINDOW_STATES) {
      assert.equal(canWindowTransition(from, to), ALLOWED_WINDOW_STEPS.has(`${from}→${to}`), `${from} → ${to}`);
    }
  }
  assert.equal(canWindowTransition('NOPE', W.closed), false, 'an unknown state has no way out');
  assert.equal(canWindowTransition(W.open, 'NOPE'), false, 'an unknown state is never reached');
});

test('windowTransition returns the allowed target and throws on every illegal pair', () => {
  for (const from of WINDOW_STATES) {
    for (const to of WINDOW_STATES) {
      if (ALLOWED_WINDOW_STEPS.has(`${from}→${to}`)) assert.equal(windowTransition(from, to), to, `${from} → ${to}`);
      else assert.throws(() => windowTransition(from, to), new RegExp(`illegal settlement window transition ${from} → ${to}`));
    }
  }
  assert.throws(() => windowTransition(W.settled, W.pendingSettlement), /illegal/, 'a settled window is never settled again');
});

test('closing a window: an unknown id, a window not open, an empty window and a success', () => {
  const open = { id: 7, state: W.open };
  const unknown = decideCloseWindow({ id: 99, window: undefined, openWindowId: 7, transferCount: 3 });
  assert.deepEqual([unknown.ok, unknown.code, unknown.detail], [false, FAILURE.settlementWindowNotFound, 'Window 99 does not exist']);

  const closed = decideCloseWindow({ id: 6, window: { id: 6, state: W.closed }, openWindowId: 7, transferCount: 3 });
  assert.deepEqual([closed.code, closed.detail], [FAILURE.validation, 'Window 6 is not open']);
  // A row still reading OPEN that the pointer no longer names is not the open window.
  const stale = decideCloseWindow({ id: 5, window: { id: 5, state: W.open }, openWindowId: 7, transferCount: 3 });
  assert.deepEqual([stale.code, stale.detail], [FAILURE.validation, 'Window 5 is not open']);

  const empty = decideCloseWindow({ id: 7, window: open, openWindowId: 7, transferCount: 0 });
  assert.deepEqual([empty.code, empty.detail], [FAILURE.validation, 'Window 7 is empty']);

  assert.deepEqual(decideCloseWindow({ id: 7, window: open, openWindowId: 7, transferCount: 1 }), { ok: true, closedState: W.closed, nextState: W.open });
});

const content = (id, settlementWindowId, currency, state) => ({ id, settlementWindowId, currency, state });

/** Windows in every state, with content in USD and EUR; the settlement asked for settles USD only. */
const WINDOWS = new Map([
  [1, { state: W.closed, content: [content(11, 1, 'USD', W.closed), content(12, 1, 'EUR', W.closed)] }],
  [2, { state: W.aborted, content: [content(21, 2, 'USD', W.aborted)] }],
  // Its EUR content is pending in another settlement; its USD content is still to settle.
  [3, { state: W.pendingSettlement, content: [content(31, 3, 'EUR', W.pendingSettlement), content(32, 3, 'USD', W.closed)] }],
  [4, { state: W.open, content: [content(41, 4, 'USD', W.closed)] }],
  [5, { state: W.settled, content: [content(51, 5, 'USD', W.closed)] }],
  [6, { state: W.closed, content: [content(61, 6, 'EUR', W.closed)] }],
  [7, { state: W.pendingSettlement, content: [content(71, 7, 'USD', W.pendingSettlement)] }],
  [8, { state: W.closed, content: [] }],
]);
const settlesUsd = (content) => content.currency === 'USD';

test('a settlement takes CLOSED, ABORTED and PENDING_SETTLEMENT windows with unsettled content it settles, in window order', () => {
  const taken = decideSettlementWindows({ requestedIds: [3, 1, 2], windows: WINDOWS, settles: settlesUsd });
  assert.equal(taken.ok, true);
  assert.deepEqual(taken.windowIds, [1, 2, 3]);
  assert.deepEqual(taken.content.map((item) => item.id), [11, 21, 32], 'EUR content and content already pending stay out');

  const everything = decideSettlementWindows({ requestedIds: [1, 6], windows: WINDOWS, settles: () => true });
  assert.deepEqual(everything.content.map((item) => item.id), [11, 12, 61], '`settles` alone decides which currencies are taken');
});

test('a settlement over OPEN, SETTLED, unknown or windows without content in its currency names them in request order', () => {
  const refused = decideSettlementWindows({ requestedIds: [5, 1, 4, 6, 99, 7, 8, 2], windows: WINDOWS, settles: settlesUsd });
  assert.ok(isFailure(refused));
  assert.equal(refused.code, FAILURE.validation);
  assert.equal(refused.detail, 'Inapplicable windows 5, 4, 6, 99, 7, 8');
  const eurOnly = decideSettlementWindows({ requestedIds: [2], windows: WINDOWS, settles: (content) => content.currency === 'EUR' });
  assert.equal(eurOnly.detail, 'Inapplicable windows 2');
});

// ---------------------------------------------------------------------------------------------
// Settlement models

const model = (fields) => ({
  id: 1, name: 'DEFERREDNET', settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED',
  currency: null, isActive: true, ...fields,
});
const DEFAULT_NET = model({ id: 1, name: 'DEFERREDNET' });
const USD_GROSS = model({ id: 2, name: 'USDGROSS', settlementGranularity: 'GROSS', settlementDelay: 'IMMEDIATE', currency: 'USD' });

test('only an active deferred net model can start a settlement', () => {
  const missing = decideSettlementModel(undefined, 'NOPE');
  assert.deepEqual([missing.code, missing.detail], [FAILURE.settlementModelNotFound, 'Settlement model not found: NOPE']);
  const inactive = decideSettlementModel(model({ isActive: false }), 'DEFERREDNET');
  assert.deepEqual([inactive.code, inactive.detail], [FAILURE.settlementModelNotFound, 'Settlement model not found: DEFERREDNET']);
  const refusedWording = 'Settlement can not be created for GROSS or IMMEDIATE models';
  for (const fields of [{ settlementGranularity: 'GROSS' }, { settlementDelay: 'IMMEDIATE' }, { settlementGranularity: 'GROSS', settlementDelay: 'IMMEDIATE' }]) {
    const refused = decideSettlementModel(model(fields), 'X');
    assert.deepEqual([refused.code, refused.detail], [FAILURE.validation, refusedWording], JSON.stringify(fields));
  }
  assert.deepEqual(decideSettlementModel(DEFAULT_NET, 'DEFERREDNET'), { ok: true });
});

test('the model of a currency is its own active model, else the active default', () => {
  const models = [DEFAULT_NET, USD_GROSS];
  assert.equal(modelOfCurrency(models, 'USD'), USD_GROSS);
  assert.equal(modelOfCurrency(models, 'EUR'), DEFAULT_NET);
  assert.equal(modelOfCurrency([USD_GROSS], 'EUR'), undefined);
  assert.equal(modelOfCurrency([{ ...DEFAULT_NET, isActive: false }, USD_GROSS], 'EUR'), undefined);
  assert.equal(modelOfCurrency([DEFAULT_NET, { ...USD_GROSS, isActive: false }], 'USD'), DEFAULT_NET);

  assert.equal(isGrossCurrency(models, 'USD'), true);
  assert.equal(isGrossCurrency(models, 'EUR'), false);
  assert.equal(isGrossCurrency([DEFAULT_NET, model({ id: 3, currency: 'XOF', settlementDelay: 'IMMEDIATE' })], 'XOF'), true, 'IMMEDIATE alone is gross');
  assert.equal(isGrossCurrency([USD_GROSS], 'EUR'), false, 'a currency without a model is not settled gross');
});

// ---------------------------------------------------------------------------------------------
// Net amounts

test('net amounts of a → b 100, a → c 100, c → b 100: a owes 200, b is owed 200, c stays at zero', () => {
  const [a, b, c] = [1, 2, 3];
  const hundred = parseAmount('100');
  const nets = netSettlementAmounts([
    { payerAccountId: a, payeeAccountId: b, currency: 'USD', amount: hundred },
    { payerAccountId: a, payeeAccountId: c, currency: 'USD', amount: hundred },
    { payerAccountId: c, payeeAccountId: b, currency: 'USD', amount: hundred },
  ]);
  assert.deepEqual(nets, [
    { accountId: a, currency: 'USD', netAmount: parseAmount('200') },
    { accountId: b, currency: 'USD', netAmount: -parseAmount('200') },
    { accountId: c, currency: 'USD', netAmount: 0n },
  ]);
});

/** mulberry32: a small seeded PRNG, so a failing case can be replayed from its seed. */
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** Odd accounts hold USD, even ones EUR; transfers only run between accounts of one currency. */
const currencyOfAccount = (accountId) => (accountId % 2 === 1 ? 'USD' : 'EUR');

function randomTransfers(seed, count) {
  const random = seededRandom(seed);
  const pick = (max) => Math.floor(random() * max);
  const transfers = [];
  while (transfers.length < count) {
    const payerAccountId = 1 + pick(10);
    const payeeAccountId = payerAccountId + 2 * (1 + pick(4));
    // Up to 10,000,000.0000 in the ledger's scale, built from two draws to reach every digit.
    const amount = 1n + BigInt(pick(10_000_000)) * 10_000n + BigInt(pick(10_000));
    const [payer, payee] = random() < 0.5 ? [payerAccountId, payeeAccountId] : [payeeAccountId, payerAccountId];
    transfers.push({ payerAccountId: payer, payeeAccountId: payee, currency: currencyOfAccount(payer), amount });
  }
  return transfers;
}

/** Each account's sum paid minus sum received, counted without the domain. */
function expectedNets(transfers) {
  const paid = new Map();
  const received = new Map();
  for (const { payerAccountId, payeeAccountId, amount } of transfers) {
    paid.set(payerAccountId, (paid.get(payerAccountId) ?? 0n) + amount);
    received.set(payeeAccountId, (received.get(payeeAccountId) ?? 0n) + amount);
  }
  const accounts = [...new Set([...paid.keys(), ...received.keys()])].sort((x, y) => x - y);
  return accounts.map((accountId) => ({ accountId, currency: currencyOfAccount(accountId), netAmount: (paid.get(accountId) ?? 0n) - (received.get(accountId) ?? 0n) }));
}

/** The transfers summed per payer, payee and currency, as the repository hands them over. */
function pairSums(transfers) {
  const sums = new Map();
  for (const transfer of transfers) {
    const key = `${transfer.payerAccountId}>${transfer.payeeAccountId}`;
    const entry = sums.get(key) ?? { ...transfer, amount: 0n };
    entry.amount += transfer.amount;
    sums.set(key, entry);
  }
  return [...sums.values()];
}

test('net amounts over random transfers: each is paid minus received, and each currency nets to zero', () => {
  for (let seed = 1; seed <= 25; seed += 1) {
    const transfers = randomTransfers(seed, 5 + seed * 8);
    const nets = netSettlementAmounts(transfers);
    assert.deepEqual(nets, expectedNets(transfers), `seed ${seed}`);
    for (const currency of ['USD', 'EUR']) {
      assert.equal(sum(nets.filter((net) => net.currency === currency).map((net) => net.netAmount)), 0n, `seed ${seed}: ${currency} nets to zero`);
    }
    assert.deepEqual(netSettlementAmounts(pairSums(transfers)), nets, `seed ${seed}: summing per pair first changes nothing`);
  }
});

test('a position account appearing in two currencies is a bug and throws', () => {
  assert.throws(() => netSettlementAmounts([
    { payerAccountId: 1, payeeAccountId: 2, currency: 'USD', amount: 100n },
    { payerAccountId: 3, payeeAccountId: 1, currency: 'EUR', amount: 100n },
  ]), /position account 1 carries both USD and EUR/);
});

// ---------------------------------------------------------------------------------------------
// Account updates

/** A settlement in `state` whose account i (from 1) is in accountStates[i - 1], owned by participant 100 + i. */
function settlementOf(state, accountStates) {
  return { id: 9, state, accounts: new Map(accountStates.map((accountState, index) => [index + 1, { participantId: 101 + index, state: accountState }])) };
}

const ask = (accountId, state, participantId = 100 + accountId) => ({ participantId, accountId, state, reason: 'r' });

/** settlement state, its accounts' state, the one target allowed, a target refused (skipped or backwards). */
const LOCK_STEP = [
  [S.pendingSettlement, S.pendingSettlement, S.recorded, S.reserved],
  [S.recorded, S.recorded, S.reserved, S.committed],
  [S.reserved, S.reserved, S.committed, S.settled],
  [S.committed, S.committed, S.settled, S.reserved],
  [S.settling, S.committed, S.settled, S.pendingSettlement],
];

test('the account states an operator may ask for are the lock-step states in order', () => {
  assert.deepEqual(ACCOUNT_STATES, ['PENDING_SETTLEMENT', 'PS_TRANSFERS_RECORDED', 'PS_TRANSFERS_RESERVED', 'PS_TRANSFERS_COMMITTED', 'SETTLED']);
});

for (const [settlementState, accountState, allowed, refused] of LOCK_STEP) {
  test(`lock-step in ${settlementState}: accounts move to ${allowed} only, or stay where they are`, () => {
    const settlement = settlementOf(settlementState, [accountState, accountState, accountState]);
    const decision = decideAccountUpdates({ settlement, requested: [ask(1, allowed), ask(2, accountState), ask(3, refused)] });
    assert.deepEqual(decision.changes.map((change) => [change.accountId, change.fromState, change.state, change.moves]), [
      [1, accountState, allowed, true],
      [2, accountState, accountState, false],
    ]);
    assert.deepEqual(decision.refusals.map((refusal) => [refusal.accountId, refusal.state, refusal.detail]), [[3, refused, 'State change not allowed']]);
  });
}

test('lock-step: an account ahead of its settlement may not move on until the settlement catches up', () => {
  const settlement = settlementOf(S.pendingSettlement, [S.recorded, S.pendingSettlement]);
  const decision = decideAccountUpdates({ settlement, requested: [ask(1, S.reserved)] });
  assert.deepEqual(decision.changes, []);
  assert.deepEqual(decision.refusals.map((refusal) => refusal.detail), ['State change not allowed']);
});

test('a SETTLED or ABORTED settlement refuses every move and accepts only the state its accounts hold', () => {
  for (const [state, accountState] of [[S.settled, S.settled], [S.aborted, S.aborted]]) {
    const settlement = settlementOf(state, [accountState, accountState]);
    const decision = decideAccountUpdates({ settlement, requested: [ask(1, accountState), ask(2, S.recorded)] });
    assert.deepEqual(decision.changes.map((change) => change.moves), [false], state);
    assert.deepEqual(decision.refusals.map((refusal) => [refusal.accountId, refusal.detail]), [[2, 'State change not allowed']], state);
    assert.equal(decision.nextState, null, state);
  }
});

test('an unknown account, a participant mismatch and the same account twice are refused one by one', () => {
  const settlement = settlementOf(S.pendingSettlement, [S.pendingSettlement, S.pendingSettlement]);
  const decision = decideAccountUpdates({
    settlement,
    requested: [ask(77, S.recorded, 101), ask(2, S.recorded, 101), ask(1, S.recorded), ask(1, S.recorded)],
  });
  assert.deepEqual(decision.changes.map((change) => change.accountId), [1], 'the first request for account 1 is taken');
  assert.deepEqual(decision.refusals.map((refusal) => [refusal.accountId, refusal.participantId, refusal.detail]), [
    [77, 101, 'Account not found'],
    [2, 101, 'Participant and account mismatch'],
    [1, 101, 'Account already processed once'],
  ]);
  assert.equal(decision.nextState, null, 'account 2 is still PENDING_SETTLEMENT');
});

/** settlement state, its accounts' states, the requested states, the settlement's next state (or null). */
const PROGRESS = [
  [S.pendingSettlement, [S.pendingSettlement, S.pendingSettlement], [S.recorded], null],
  [S.pendingSettlement, [S.pendingSettlement, S.pendingSettlement], [S.recorded, S.recorded], S.recorded],
  [S.pendingSettlement, [S.recorded, S.pendingSettlement], [undefined, S.recorded], S.recorded],
  [S.pendingSettlement, [S.pendingSettlement, S.pendingSettlement], [S.reserved, S.reserved], null],
  [S.recorded, [S.recorded, S.recorded], [S.reserved], null],
  [S.recorded, [S.recorded, S.recorded], [S.reserved, S.reserved], S.reserved],
  [S.reserved, [S.reserved, S.reserved], [undefined, S.committed], null],
  [S.reserved, [S.reserved, S.reserved], [S.committed, S.committed], S.committed],
  [S.committed, [S.committed, S.committed], [S.committed, S.committed], null],
  [S.committed, [S.committed, S.committed], [S.settled], S.settling],
  [S.committed, [S.committed, S.committed], [S.settled, S.settled], S.settled],
  [S.settling, [S.settled, S.committed], [undefined, S.committed], null],
  [S.settling, [S.settled, S.committed], [undefined, S.settled], S.settled],
];

const PROGRESS_REASONS = {
  [S.recorded]: 'All settlement accounts are PS_TRANSFERS_RECORDED',
  [S.reserved]: 'All settlement accounts are PS_TRANSFERS_RESERVED',
  [S.committed]: 'All settlement accounts are PS_TRANSFERS_COMMITTED',
  [S.settling]: 'Some settlement accounts are SETTLED',
  [S.settled]: 'All settlement accounts are SETTLED',
};

test('the settlement advances one step only once no account is left behind (SETTLING while some are SETTLED)', () => {
  for (const [state, accountStates, requestedStates, next] of PROGRESS) {
    const requested = requestedStates.flatMap((requestedState, index) => (requestedState ? [ask(index + 1, requestedState)] : []));
    const decision = decideAccountUpdates({ settlement: settlementOf(state, accountStates), requested });
    const context = `${state} with ${accountStates} asked ${requestedStates}`;
    assert.deepEqual(decision.nextState, next ? { state: next, reason: PROGRESS_REASONS[next] } : null, context);
  }
});

// ---------------------------------------------------------------------------------------------
// Aborts

test('a settlement may be aborted until something is committed, and aborting it again only says so', () => {
  for (const state of [S.pendingSettlement, S.recorded, S.reserved]) {
    assert.deepEqual(decideAbort({ settlement: settlementOf(state, [state, state]) }), { ok: true, again: false }, state);
  }
  const oneCommitted = decideAbort({ settlement: settlementOf(S.reserved, [S.reserved, S.committed]) });
  assert.deepEqual([oneCommitted.code, oneCommitted.detail], [FAILURE.settlementStateChangeRefused, 'At least one settlement transfer is committed']);
  for (const [state, accountState] of [[S.committed, S.committed], [S.settling, S.settled], [S.settled, S.settled]]) {
    const refused = decideAbort({ settlement: settlementOf(state, [accountState]) });
    assert.equal(refused.code, FAILURE.settlementStateChangeRefused, state);
    assert.equal(refused.detail, `State change is not allowed for settlement 9 in state ${state}`);
  }
  assert.deepEqual(decideAbort({ settlement: settlementOf(S.aborted, [S.aborted]) }), { ok: true, again: true });
});

// ---------------------------------------------------------------------------------------------
// Ledger changes of a settlement

// Apart from every position and settlement account the cases below use.
const HUB_ACCOUNT = 9999;
const changeOf = (changes, accountId) => sum(changes.filter((change) => change.accountId === accountId).map((change) => change.change));

/** position_change is unique on (transfer_id, account_id, reason): a repeated key would fail the insert. */
function assertJournalKeysUnique(changes) {
  const keys = changes.map((change) => `${change.transferId}|${change.accountId}|${change.reason}`);
  assert.equal(new Set(keys).size, keys.length, `repeated journal keys in ${keys}`);
}

test('a committed account: its position moves by −net, its settlement account by +net, the hub account is unchanged', () => {
  for (const netAmount of [parseAmount('1234.5'), -parseAmount('200'), 0n]) {
    const changes = settlementPositionChanges({ settlementId: 42, account: { accountId: 5, netAmount }, settlementAccountId: 6, hubAccountId: HUB_ACCOUNT });
    assert.equal(sum(changes.map((change) => change.change)), 0n, `${netAmount}: the changes balance`);
    assert.equal(changeOf(changes, 5), -netAmount);
    assert.equal(changeOf(changes, 6), netAmount);
    assert.equal(changeOf(changes, HUB_ACCOUNT), 0n);
    assert.deepEqual([...new Set(changes.map((change) => change.transferId))], ['settlement-42-5']);
    assert.deepEqual(changes.map((change) => change.reason).sort(), ['SETTLEMENT_FUNDS', 'SETTLEMENT_FUNDS', 'SETTLEMENT_POSITION', 'SETTLEMENT_POSITION']);
    for (const reason of ['SETTLEMENT_FUNDS', 'SETTLEMENT_POSITION']) {
      assert.equal(sum(changes.filter((change) => change.reason === reason).map((change) => change.change)), 0n, `${reason} balances on its own`);
    }
  }
});

test('committing every account of a random settlement brings each position back by its net amount', () => {
  const nets = netSettlementAmounts(randomTransfers(7, 60).filter((transfer) => transfer.currency === 'USD'));
  const changes = nets.flatMap((account) => settlementPositionChanges({
    settlementId: 3, account, settlementAccountId: 1000 + account.accountId, hubAccountId: HUB_ACCOUNT,
  }));
  for (const { accountId, netAmount } of nets) {
    assert.equal(netAmount + changeOf(changes, accountId), 0n, `account ${accountId}'s position is reset`);
    assert.equal(changeOf(changes, 1000 + accountId), netAmount);
  }
  assert.equal(changeOf(changes, HUB_ACCOUNT), 0n);
  assert.equal(sum(nets.map((net) => changeOf(changes, 1000 + net.accountId))), 0n, 'the settlement accounts only pass money among themselves');
  assertJournalKeysUnique(changes);
});

test('the settlement journal transfer id fits the 36-character column for the largest ids', () => {
  // Settlement and account ids are unsigned INT columns.
  const largest = 4_294_967_295;
  const transferId = settlementTransferId(largest, largest);
  assert.equal(transferId, `settlement-${largest}-${largest}`);
  assert.ok(transferId.length <= 36, `${transferId} has ${transferId.length} characters`);
  const changes = settlementPositionChanges({ settlementId: largest, account: { accountId: largest, netAmount: 1n }, settlementAccountId: 2, hubAccountId: HUB_ACCOUNT });
  assert.ok(changes.every((change) => change.transferId.length <= 36));
});

test('a gross settled transfer returns both positions to where they were and moves the amount between settlement accounts', () => {
  const amount = parseAmount('250.75');
  const transfer = { transferId: '0190d7a2-3f4e-7c1a-9b2d-5e6f7a8b9c0d', payerAccountId: 11, payeeAccountId: 13, currency: 'USD', amount };
  const changes = grossSettlementPositionChanges({ transfer, payerSettlementAccountId: 12, payeeSettlementAccountId: 14 });
  assert.equal(sum(changes.map((change) => change.change)), 0n);
  // The prepare raised the payer's position by the amount and the commit lowered the payee's.
  assert.equal(amount + changeOf(changes, 11), 0n);
  assert.equal(-amount + changeOf(changes, 13), 0n);
  assert.equal(changeOf(changes, 12), amount, 'the payer\'s deposit falls');
  assert.equal(changeOf(changes, 14), -amount, 'the payee\'s deposit grows');
  assert.ok(changes.every((change) => change.transferId === transfer.transferId && change.reason === 'GROSS_SETTLEMENT'));
  assertJournalKeysUnique(changes);
  assert.ok(transfer.transferId.length <= 36);
});

// ---------------------------------------------------------------------------------------------
// Committed transfers recorded in the open window

const now = new Date('2026-11-23T12:00:00.000Z');

function paymentIn(state) {
  return {
    transferId: 't', kind: TRANSFER_KIND.payment, state, payerFsp: 'payer', payeeFsp: 'payee', payerAccountId: 1, payeeAccountId: 3,
    amount: parseAmount('400'), currency: 'USD', expiresAt: new Date(now.getTime() + 60_000), fulfilment: 'f',
  };
}

function decideEvents(events, transfer) {
  return decidePositionBatch({
    events, transfers: new Map([['t', transfer]]), positions: new Map([[1, 0n], [3, 0n]]),
    settlements: new Map([[1, -parseAmount('10000')]]), limits: new Map([[1, parseAmount('10000')]]), now,
  });
}

const COMMIT = { action: 'commit', accountId: 3, message: { id: 't' } };

test('a commit hands the transfer\'s accounts, currency and amount to the open window', () => {
  const decided = decideEvents([COMMIT], paymentIn(T.receivedFulfil));
  assert.deepEqual(decided.committedTransfers, [{ transferId: 't', payerAccountId: 1, payeeAccountId: 3, currency: 'USD', amount: parseAmount('400') }]);
});

test('a redelivered commit, or the same commit twice in a batch, is recorded in a window once', () => {
  assert.deepEqual(decideEvents([COMMIT], paymentIn(T.committed)).committedTransfers, []);
  assert.equal(decideEvents([COMMIT, COMMIT], paymentIn(T.receivedFulfil)).committedTransfers.length, 1);
});

test('reservations and aborts commit nothing to a window', () => {
  assert.deepEqual(decideEvents([{ action: 'prepare', accountId: 1, message: { id: 't' } }], paymentIn(T.receivedPrepare)).committedTransfers, []);
  assert.deepEqual(decideEvents([{ action: 'abort', accountId: 1, message: { id: 't' } }], paymentIn(T.receivedError)).committedTransfers, []);
});
