// The transition table and the decisions that change transfer states: every change goes
// through `transition`, which refuses a step the table does not list.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { ALL_TRANSFER_STATES, TRANSFER_KIND, TRANSFER_STATE as S, canTransition, isFinal, transition } from '../../ledger/domain/transfer-states.js';
import { decidePrepareBatch } from '../../ledger/domain/prepare.js';
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { decideExpiries, releaseStaleTimeouts } from '../../ledger/domain/expiry.js';
import { FUNDS_ACTION, decideFundsOutCompletion, decideRecordFunds } from '../../ledger/domain/funds.js';
import { isFailure } from '../../platform/domain/failures.js';

const ILLEGAL = /illegal transfer transition/;
const now = new Date('2026-11-21T12:00:00.000Z');
const future = new Date(now.getTime() + 60_000);
const past = new Date(now.getTime() - 1);
const fulfilment = randomBytes(32).toString('base64url');
const condition = createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url');
const PAYER_ACCOUNT = 1;
const PAYEE_ACCOUNT = 3;
const PAYMENT = TRANSFER_KIND.payment;

function transfer(state, extra = {}) {
  return {
    transferId: 't', kind: TRANSFER_KIND.payment, state, payerFsp: 'payer', payeeFsp: 'payee', payerAccountId: PAYER_ACCOUNT,
    payeeAccountId: PAYEE_ACCOUNT, amount: 400n, currency: 'USD', expiresAt: future, ilpCondition: condition, ...extra,
  };
}

/**
 * Asserts that `statePath` came from `transition` (frozen) and is a legal walk from
 * `fromState` for a transfer of `kind` (a payment unless said otherwise).
 */
function assertDecidedPath(fromState, statePath, context, kind = PAYMENT) {
  assert.ok(Object.isFrozen(statePath), `${context}: state path ${statePath} was built by hand, not by transition()`);
  assert.doesNotThrow(() => transition(kind, fromState, ...statePath), `${context}: ${fromState} → ${statePath}`);
}

test('transition returns the path after the current state and refuses any step not in the table', () => {
  assert.deepEqual(transition(PAYMENT, null, S.receivedPrepare), [S.receivedPrepare]);
  assert.deepEqual(transition(PAYMENT, S.reserved, S.receivedFulfil, S.committed), [S.receivedFulfil, S.committed]);
  assert.deepEqual(transition(TRANSFER_KIND.fundsIn, null, S.receivedPrepare, S.reserved, S.committed), [S.receivedPrepare, S.reserved, S.committed]);
  assert.throws(() => transition(PAYMENT, S.receivedPrepare, S.committed), /illegal transfer transition RECEIVED_PREPARE → COMMITTED/);
  assert.throws(() => transition(PAYMENT, null, S.receivedPrepare, S.committed), /RECEIVED_PREPARE → COMMITTED/, 'every step is checked, not only the first');
  assert.throws(() => transition(PAYMENT, S.reserved, S.committed), ILLEGAL, 'a payment commits only through a checked fulfil');
  assert.throws(() => transition(TRANSFER_KIND.fundsIn, S.reserved, S.abortedRejected), ILLEGAL, 'only a funds out is aborted by the operator');
  assert.throws(() => transition(TRANSFER_KIND.fundsOut, S.reserved, S.receivedFulfil), ILLEGAL, 'no DFSP fulfils a funds out');
  assert.throws(() => transition(PAYMENT, S.committed, S.abortedError), ILLEGAL);
  assert.throws(() => transition(PAYMENT, S.reserved, S.reserved), ILLEGAL, 'staying in a state is no transition');
  assert.throws(() => transition(PAYMENT, S.reserved, 'NOPE'), ILLEGAL);
  assert.throws(() => transition(PAYMENT, 'NOPE', S.committed), /unknown transfer state/);
  assert.throws(() => transition('NOPE', null, S.receivedPrepare), /unknown transfer kind/);
  assert.throws(() => transition(PAYMENT, undefined, S.receivedPrepare), /undefined state/, 'a missing state is not a new transfer');
  assert.throws(() => transition(PAYMENT, S.reserved), /no target state/);
});

