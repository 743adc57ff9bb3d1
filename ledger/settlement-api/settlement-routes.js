// Settlements: create one over closed windows, list and read them, and the PUT forms that
// move their accounts or abort them (the changes themselves are in settlement-updates.js).
import { bodyRoute, failureResponse, jsonResponse } from '../../platform/http/server.js';
import { withRefusalForAudit } from '../../platform/http/operator-audit.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { findSettlement, findSettlementIds, findSettlements, findWindows } from '../repositories/settlements.js';
import { parseId, readFilters } from './query.js';
import { validators } from './schemas.js';
import { abortSettlement, createSettlement, settlementNotFound, updateAccounts } from './settlement-updates.js';
import { settlementView } from './views.js';

export const SETTLEMENT_FILTERS = Object.freeze(['state', 'fromDateTime', 'toDateTime', 'currency', 'settlementWindowId', 'fromSettlementWindowDateTime',
  'toSettlementWindowDateTime', 'participantId', 'accountId']);

/** A PUT's answer: its failure, or the settlement as it now is (with any accounts refused inside the 200). */
function answer(h, outcome) {
  if (isFailure(outcome)) return failureResponse(h, outcome);
  const response = jsonResponse(h, outcome);
  // Accounts asked for a step they may not take are refused inside the 200, as
  // central-settlement answers them; the audit trail keeps the refusal.
  const refused = (outcome.participants ?? []).flatMap((participant) => participant.accounts.filter((account) => account.errorInformation));
  if (refused.length === 0) return response;
  return withRefusalForAudit(response, {
    errorCode: refused[0].errorInformation.errorCode,
    errorDescription: refused.map((account) => `account ${account.id}: ${account.errorInformation.errorDescription}`).join('; '),
  });
}

export function settlementRoutes({ db, config, clock }) {
  const deps = { db, config, clock };
  const viewOf = async (settlement) => settlementView(settlement, await findWindows(db, { ids: settlement.windowIds }));

  async function postSettlement(request, h, body) {
    const outcome = await createSettlement(deps, body);
    if (isFailure(outcome)) return failureResponse(h, outcome);
    return jsonResponse(h, outcome);
  }

  async function listSettlements(request, h) {
    const filters = readFilters(request, SETTLEMENT_FILTERS);
    if (isFailure(filters)) return failureResponse(h, filters);
    const ids = await findSettlementIds(db, filters);
    if (ids.length === 0) return failureResponse(h, failure(FAILURE.validation, 'Settlements not found'));
    // Every settlement and window in a handful of queries, however many were found; each
    // settlement's windows keep findWindows' order.
    const settlements = await findSettlements(db, ids);
    const windows = await findWindows(db, { ids: [...new Set(settlements.flatMap((settlement) => settlement.windowIds))] });
    return jsonResponse(h, settlements.map((settlement) => settlementView(settlement, windows.filter((window) => settlement.windowIds.includes(window.id)))));
  }

  async function getSettlement(request, h) {
    const id = parseId(request.params.id, 'settlement id');
    if (isFailure(id)) return failureResponse(h, id);
    const settlement = await findSettlement(db, id);
    if (!settlement) return failureResponse(h, settlementNotFound());
    return jsonResponse(h, await viewOf(settlement));
  }

  const accountRequests = (participantId, accounts) => accounts.map((account) => ({
    participantId, accountId: Number(account.id), state: account.state, reason: account.reason, externalReference: account.externalReference,
  }));

  async function updateSettlement(request, h, body) {
    const id = parseId(request.params.id, 'settlement id');
    if (isFailure(id)) return failureResponse(h, id);
    if (body.participants) {
      if (body.state || body.reason || body.externalReference) {
        return failureResponse(h, failure(FAILURE.validation, 'No other properties are allowed when participants is provided'));
      }
      return answer(h, await updateAccounts(deps, id, body.participants.flatMap((participant) => accountRequests(Number(participant.id), participant.accounts))));
    }
    if (!body.state || !body.reason) return failureResponse(h, failure(FAILURE.missingElement, 'State and reason are mandatory'));
    return answer(h, await abortSettlement(deps, id, body));
  }

  async function updateParticipant(request, h, body) {
    const ids = [parseId(request.params.sid, 'settlement id'), parseId(request.params.pid, 'participant id')];
    const invalid = ids.find(isFailure);
    if (invalid) return failureResponse(h, invalid);
    return answer(h, await updateAccounts(deps, ids[0], accountRequests(ids[1], body.accounts)));
  }

  async function updateAccount(request, h, body) {
    const ids = [parseId(request.params.sid, 'settlement id'), parseId(request.params.pid, 'participant id'), parseId(request.params.aid, 'account id')];
    const invalid = ids.find(isFailure);
    if (invalid) return failureResponse(h, invalid);
    return answer(h, await updateAccounts(deps, ids[0], accountRequests(ids[1], [{ ...body, id: String(ids[2]) }])));
  }

  return [
    bodyRoute('POST', '/v2/settlements', validators.createSettlement, postSettlement),
    { method: 'GET', path: '/v2/settlements', handler: listSettlements },
    { method: 'GET', path: '/v2/settlements/{id}', handler: getSettlement },
    bodyRoute('PUT', '/v2/settlements/{id}', validators.updateSettlement, updateSettlement),
    bodyRoute('PUT', '/v2/settlements/{sid}/participants/{pid}', validators.updateParticipant, updateParticipant),
    bodyRoute('PUT', '/v2/settlements/{sid}/participants/{pid}/accounts/{aid}', validators.updateAccount, updateAccount),
  ];
}
