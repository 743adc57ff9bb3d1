// The admin API's audit trail: what each write route changes (its snapshot, taken before and
// after the change in the change's transaction) and GET /audit, which reads the trail back.
import { jsonResponse } from '../../platform/http/server.js';
import { looseBody } from '../../platform/http/operator-audit.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { formatAmount } from '../domain/money.js';
import { accountsOfParticipants, findParticipantByName } from '../repositories/participants.js';
import { listEndpoints, listLimits, listSettlementModels } from '../repositories/onboarding.js';
import { listCurrencyPairs } from '../repositories/currency-pairs.js';
import { findTransfers } from '../repositories/transfers.js';
import { listAuditEntries } from '../repositories/operator-audit.js';
import { countReplays } from '../repositories/dead-letter-replays.js';
import { failureResponse } from './route-helpers.js';

/** A participant as far as any admin route can change it: activation, API type, accounts, positions, limits, endpoints, currency pairs. */
async function participantState(db, name) {
  const participant = await findParticipantByName(db, name);
  if (!participant) return null;
  const accounts = (await accountsOfParticipants(db, [participant.id])).map((account) => ({
    id: account.id, currency: account.currency, type: account.type, isActive: account.isActive,
    value: account.value, reservedValue: account.reservedValue,
  }));
  return {
    name: participant.name, isActive: participant.isActive, apiType: participant.apiType, accounts,
    limits: await listLimits(db, { participantId: participant.id }),
    endpoints: await listEndpoints(db, { participantId: participant.id }),
    currencyPairs: (await listCurrencyPairs(db, participant.id)).map(({ sourceCurrency, targetCurrency }) => ({ sourceCurrency, targetCurrency })),
  };
}

async function transferState(db, transferId) {
  const transfer = (await findTransfers(db, [transferId])).get(transferId);
  if (!transfer) return null;
  return {
    transferId, kind: transfer.kind, state: transfer.state, amount: formatAmount(transfer.amount), currency: transfer.currency,
    failureCode: transfer.failure?.code ?? null,
  };
}

/** What an admin write route may change: the participant it names, a funds transfer's state, or a handler's replayed dead letters (their count). */
export async function adminSnapshot(db, request) {
  const body = looseBody(request);
  if (request.route.path === '/deadLetters/{handler}/replay') {
    return { deadLetterReplays: await countReplays(db, request.params.handler) };
  }
  if (request.route.path === '/settlementModels') {
    return { settlementModels: (await listSettlementModels(db)).filter((model) => model.name === body?.name) };
  }
  const name = request.params.name ?? (typeof body?.name === 'string' ? body.name : undefined);
  const transferId = request.params.transferId ?? (typeof body?.transferId === 'string' ? body.transferId : undefined);
  const snapshot = { participant: name ? await participantState(db, name) : null };
  if (transferId) snapshot.transfer = await transferState(db, transferId);
  return snapshot;
}

const AUDIT_LIMIT_MAX = 1000;
const AUDIT_FILTERS = ['api', 'actor', 'method', 'route', 'target', 'from', 'to', 'beforeId', 'limit'];

function readTime(text, name) {
  if (text === undefined) return undefined;
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? failure(FAILURE.validation, `${name} "${text}" is not an ISO 8601 time`) : time;
}

function readWholeNumber(text, name, max) {
  if (text === undefined) return undefined;
  if (!/^\d{1,15}$/.test(text) || Number(text) < 1 || Number(text) > max) return failure(FAILURE.validation, `${name} must be a whole number from 1 to ${max}`);
  return Number(text);
}

/** GET /audit's query as repository filters, or a failure naming what is wrong. */
function readAuditQuery(query) {
  const unknown = Object.keys(query).filter((key) => !AUDIT_FILTERS.includes(key));
  if (unknown.length > 0) return failure(FAILURE.validation, `unknown query parameter(s) ${unknown.join(', ')}`);
  const parsed = {
    from: readTime(query.from, 'from'), to: readTime(query.to, 'to'),
    beforeId: readWholeNumber(query.beforeId, 'beforeId', Number.MAX_SAFE_INTEGER), limit: readWholeNumber(query.limit, 'limit', AUDIT_LIMIT_MAX) ?? 100,
  };
  const invalid = Object.values(parsed).find(isFailure);
  if (invalid) return invalid;
  const method = query.method?.toUpperCase();
  return { ...parsed, api: query.api, actor: query.actor, method, route: query.route, targetPrefix: query.target };
}

/** GET /audit: the trail, newest first (read-only scope allowed, like every GET). */
export function auditRoutes({ db }) {
  return [{
    method: 'GET',
    path: '/audit',
    handler: async (request, h) => {
      const filters = readAuditQuery(request.query);
      if (isFailure(filters)) return failureResponse(h, filters);
      return jsonResponse(h, await listAuditEntries(db, filters));
    },
  }];
}