/** The states a transfer of `kind` can reach from nothing, walking the table breadth first. */
function reachableStates(kind) {
  const reachable = new Set();
  const queue = [null];
  while (queue.length > 0) {
    const from = queue.shift();
    for (const to of ALL_TRANSFER_STATES) {
      if (canTransition(kind, from, to) && !reachable.has(to)) {
        reachable.add(to);
        queue.push(to);
      }
    }
  }
  return reachable;
}

test('every state is reachable by payments or conversions, every kind can end from every state it reaches, final states have no exits', () => {
  const onlyConversions = [S.receivedFulfilDependent];
  assert.deepEqual([...reachableStates(PAYMENT)].sort(), ALL_TRANSFER_STATES.filter((state) => !onlyConversions.includes(state)).sort());
  assert.deepEqual([...reachableStates(TRANSFER_KIND.fxTransfer)].sort(), ALL_TRANSFER_STATES.filter((state) => state !== S.receivedFulfil).sort());
  for (const kind of Object.values(TRANSFER_KIND)) {
    const reachable = reachableStates(kind);
    const canEnd = new Set([...reachable].filter(isFinal));
    let grown = true;
    while (grown) {
      const next = [...reachable].filter((state) => !canEnd.has(state) && [...canEnd].some((end) => canTransition(kind, state, end)));
      for (const state of next) canEnd.add(state);
      grown = next.length > 0;
    }
    assert.deepEqual([...canEnd].sort(), [...reachable].sort(), `no ${kind} transfer can get stuck in a state without a way out`);
    for (const state of ALL_TRANSFER_STATES.filter(isFinal)) {
      for (const to of ALL_TRANSFER_STATES) assert.throws(() => transition(kind, state, to), ILLEGAL, `${state} is final`);
    }
  }
});

/** Applies a decided update to a transfer, appending its path to the transfer's journal. */
function applied(current, update, journal) {
  assertDecidedPath(current.state, update.statePath, current.state);
  journal.push(...update.statePath);
  const { statePath, transferId: _transferId, ...fields } = update;
  return { ...current, ...fields, state: statePath.at(-1) };
}

function positionStep(current, event, journal, { positions = 0n, settlement = -5000n, limit = 5000n } = {}) {
  const accountId = event.accountId;
  const decided = decidePositionBatch({
    events: [event], transfers: new Map([[current.transferId, current]]), positions: new Map([[accountId, positions]]),
    settlements: new Map([[accountId, settlement]]), limits: new Map([[accountId, limit]]), now,
  });
  assert.equal(decided.stateUpdates.length, 1);
  return applied(current, decided.stateUpdates[0], journal);
}

function fulfilStep(current, action, body, journal) {
  const event = { id: current.transferId, type: 'transfer', action, from: 'payee', to: 'payer', headers: {}, body };
  const decided = decideFulfilBatch({ events: [event], transfers: new Map([[current.transferId, current]]), now });
  assert.equal(decided.stateUpdates.length, 1);
  return { transfer: applied(current, decided.stateUpdates[0], journal), positionEvent: decided.positionEvents[0] };
}

function prepared(journal, body = {}) {
  const message = {
    id: 't', type: 'transfer', action: 'prepare', from: 'payer', to: 'payee', headers: {},
    body: { transferId: 't', payerFsp: 'payer', payeeFsp: 'payee', amount: { amount: '0.04', currency: 'USD' }, ilpPacket: 'AYIB', condition, expiration: future.toISOString(), ...body },
  };
  const participant = (id) => ({ isActive: true, positionAccounts: new Map([['USD', { id, isActive: true }]]) });
  const decided = decidePrepareBatch({ messages: [message], existing: new Map(), participants: new Map([['payer', participant(PAYER_ACCOUNT)], ['payee', participant(PAYEE_ACCOUNT)]]), now });
  const [row] = decided.inserts;
  assertDecidedPath(null, row.statePath, 'prepare');
  assert.equal(row.state, row.statePath.at(-1));
  journal.push(...row.statePath);
  return { row, positionEvent: decided.positionEvents[0] };
}

