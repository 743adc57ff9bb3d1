// Funds in and out of a DFSP's settlement account. Central-ledger queues these and answers
// 202; here each is applied in one database transaction before the 202, through the same
// locked-position and journal path as payments, so the answer already reflects the change.
// A funds-out that would overdraw is recorded as aborted and answered with 4001.
import { bodyRoute, emptyResponse } from '../../platform/http/server.js';
import { isDuplicateKeyError } from '../../platform/db.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { FUNDS_ACTION, decideFundsOutCompletion, decideRecordFunds } from '../domain/funds.js';
import { parseAmount } from '../domain/money.js';
import { ACCOUNT_TYPE } from '../domain/participants.js';
import { planPositionChanges } from '../domain/position.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { findAccount, findParticipantByName } from '../repositories/participants.js';
import { applyPositionPlan, lockPositions } from '../repositories/positions.js';
import { applyStateUpdates, findTransfers, insertTransfers } from '../repositories/transfers.js';
import { failureResponse, resolveParticipant } from './route-helpers.js';
import { findOwnAccount } from './participant-routes.js';
import { validators } from './schemas.js';

export function fundsRoutes({ db, config, clock }) {
  /** The settlement account in the path plus the hub and position accounts funds touch. */
  async function resolveFundsAccounts(request, currency) {
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return participant;
    const settlement = await findOwnAccount(db, participant, request.params.id);
    if (isFailure(settlement)) return settlement;
    if (settlement.type !== ACCOUNT_TYPE.settlement) return failure(FAILURE.validation, `account ${settlement.id} is not a SETTLEMENT account`);
    if (currency && settlement.currency !== currency) return failure(FAILURE.validation, `account ${settlement.id} is in ${settlement.currency}, not ${currency}`);
    const hub = await findParticipantByName(db, config.hubName);
    const hubReconciliation = await findAccount(db, { participantId: hub.id, currency: settlement.currency, type: ACCOUNT_TYPE.hubReconciliation });
    if (!hubReconciliation) return failure(FAILURE.hubAccountsMissing, `no HUB_RECONCILIATION account in ${settlement.currency}`);
    const position = await findAccount(db, { participantId: participant.id, currency: settlement.currency, type: ACCOUNT_TYPE.position });
    return { settlement, hubReconciliation, position };
  }

  async function recordFunds(request, h, body) {
    const amount = parseAmount(body.amount.amount, { allowZero: false });
    if (isFailure(amount)) return failureResponse(h, amount);
    const accounts = await resolveFundsAccounts(request, body.amount.currency);
    if (isFailure(accounts)) return failureResponse(h, accounts);
    const fundsRequest = { ...body, amount, currency: body.amount.currency };
    const hash = requestHash(body);
    const outcome = await db.transaction(async (trx) => {
      const existing = (await findTransfers(trx, [body.transferId], { forUpdate: true })).get(body.transferId);
      const positionValues = await lockPositions(trx, [accounts.settlement.id, accounts.hubReconciliation.id, accounts.position.id]);
      const decision = decideRecordFunds({ request: fundsRequest, requestHash: hash, existing, accounts, positionValues });
      if (isFailure(decision) || decision.duplicate) return decision;
      const now = clock();
      await insertTransfers(trx, [{
        ...decision.transfer, statePath: decision.statePath, reason: body.reason, externalReference: body.externalReference,
      }], now);
      await applyPositionPlan(trx, planPositionChanges(positionValues, decision.positionChanges), now);
      return decision;
    }).catch((error) => {
      if (isDuplicateKeyError(error)) return failure(FAILURE.modifiedRequest, `transfer ${body.transferId} was recorded concurrently`);
      throw error;
    });
    if (isFailure(outcome)) return failureResponse(h, outcome);
    if (outcome.rejection) return failureResponse(h, outcome.rejection);
    return emptyResponse(h, 202);
  }

  async function completeFundsOut(request, h, body) {
    const accounts = await resolveFundsAccounts(request);
    if (isFailure(accounts)) return failureResponse(h, accounts);
    const outcome = await db.transaction(async (trx) => {
      const { transferId } = request.params;
      const transfer = (await findTransfers(trx, [transferId], { forUpdate: true })).get(transferId);
      const decision = decideFundsOutCompletion({ action: body.action, transfer, settlementAccountId: accounts.settlement.id });
      if (isFailure(decision) || decision.duplicate) return decision;
      const positionValues = await lockPositions(trx, decision.positionChanges.map((change) => change.accountId));
      const now = clock();
      await applyStateUpdates(trx, [{ transferId, statePath: decision.statePath, reason: body.reason, completedAt: now }], now);
      await applyPositionPlan(trx, planPositionChanges(positionValues, decision.positionChanges), now);
      return decision;
    });
    if (isFailure(outcome)) return failureResponse(h, outcome);
    return emptyResponse(h, 202);
  }

  return [
    bodyRoute('POST', '/participants/{name}/accounts/{id}', validators.recordFunds, recordFunds),
    bodyRoute('PUT', '/participants/{name}/accounts/{id}/transfers/{transferId}', validators.fundsOutCompletion, completeFundsOut),
  ];
}

export { FUNDS_ACTION };
