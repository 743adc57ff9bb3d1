// Participants, hub accounts, DFSP accounts and positions (central-ledger's routes).
import { bodyRoute, emptyResponse, jsonResponse } from '../../platform/http/server.js';
import { isDuplicateKeyError } from '../../platform/db.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { OPERATOR_SCOPE, admitAlso } from '../../platform/http/operator-auth.js';
import { API_TYPE } from '../../platform/iso20022/media-types.js';
import { ACCOUNT_TYPE, decideHubAccount, decideParticipantCurrency } from '../domain/participants.js';
import {
  accountsOfParticipants, findAccount, findAccountById, findParticipantByName, hubAccountTypes, insertAccounts,
  insertParticipant, listParticipants, setAccountsActive, setParticipantActive, setParticipantApiType,
} from '../repositories/participants.js';
import { listSettlementModels } from '../repositories/onboarding.js';
import { accountBalanceView, participantDirectoryView, participantView, positionView } from './views.js';
import { failureResponse, parseAccountId, readQuery, resolveParticipant } from './route-helpers.js';
import { validators } from './schemas.js';

export function participantRoutes({ db, config, clock }) {
  const view = async (participant) =>
    participantView(participant, await accountsOfParticipants(db, [participant.id]), config.adminApiBaseUrl);

  async function createHubAccount(request, h, body) {
    const participant = await findParticipantByName(db, request.params.name);
    const existingAccount = participant && await findAccount(db, { participantId: participant.id, currency: body.currency, type: body.type });
    const decision = decideHubAccount({ participant, hubName: config.hubName, type: body.type, existingAccount });
    if (isFailure(decision)) return failureResponse(h, decision);
    await db.transaction((trx) => insertAccounts(trx, {
      participantId: participant.id, currency: body.currency, types: [body.type], isActive: true, createdBy: 'admin-api', now: clock(),
    }));
    return jsonResponse(h, await view(participant), 201);
  }

  async function createParticipant(request, h, body) {
    const hub = await findParticipantByName(db, config.hubName);
    const existing = await findParticipantByName(db, body.name);
    const currencies = existing ? (await accountsOfParticipants(db, [existing.id])).map((account) => account.currency) : [];
    const decision = decideParticipantCurrency({
      hubAccountTypes: await hubAccountTypes(db, hub.id, body.currency),
      participantCurrencies: currencies,
      currency: body.currency,
      settlementModels: (await listSettlementModels(db)).filter((model) => model.isActive),
    });
    if (isFailure(decision)) return failureResponse(h, decision);
    const apiTypeProblem = existing && apiTypeConflict(existing, body.apiType);
    if (apiTypeProblem) return failureResponse(h, apiTypeProblem);
    try {
      await db.transaction(async (trx) => {
        const now = clock();
        const participantId = existing?.id ?? await insertParticipant(trx, { name: body.name, apiType: body.apiType, createdBy: 'admin-api', now });
        await insertAccounts(trx, { participantId, currency: body.currency, types: decision.accountTypes, isActive: false, createdBy: 'admin-api', now });
      });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return failureResponse(h, failure(FAILURE.alreadyExists, 'Participant currency has already been registered'));
    }
    return jsonResponse(h, await view(await findParticipantByName(db, body.name)), 201);
  }

  // central-ledger's `{ isActive }`, and the API type the participant receives its messages in.
  async function updateParticipant(request, h, body) {
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    if (body.apiType !== undefined && participant.name === config.hubName && body.apiType !== API_TYPE.fspiop) {
      return failureResponse(h, failure(FAILURE.validation, `the hub's API type is ${API_TYPE.fspiop}: every message it originates is FSPIOP`));
    }
    if (body.isActive !== undefined) await setParticipantActive(db, participant.id, body.isActive);
    if (body.apiType !== undefined) await setParticipantApiType(db, participant.id, body.apiType);
    return jsonResponse(h, await view({ ...participant, ...body }));
  }

  async function updateAccount(request, h, body) {
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    const account = await findOwnAccount(db, participant, request.params.id);
    if (isFailure(account)) return failureResponse(h, account);
    if (account.type !== ACCOUNT_TYPE.position) return failureResponse(h, failure(FAILURE.validation, 'Only position account update is permitted'));
    await setAccountsActive(db, [account.id], body.isActive);
    return emptyResponse(h, 200);
  }

  return [
    bodyRoute('POST', '/participants/{name}/accounts', validators.hubAccount, createHubAccount),
    bodyRoute('POST', '/participants', validators.participantCreate, createParticipant),
    bodyRoute('PUT', '/participants/{name}', validators.participantUpdate, updateParticipant),
    bodyRoute('PUT', '/participants/{name}/accounts/{id}', validators.isActive, updateAccount),
    { method: 'GET', path: '/participants', handler: (request, h) => getParticipants(db, request, h, view) },
    // The notification handler and account lookup read a DFSP's API type here, beside its
    // endpoints, with the DFSP directory token, which sees no accounts (readsAsDirectory).
    admitAlso({ method: 'GET', path: '/participants/{name}', handler: (request, h) => getParticipant(db, request, h, view) }, [OPERATOR_SCOPE.dfspDirectoryRead]),
    { method: 'GET', path: '/participants/{name}/accounts', handler: (request, h) => getAccounts(db, request, h) },
    { method: 'GET', path: '/participants/{name}/positions', handler: (request, h) => getPositions(db, request, h) },
  ];
}

