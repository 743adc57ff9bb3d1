// The ALS admin API's oracle routes, as Mojaloop's account-lookup-service admin API has them:
// POST/GET /oracles, PUT/DELETE /oracles/{ID}. An id type with no oracle registered is served
// by the built-in oracle; a registered one takes over at every edge within its registry TTL.
import { bodyRoute, emptyResponse, failureResponse, jsonResponse } from '../../platform/http/server.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { errorInformation } from '../../platform/fspiop/errors.js';
import { PARTY_ID_TYPES, validators } from '../schemas.js';
import { deleteOracle, findOracle, insertOracle, isRegistered, listOracles, updateOracle } from './repository.js';

const QUERY_NAMES = ['type', 'currency'];

/** An oracle is reached over HTTP(S); anything else could never answer a lookup. */
function endpointProblem(endpoint) {
  let url;
  try {
    url = new URL(endpoint.value);
  } catch {
    return failure(FAILURE.validation, `endpoint.value "${endpoint.value}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return failure(FAILURE.validation, 'endpoint.value must be an http or https URL');
  return null;
}

function readListQuery(query) {
  const unknown = Object.keys(query).filter((name) => !QUERY_NAMES.includes(name));
  if (unknown.length > 0) return failure(FAILURE.validation, `unknown query parameter(s) ${unknown.join(', ')}`);
  if (query.type !== undefined && !PARTY_ID_TYPES.includes(query.type)) return failure(FAILURE.validation, `type must be one of ${PARTY_ID_TYPES.join(', ')}`);
  if (query.currency !== undefined && !/^[A-Z]{3}$/.test(query.currency)) return failure(FAILURE.validation, `currency "${query.currency}" is not an ISO 4217 code`);
  return { type: query.type, currency: query.currency };
}

/** `{ID}` as an existing oracle, or a failure (3100 for a malformed id, 3200 for an unknown one). */
async function resolveOracle(db, text) {
  if (!/^\d{1,9}$/.test(text)) return failure(FAILURE.validation, `oracle id "${text}" is not a number`);
  const oracle = await findOracle(db, Number(text));
  return oracle ?? failure(FAILURE.oracleNotFound, `oracle ${text} was not found`);
}

// Mojaloop's answer to an oracle registered again, word for word: its provisioning scripts
// accept error 2001 on a re-run. Mojaloop sends it with a 500; the switch sends it with a 400,
// since the request is refused and nothing is wrong with the server.
const ORACLE_EXISTS = 'Active oracle with matching partyIdTypeId, endpointTypeId, currencyId already exists';

function oracleExistsResponse(h) {
  return h.response(errorInformation(2001, ORACLE_EXISTS)).code(400);
}

export function oracleAdminRoutes({ db, clock }) {
  async function list(request, h) {
    const query = readListQuery(request.query);
    if (isFailure(query)) return failureResponse(h, query);
    return jsonResponse(h, await listOracles(db, query));
  }

  async function create(request, h, body) {
    const problem = endpointProblem(body.endpoint);
    if (problem) return failureResponse(h, problem);
    if (await isRegistered(db, body)) return oracleExistsResponse(h);
    const id = await insertOracle(db, body, { createdBy: 'als-admin-api', now: clock() });
    return jsonResponse(h, await findOracle(db, id), 201);
  }

  async function update(request, h, body) {
    const current = await resolveOracle(db, request.params.ID);
    if (isFailure(current)) return failureResponse(h, current);
    const merged = { ...current, ...body, endpoint: { ...current.endpoint, ...body.endpoint } };
    // An update changes the fields it names; to drop an oracle's currency, register it anew.
    const problem = endpointProblem(merged.endpoint);
    if (problem) return failureResponse(h, problem);
    if (await isRegistered(db, merged, { exceptId: current.oracleId })) return oracleExistsResponse(h);
    await updateOracle(db, current.oracleId, merged);
    return emptyResponse(h, 204);
  }

  async function remove(request, h) {
    const current = await resolveOracle(db, request.params.ID);
    if (isFailure(current)) return failureResponse(h, current);
    await deleteOracle(db, current.oracleId);
    return emptyResponse(h, 204);
  }

  return [
    { method: 'GET', path: '/oracles', handler: list },
    bodyRoute('POST', '/oracles', validators.oracleCreate, create),
    bodyRoute('PUT', '/oracles/{ID}', validators.oracleUpdate, update),
    { method: 'DELETE', path: '/oracles/{ID}', handler: remove },
  ];
}