test('every real payment flow walks the table, as the decisions make it', () => {
  const flows = {
    commit: () => {
      const journal = [];
      const { row, positionEvent } = prepared(journal);
      const reserved = positionStep(row, positionEvent, journal);
      const fulfilled = fulfilStep(reserved, 'commit', { transferState: 'COMMITTED', fulfilment }, journal);
      positionStep(fulfilled.transfer, fulfilled.positionEvent, journal);
      return journal;
    },
    payeeError: () => {
      const journal = [];
      const { row, positionEvent } = prepared(journal);
      const aborted = fulfilStep(positionStep(row, positionEvent, journal), 'abort', { errorInformation: { errorCode: '5104', errorDescription: 'no' } }, journal);
      positionStep(aborted.transfer, aborted.positionEvent, journal);
      return journal;
    },
    wrongFulfilment: () => {
      const journal = [];
      const { row, positionEvent } = prepared(journal);
      const aborted = fulfilStep(positionStep(row, positionEvent, journal), 'commit', { transferState: 'COMMITTED', fulfilment: randomBytes(32).toString('base64url') }, journal);
      positionStep(aborted.transfer, aborted.positionEvent, journal);
      return journal;
    },
    overLimit: () => {
      const journal = [];
      const { row, positionEvent } = prepared(journal);
      positionStep(row, positionEvent, journal, { limit: 1n });
      return journal;
    },
    expiredInQueue: () => {
      const journal = [];
      const { row, positionEvent } = prepared(journal);
      positionStep({ ...row, expiresAt: past }, positionEvent, journal);
      return journal;
    },
    timeoutBeforeReservation: () => {
      const journal = [];
      const { row } = prepared(journal);
      const decided = decideExpiries({ transfers: [{ ...row, expiresAt: past }], now });
      applied({ ...row, expiresAt: past }, decided.stateUpdates[0], journal);
      return journal;
    },
    timeoutAfterReservation: () => {
      const journal = [];
      const { row, positionEvent } = prepared(journal);
      const reserved = { ...positionStep(row, positionEvent, journal), expiresAt: past };
      const decided = decideExpiries({ transfers: [reserved], now });
      positionStep(applied(reserved, decided.stateUpdates[0], journal), decided.positionEvents[0], journal, { positions: 400n });
      return journal;
    },
    invalid: () => {
      const journal = [];
      prepared(journal, { payeeFsp: 'payer' });
      return journal;
    },
  };
  const journals = Object.fromEntries(Object.entries(flows).map(([name, flow]) => [name, flow()]));
  assert.deepEqual(journals, {
    commit: [S.receivedPrepare, S.reserved, S.receivedFulfil, S.committed],
    payeeError: [S.receivedPrepare, S.reserved, S.receivedError, S.abortedError],
    wrongFulfilment: [S.receivedPrepare, S.reserved, S.receivedError, S.abortedError],
    overLimit: [S.receivedPrepare, S.abortedRejected],
    expiredInQueue: [S.receivedPrepare, S.expiredPrepared],
    timeoutBeforeReservation: [S.receivedPrepare, S.expiredPrepared],
    timeoutAfterReservation: [S.receivedPrepare, S.reserved, S.reservedTimeout, S.expiredReserved],
    invalid: [S.invalid],
  });
  for (const journal of Object.values(journals)) assert.ok(isFinal(journal.at(-1)), `${journal} ends in a final state`);
});

test('funds in and out walk the table, as the decisions make them', () => {
  const accounts = { settlement: { id: 2 }, hubReconciliation: { id: 9 }, position: { id: 1 } };
  const record = (action, settlementValue) => decideRecordFunds({
    request: { transferId: 'f', action, amount: 3000n, currency: 'USD' }, requestHash: 'h', existing: null, accounts,
    positionValues: new Map([[2, settlementValue], [9, 0n], [1, 0n]]),
  });
  const paths = {};
  for (const [name, action, settlementValue] of [['in', FUNDS_ACTION.fundsIn, 0n], ['out', FUNDS_ACTION.fundsOutPrepareReserve, -5000n], ['overdraft', FUNDS_ACTION.fundsOutPrepareReserve, 0n]]) {
    const decision = record(action, settlementValue);
    assertDecidedPath(null, decision.statePath, name, decision.transfer.kind);
    assert.equal(decision.transfer.state, decision.statePath.at(-1));
    paths[name] = decision.statePath;
  }
  const reserved = record(FUNDS_ACTION.fundsOutPrepareReserve, -5000n).transfer;
  for (const action of [FUNDS_ACTION.fundsOutCommit, FUNDS_ACTION.fundsOutAbort]) {
    const decision = decideFundsOutCompletion({ action, transfer: reserved, settlementAccountId: 2 });
    assertDecidedPath(reserved.state, decision.statePath, action, TRANSFER_KIND.fundsOut);
    paths[action] = decision.statePath;
  }
  assert.deepEqual(paths, {
    in: [S.receivedPrepare, S.reserved, S.committed],
    out: [S.receivedPrepare, S.reserved],
    overdraft: [S.receivedPrepare, S.abortedRejected],
    [FUNDS_ACTION.fundsOutCommit]: [S.committed],
    [FUNDS_ACTION.fundsOutAbort]: [S.abortedRejected],
  });
});

