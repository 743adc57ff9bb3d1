// The built-in oracle's HTTP API: Mojaloop's oracle API as als-msisdn-oracle serves it, for
// every FSPIOP party id type. A sub-id may come in the path (/{SubId}), in the query (GET,
// DELETE) or in the body (POST, PUT) as `partySubIdOrType`, which is how Mojaloop's ALS sends it.
// Unknown parties are 200 with an empty partyList, as als-msisdn-oracle answers.
import { failureToFspiop } from '../../platform/fspiop/errors.js';
import { RAW_JSON_PAYLOAD, emptyResponse, failureResponse, jsonResponse, readJsonBody } from '../../platform/http/server.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { servedByAnotherFailure } from '../domain/ownership.js';
import { BATCH_PAYLOAD_BYTES_MAX, partyPathProblem, validators } from '../schemas.js';
import { deleteParty, findParty, registerParties, upsertParties } from './repository.js';

/** The party a request names: `{ party }` or `{ problem }` (a domain failure). */
function partyOfRequest(request, body) {
  const problem = partyPathProblem(request.params);
  if (problem) return { problem: failure(FAILURE.validation, problem) };
  const subId = request.params.SubId ?? request.query.partySubIdOrType ?? body?.partySubIdOrType;
  if (subId !== undefined && (typeof subId !== 'string' || subId.length === 0 || subId.length > 128)) {
    return { problem: failure(FAILURE.validation, 'partySubIdOrType must be 1 to 128 characters') };
  }
  return { party: { type: request.params.Type, id: request.params.ID, subId } };
}

/** Route options for a handler `handle(request, h, party, body)` with a JSON body. */
function partyBodyRoute(method, path, handle) {
  return {
    method, path, options: { payload: RAW_JSON_PAYLOAD },
    handler: async (request, h) => {
      const { body, failure: invalid } = readJsonBody(request, validators.oracleRegistration);
      if (invalid) return failureResponse(h, invalid);
      const { party, problem } = partyOfRequest(request, body);
      return problem ? failureResponse(h, problem) : handle(request, h, party, body);
    },
  };
}

function partyRoute(method, path, handle) {
  return {
    method, path,
    handler: async (request, h) => {
      const { party, problem } = partyOfRequest(request);
      return problem ? failureResponse(h, problem) : handle(request, h, party);
    },
  };
}

/** One batch party's answer, as Mojaloop's oracle batch API lists it (PartyResult). */
function batchResult(partyId, outcome) {
  if (outcome.registered) return { partyId };
  return { partyId, errorInformation: failureToFspiop(servedByAnotherFailure(outcome.servedBy)).body.errorInformation };
}

async function registerBatch(db, request, h) {
  const { body, failure: invalid } = readJsonBody(request, validators.oracleBatch);
  if (invalid) return failureResponse(h, invalid);
  const parties = body.partyList.map((entry) => ({
    type: entry.partyIdType, id: entry.partyIdentifier, subId: entry.partySubIdOrType, fspId: entry.fspId, currency: body.currency,
  }));
  const outcomes = await registerParties(db, parties);
  return jsonResponse(h, { partyList: body.partyList.map((partyId, index) => batchResult(partyId, outcomes[index])) }, 201);
}

/** The oracle API's routes over `db`. */
export function oracleRoutes({ db }) {
  const find = async (request, h, party) => {
    const entry = await findParty(db, { ...party, currency: request.query.currency });
    return jsonResponse(h, { partyList: entry ? [entry] : [] });
  };
  const register = async (request, h, party, body) => {
    const [outcome] = await registerParties(db, [{ ...party, fspId: body.fspId, currency: body.currency }]);
    return outcome.registered ? emptyResponse(h, 201) : failureResponse(h, servedByAnotherFailure(outcome.servedBy));
  };
  const replace = async (request, h, party, body) => {
    await upsertParties(db, [{ ...party, fspId: body.fspId, currency: body.currency }], { setOwner: true });
    return emptyResponse(h, 200);
  };
  const remove = async (request, h, party) => {
    await deleteParty(db, party);
    return emptyResponse(h, 204);
  };
  return ['/participants/{Type}/{ID}', '/participants/{Type}/{ID}/{SubId}'].flatMap((path) => [
    partyRoute('GET', path, find),
    partyBodyRoute('POST', path, register),
    partyBodyRoute('PUT', path, replace),
    partyRoute('DELETE', path, remove),
  ]).concat({
    method: 'POST', path: '/participants', options: { payload: { ...RAW_JSON_PAYLOAD, maxBytes: BATCH_PAYLOAD_BYTES_MAX } },
    handler: (request, h) => registerBatch(db, request, h),
  });
}
