// Settlement models, initial position and limits, limit adjustments and endpoints.
import { bodyRoute, emptyResponse, jsonResponse } from '../../platform/http/server.js';
import { isDuplicateKeyError } from '../../platform/db.js';
import { OPERATOR_SCOPE, admitAlso } from '../../platform/http/operator-auth.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { parseAmount } from '../domain/money.js';
import { ACCOUNT_TYPE, INITIAL_POSITION_EXISTS, SETTLEMENT_MODEL_EXISTS, decideInitialPositionAndLimits } from '../domain/participants.js';
import { planPositionChanges } from '../domain/position.js';
import { callbackEndpointProblem } from '../domain/callback-urls.js';
import { findAccount, setAccountsActive } from '../repositories/participants.js';
import { applyPositionPlan, lockPositions } from '../repositories/positions.js';
import {
  findLimit, insertLimit, insertSettlementModel, listEndpoints, listLimits, listSettlementModels, updateLimit, upsertEndpoint,
} from '../repositories/onboarding.js';
import { limitView, settlementModelView } from './views.js';
import { failureResponse, readQuery, resolveParticipant } from './route-helpers.js';
import { validators } from './schemas.js';

export function onboardingRoutes({ db, config, clock }) {
  // Operators re-run provisioning scripts, which look for central-ledger's own words when a
  // model exists; the unique name decides, so two concurrent creations cannot both succeed.
  async function createSettlementModel(request, h, body) {
    try {
      await insertSettlementModel(db, body, clock());
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return failureResponse(h, failure(FAILURE.alreadyExists, SETTLEMENT_MODEL_EXISTS));
    }
    return emptyResponse(h, 201);
  }

  async function setInitialPositionAndLimits(request, h, body) {
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    const initialPosition = parseAmount(body.initialPosition ?? '0', { allowNegative: true });
    const limitValue = parseAmount(body.limit.value);
    const invalid = [initialPosition, limitValue].find(isFailure);
    if (invalid) return failureResponse(h, invalid);
    const positionAccount = await findAccount(db, { participantId: participant.id, currency: body.currency, type: ACCOUNT_TYPE.position });
    const settlementAccount = await findAccount(db, { participantId: participant.id, currency: body.currency, type: ACCOUNT_TYPE.settlement });
    const existingLimit = positionAccount && await findLimit(db, { accountId: positionAccount.id, type: body.limit.type });
    const decision = decideInitialPositionAndLimits({ positionAccount, settlementAccount, existingLimit, limitType: body.limit.type });
    if (isFailure(decision)) return failureResponse(h, decision);
    try {
      await db.transaction(async (trx) => {
        const now = clock();
        await insertLimit(trx, { accountId: positionAccount.id, type: body.limit.type, value: limitValue, alarmPercentage: '10', now });
        const positions = await lockPositions(trx, [positionAccount.id]);
        const changes = initialPosition === 0n ? [] : [{ accountId: positionAccount.id, change: initialPosition, reason: 'INITIAL_POSITION' }];
        await applyPositionPlan(trx, planPositionChanges(positions, changes), now);
        await setAccountsActive(trx, [positionAccount.id, settlementAccount.id], true);
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return failureResponse(h, failure(FAILURE.alreadyExists, INITIAL_POSITION_EXISTS));
    }
    return emptyResponse(h, 201);
  }

  async function adjustLimit(request, h, body) {
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    const value = parseAmount(body.limit.value);
    if (isFailure(value)) return failureResponse(h, value);
    const positionAccount = await findAccount(db, { participantId: participant.id, currency: body.currency, type: ACCOUNT_TYPE.position });
    const existing = positionAccount && await findLimit(db, { accountId: positionAccount.id, type: body.limit.type });
    if (!existing) return failureResponse(h, failure(FAILURE.accountNotFound, `no ${body.limit.type} limit for ${participant.name} in ${body.currency}`));
    const row = await updateLimit(db, { accountId: positionAccount.id, type: body.limit.type, value, alarmPercentage: body.limit.alarmPercentage, now: clock() });
    return jsonResponse(h, limitView({ currency: body.currency, type: row.type, value: row.value, alarmPercentage: row.alarm_percentage }));
  }

  async function addEndpoint(request, h, body) {
    const problem = callbackEndpointProblem(body, { allowLinkLocal: config.callbackUrlsAllowLinkLocal });
    if (problem) return failureResponse(h, failure(FAILURE.validation, problem));
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    await upsertEndpoint(db, { participantId: participant.id, type: body.type, value: body.value, now: clock() });
    return emptyResponse(h, 201);
  }

  return [
    bodyRoute('POST', '/settlementModels', validators.settlementModel, createSettlementModel),
    bodyRoute('POST', '/participants/{name}/initialPositionAndLimits', validators.initialPositionAndLimits, setInitialPositionAndLimits),
    bodyRoute('PUT', '/participants/{name}/limits', validators.limitAdjustment, adjustLimit),
    bodyRoute('POST', '/participants/{name}/endpoints', validators.endpoint, addEndpoint),
    { method: 'GET', path: '/settlementModels', handler: async (request, h) => jsonResponse(h, (await listSettlementModels(db)).map(settlementModelView)) },
    { method: 'GET', path: '/participants/limits', handler: (request, h) => getAllLimits(db, request, h) },
    { method: 'GET', path: '/participants/{name}/limits', handler: (request, h) => getLimits(db, request, h) },
    // The notification handler and account lookup read where to call a DFSP with the DFSP directory token.
    admitAlso({ method: 'GET', path: '/participants/{name}/endpoints', handler: (request, h) => getEndpoints(db, request, h) }, [OPERATOR_SCOPE.dfspDirectoryRead]),
  ];
}

async function getAllLimits(db, request, h) {
  const query = readQuery(request, ['currency', 'type']);
  if (isFailure(query)) return failureResponse(h, query);
  const rows = await listLimits(db, query);
  return jsonResponse(h, rows.map((row) => limitView(row, { withName: true })));
}

async function getLimits(db, request, h) {
  const participant = await resolveParticipant(db, request);
  if (isFailure(participant)) return failureResponse(h, participant);
  const query = readQuery(request, ['currency', 'type']);
  if (isFailure(query)) return failureResponse(h, query);
  const rows = await listLimits(db, { participantId: participant.id, ...query });
  return jsonResponse(h, rows.map((row) => limitView(row)));
}

/** With ?type= central-ledger answers one `{type, value}` object (or `{}`), else a list. */
async function getEndpoints(db, request, h) {
  const participant = await resolveParticipant(db, request);
  if (isFailure(participant)) return failureResponse(h, participant);
  const query = readQuery(request, ['type']);
  if (isFailure(query)) return failureResponse(h, query);
  const rows = await listEndpoints(db, { participantId: participant.id, type: query.type });
  if (query.type) return jsonResponse(h, rows[0] ?? {});
  return jsonResponse(h, rows);
}