/**
 * POST /participants for a participant that exists adds a currency; it does not change the API
 * type the participant was registered with, which PUT /participants/{name} does. An apiType
 * other than the registered one is refused rather than silently ignored.
 */
function apiTypeConflict(participant, apiType) {
  if (apiType === undefined || apiType === participant.apiType) return null;
  return failure(FAILURE.validation,
    `participant ${participant.name} is registered with API type ${participant.apiType}; change it with PUT /participants/${participant.name}`);
}

/** An account id from the path that must belong to the participant. */
export async function findOwnAccount(db, participant, idText) {
  const accountId = parseAccountId(idText);
  if (isFailure(accountId)) return accountId;
  const account = await findAccountById(db, accountId);
  if (!account || account.participantId !== participant.id) {
    return failure(FAILURE.accountNotFound, `account ${idText} does not belong to ${participant.name}`);
  }
  return account;
}

async function getParticipants(db, request, h, view) {
  const query = readQuery(request, ['isProxy']);
  if (isFailure(query)) return failureResponse(h, query);
  const participants = await listParticipants(db);
  const views = await Promise.all(participants.map(view));
  return jsonResponse(h, query.isProxy === 'true' ? views.filter((item) => item.isProxy) : views);
}

/** Whether the caller holds the DFSP directory scope and not the admin API's read scope. */
function readsAsDirectory(request) {
  const scopes = request.auth.credentials?.scope;
  return Boolean(scopes) && !scopes.includes(OPERATOR_SCOPE.adminRead);
}

async function getParticipant(db, request, h, view) {
  const participant = await resolveParticipant(db, request);
  if (isFailure(participant)) return failureResponse(h, participant);
  return jsonResponse(h, readsAsDirectory(request) ? participantDirectoryView(participant) : await view(participant));
}

async function getAccounts(db, request, h) {
  const participant = await resolveParticipant(db, request);
  if (isFailure(participant)) return failureResponse(h, participant);
  const query = readQuery(request, ['currency']);
  if (isFailure(query)) return failureResponse(h, query);
  const accounts = await accountsOfParticipants(db, [participant.id], query);
  return jsonResponse(h, accounts.map(accountBalanceView));
}

async function getPositions(db, request, h) {
  const participant = await resolveParticipant(db, request);
  if (isFailure(participant)) return failureResponse(h, participant);
  const query = readQuery(request, ['currency']);
  if (isFailure(query)) return failureResponse(h, query);
  const positions = (await accountsOfParticipants(db, [participant.id], query))
    .filter((account) => account.type === ACCOUNT_TYPE.position).map(positionView);
  if (!query.currency) return jsonResponse(h, positions);
  return jsonResponse(h, positions[0] ?? {});
}
