import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FUNDS_ACTION, decideFundsOutCompletion, decideRecordFunds } from '../../ledger/domain/funds.js';
import { FAILURE, isFailure } from '../../platform/domain/failures.js';
import { TRANSFER_KIND, TRANSFER_STATE } from '../../ledger/domain/transfer-states.js';

const accounts = { settlement: { id: 2 }, hubReconciliation: { id: 9 }, position: { id: 1 } };
const request = (action, amount) => ({ transferId: 't1', action, amount, currency: 'USD' });
const values = (settlement, position = 0n) => new Map([[2, settlement], [9, 0n], [1, position]]);

test('funds in moves the hub reconciliation up and the settlement account down by the amount', () => {
  const decision = decideRecordFunds({ request: request(FUNDS_ACTION.fundsIn, 5000n), requestHash: 'h', existing: null, accounts, positionValues: values(0n) });
  assert.equal(decision.transfer.state, TRANSFER_STATE.committed);
  assert.equal(decision.transfer.kind, TRANSFER_KIND.fundsIn);
  assert.deepEqual(decision.positionChanges.map((change) => [change.accountId, change.change]), [[9, 5000n], [2, -5000n]]);
  assert.equal(decision.positionChanges.reduce((sum, change) => sum + change.change, 0n), 0n, 'money is conserved');
});

test('the same request again is a duplicate; different content is a modified request', () => {
  const existing = { requestHash: 'h', state: TRANSFER_STATE.committed };
  const same = decideRecordFunds({ request: request(FUNDS_ACTION.fundsIn, 1n), requestHash: 'h', existing, accounts, positionValues: values(0n) });
  assert.equal(same.duplicate, true);
  const modified = decideRecordFunds({ request: request(FUNDS_ACTION.fundsIn, 1n), requestHash: 'other', existing, accounts, positionValues: values(0n) });
  assert.equal(modified.code, FAILURE.modifiedRequest);
});

test('funds out reserves on the settlement account and never overdraws', () => {
  const ok = decideRecordFunds({ request: request(FUNDS_ACTION.fundsOutPrepareReserve, 3000n), requestHash: 'h', existing: null, accounts, positionValues: values(-5000n) });
  assert.equal(ok.transfer.state, TRANSFER_STATE.reserved);
  assert.deepEqual(ok.positionChanges.map((change) => [change.accountId, change.change]), [[2, 3000n]]);
  const overdraw = decideRecordFunds({ request: request(FUNDS_ACTION.fundsOutPrepareReserve, 5001n), requestHash: 'h', existing: null, accounts, positionValues: values(-5000n) });
  assert.equal(overdraw.transfer.state, TRANSFER_STATE.abortedRejected);
  assert.deepEqual(overdraw.positionChanges, []);
  assert.equal(overdraw.rejection.code, FAILURE.insufficientLiquidity);
});

test('funds out cannot take cover that backs the open net debit position', () => {
  const decision = decideRecordFunds({ request: request(FUNDS_ACTION.fundsOutPrepareReserve, 3000n), requestHash: 'h', existing: null, accounts, positionValues: values(-5000n, 2500n) });
  assert.equal(decision.rejection.code, FAILURE.insufficientLiquidity);
  const exact = decideRecordFunds({ request: request(FUNDS_ACTION.fundsOutPrepareReserve, 2500n), requestHash: 'h', existing: null, accounts, positionValues: values(-5000n, 2500n) });
  assert.equal(exact.rejection, undefined);
});

test('funds out commit moves the hub side; abort releases the settlement reservation; repeats change nothing', () => {
  const reserved = { transferId: 't1', kind: TRANSFER_KIND.fundsOut, payerAccountId: 2, payeeAccountId: 9, amount: 300n, state: TRANSFER_STATE.reserved };
  const commit = decideFundsOutCompletion({ action: FUNDS_ACTION.fundsOutCommit, transfer: reserved, settlementAccountId: 2 });
  assert.deepEqual(commit.positionChanges.map((change) => [change.accountId, change.change]), [[9, -300n]]);
  const abort = decideFundsOutCompletion({ action: FUNDS_ACTION.fundsOutAbort, transfer: reserved, settlementAccountId: 2 });
  assert.deepEqual(abort.positionChanges.map((change) => [change.accountId, change.change]), [[2, -300n]]);
  const again = decideFundsOutCompletion({ action: FUNDS_ACTION.fundsOutCommit, transfer: { ...reserved, state: TRANSFER_STATE.committed }, settlementAccountId: 2 });
  assert.equal(again.duplicate, true);
  const abortAfterCommit = decideFundsOutCompletion({ action: FUNDS_ACTION.fundsOutAbort, transfer: { ...reserved, state: TRANSFER_STATE.committed }, settlementAccountId: 2 });
  assert.equal(abortAfterCommit.code, FAILURE.invalidState);
  assert.ok(isFailure(decideFundsOutCompletion({ action: FUNDS_ACTION.fundsOutCommit, transfer: reserved, settlementAccountId: 3 })));
  assert.equal(decideFundsOutCompletion({ action: FUNDS_ACTION.fundsOutCommit, transfer: null, settlementAccountId: 2 }).code, FAILURE.transferNotFound);
});
