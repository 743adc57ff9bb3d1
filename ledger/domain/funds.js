// Funds in and out of a DFSP's settlement account, as central-ledger's admin API records
// them: a transfer between the hub's reconciliation account and the DFSP's settlement
// account, applied through the same position journal as payments. Funds in of X: hub
// reconciliation +X, settlement -X (the settlement account shows -X; the DFSP's liquidity
// cover is X). Funds out: reserve (settlement +X), then commit (hub -X) or abort (settlement -X).
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { formatAmount } from './money.js';
import { TRANSFER_KIND, TRANSFER_STATE, canTransition, transition } from './transfer-states.js';

export const FUNDS_ACTION = Object.freeze({
  fundsIn: 'recordFundsIn',
  fundsOutPrepareReserve: 'recordFundsOutPrepareReserve',
  fundsOutCommit: 'recordFundsOutCommit',
  fundsOutAbort: 'recordFundsOutAbort',
});

const S = TRANSFER_STATE;

/**
 * Decides a funds-in or funds-out reservation. `existing` is a transfer already stored under
 * the id: the same request again changes nothing, a different one is a modified request.
 * Returns a failure, `{ duplicate }`, or the transfer to store with its state path and
 * position changes (an overdrawing funds-out is stored aborted and also returns `rejection`).
 */
export function decideRecordFunds({ request, requestHash, existing, accounts, positionValues }) {
  if (existing) {
    if (existing.requestHash !== requestHash) return failure(FAILURE.modifiedRequest, `transfer ${request.transferId} was already recorded with different content`);
    return { ok: true, duplicate: true, state: existing.state };
  }
  const { settlement, hubReconciliation, position } = accounts;
  const isFundsIn = request.action === FUNDS_ACTION.fundsIn;
  const transfer = {
    transferId: request.transferId,
    kind: isFundsIn ? TRANSFER_KIND.fundsIn : TRANSFER_KIND.fundsOut,
    amount: request.amount,
    currency: request.currency,
    payerAccountId: isFundsIn ? hubReconciliation.id : settlement.id,
    payeeAccountId: isFundsIn ? settlement.id : hubReconciliation.id,
    requestHash,
  };
  if (isFundsIn) {
    return {
      ok: true,
      ...newTransfer(transfer, S.receivedPrepare, S.reserved, S.committed),
      positionChanges: [
        { accountId: hubReconciliation.id, change: request.amount, transferId: request.transferId, reason: 'FUNDS_IN' },
        { accountId: settlement.id, change: -request.amount, transferId: request.transferId, reason: 'FUNDS_IN' },
      ],
    };
  }
  const overdraft = fundsOutOverdraft(request.amount, positionValues.get(settlement.id), positionValues.get(position.id));
  if (overdraft) {
    return { ok: true, ...newTransfer(transfer, S.receivedPrepare, S.abortedRejected), positionChanges: [], rejection: overdraft };
  }
  return {
    ok: true,
    ...newTransfer(transfer, S.receivedPrepare, S.reserved),
    positionChanges: [{ accountId: settlement.id, change: request.amount, transferId: request.transferId, reason: 'FUNDS_OUT_RESERVE' }],
  };
}

/** A new transfer stored in the last of `states`, with the path that led there. */
function newTransfer(transfer, ...states) {
  const statePath = transition(transfer.kind, null, ...states);
  return { transfer: { ...transfer, state: statePath.at(-1) }, statePath };
}

/**
 * Funds out may neither overdraw the settlement account nor leave less cover than the
 * DFSP's current net debit position (central-ledger checks only the former; a scheme that
 * let collateral leave while it backs open positions would carry the DFSP's risk).
 */
function fundsOutOverdraft(amount, settlementValue, positionValue) {
  const coverAfter = -(settlementValue + amount);
  if (coverAfter < 0n) {
    return failure(FAILURE.insufficientLiquidity, `funds out of ${formatAmount(amount)} exceeds the settlement balance ${formatAmount(-settlementValue)}`);
  }
  const owed = positionValue > 0n ? positionValue : 0n;
  if (coverAfter < owed) {
    return failure(FAILURE.insufficientLiquidity, `funds out of ${formatAmount(amount)} would leave cover ${formatAmount(coverAfter)} below the net debit position ${formatAmount(owed)}`);
  }
  return null;
}

/** Commits or aborts a reserved funds-out; repeating the completed action changes nothing. */
export function decideFundsOutCompletion({ action, transfer, settlementAccountId }) {
  if (!transfer || transfer.kind !== TRANSFER_KIND.fundsOut || transfer.payerAccountId !== settlementAccountId) {
    return failure(FAILURE.transferNotFound, 'no funds-out transfer with this id on this account');
  }
  const target = action === FUNDS_ACTION.fundsOutCommit ? S.committed : S.abortedRejected;
  if (transfer.state === target) return { ok: true, duplicate: true, state: target };
  // The operator asking for a change the state does not allow is an expected failure, so it
  // is checked here; only the change decided past this check is asserted by `transition`.
  if (!canTransition(transfer.kind, transfer.state, target)) {
    return failure(FAILURE.invalidState, `transfer is ${transfer.state} and cannot become ${target}`);
  }
  const positionChange = action === FUNDS_ACTION.fundsOutCommit
    ? { accountId: transfer.payeeAccountId, change: -transfer.amount, transferId: transfer.transferId, reason: 'FUNDS_OUT_COMMIT' }
    : { accountId: transfer.payerAccountId, change: -transfer.amount, transferId: transfer.transferId, reason: 'FUNDS_OUT_ABORT' };
  return { ok: true, state: target, statePath: transition(transfer.kind, transfer.state, target), positionChanges: [positionChange] };
}