test('the timeout handler asserts rather than writes a change the table refuses for what it claimed', () => {
  for (const state of ALL_TRANSFER_STATES.filter((state) => state !== S.receivedPrepare && state !== S.reserved)) {
    assert.throws(() => decideExpiries({ transfers: [transfer(state, { expiresAt: past })], now }), ILLEGAL, state);
  }
  assert.equal(releaseStaleTimeouts(ALL_TRANSFER_STATES.map((state) => transfer(state))).length, 1, 'only RESERVED_TIMEOUT awaits its release');
});

const POSITION_EVENTS = [
  { action: 'prepare', accountId: PAYER_ACCOUNT },
  { action: 'commit', accountId: PAYEE_ACCOUNT, fulfilAction: 'commit' },
  { action: 'abort', accountId: PAYER_ACCOUNT },
  { action: 'timeout-reserved', accountId: PAYER_ACCOUNT },
];

test('position events in every state: applied only along the table, otherwise replayed or skipped, never asserted', () => {
  for (const state of ALL_TRANSFER_STATES) {
    for (const { action, accountId, fulfilAction } of POSITION_EVENTS) {
      for (const [expiresAt, limit] of [[future, 5000n], [future, 1n], [past, 5000n]]) {
        const current = transfer(state, { expiresAt, fulfilment });
        const decided = decidePositionBatch({
          events: [{ action, accountId, fulfilAction, message: { id: 't' } }], transfers: new Map([['t', current]]),
          positions: new Map([[accountId, 400n]]), settlements: new Map([[accountId, -5000n]]), limits: new Map([[accountId, limit]]), now,
        });
        for (const update of decided.stateUpdates) assertDecidedPath(state, update.statePath, `${action} in ${state}`);
        if (decided.stateUpdates.length === 0) assert.deepEqual(decided.positionChanges, [], `${action} in ${state} moves no position`);
      }
    }
  }
});

test('fulfil events in every state: applied only along the table, otherwise refused as expected failures', () => {
  const bodies = {
    commit: { transferState: 'COMMITTED', fulfilment },
    reserve: { transferState: 'RESERVED', fulfilment },
    wrong: { transferState: 'COMMITTED', fulfilment: randomBytes(32).toString('base64url') },
    abort: { errorInformation: { errorCode: '5104', errorDescription: 'no' } },
    reject: { transferState: 'ABORTED' },
  };
  for (const state of ALL_TRANSFER_STATES) {
    for (const [name, body] of Object.entries(bodies)) {
      const action = name === 'wrong' ? 'commit' : name;
      const event = { id: 't', type: 'transfer', action, from: 'payee', to: 'payer', headers: {}, body };
      const decided = decideFulfilBatch({ events: [event], transfers: new Map([['t', transfer(state)]]), now });
      for (const update of decided.stateUpdates) assertDecidedPath(state, update.statePath, `${name} in ${state}`);
      if (state !== S.reserved) assert.deepEqual(decided.stateUpdates, [], `${name} in ${state} changes nothing`);
    }
  }
});

test('a funds-out completion the table refuses is an expected failure, and an allowed one is a decided path', () => {
  for (const state of ALL_TRANSFER_STATES) {
    for (const action of [FUNDS_ACTION.fundsOutCommit, FUNDS_ACTION.fundsOutAbort]) {
      const fundsOut = transfer(state, { kind: TRANSFER_KIND.fundsOut, payerAccountId: 2, payeeAccountId: 9 });
      const decision = decideFundsOutCompletion({ action, transfer: fundsOut, settlementAccountId: 2 });
      if (isFailure(decision) || decision.duplicate) continue;
      assertDecidedPath(state, decision.statePath, `${action} in ${state}`, TRANSFER_KIND.fundsOut);
    }
  }
});
