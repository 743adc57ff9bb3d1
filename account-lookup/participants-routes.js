// FSPIOP /participants: DFSPs tell the switch which parties they serve, and ask which DFSP
// serves a party. The switch keeps nothing itself: it asks the oracle for the party's id type
// and answers from the hub with PUT /participants/… callbacks (or …/error). Anyone may ask;
// only a proven sender (platform/fspiop/sender.js) may register or delete, and only its own
// parties (domain/ownership.js decides), so no request in another DFSP's name can take that
// DFSP's customers. A DFSP's own PUT …/error is relayed to the DFSP it names, as the /parties
// answers are.
import { fspiopRoute, notImplementedRoute } from '../platform/fspiop/edge.js';
import { failureToFspiop } from '../platform/fspiop/errors.js';
import { isProven, unprovenSenderFailure } from '../platform/fspiop/sender.js';
import { BATCH_ENDPOINTS, forwardEvent, hubEvent, participantEndpoint, partyErrorEvent, partyTemplateParams } from './callbacks.js';
import {
  decideDeletion, decideParticipantLookup, decideRegistration, lookupCurrencyFailure, oracleRefusalFailure,
} from './domain/ownership.js';
import { partyKey, partyOf } from './domain/parties.js';
import { pathSchemasOf, refuseUnknownSource, unroutableDestination } from './edge-flow.js';
import { OracleRefusalError } from './oracle-client.js';
import { registerBatch } from './participants-batch.js';
import { BATCH_PAYLOAD_BYTES_MAX } from './schemas.js';

/** `decide` for a proven sender only: a change to the oracle in an unproven sender's name is refused. */
const provenOnly = (decide) => (accepted, request) => (isProven(accepted.sender)
  ? decide(accepted, request)
  : { failure: unprovenSenderFailure('A change to the oracle') });

/** The hub's PUT …/error about `problem`, a domain failure, to the requester. */
function requesterError(accepted, party, problem, hubName) {
  return {
    events: [partyErrorEvent({ party, resource: 'participants', hubName, accepted, errorBody: failureToFspiop(problem).body })],
  };
}

/**
 * `decide` for a DFSP's (or an oracle's) PUT …/error about a party: relayed to the DFSP its
 * FSPIOP-Destination names as it came, as Mojaloop's ALS relays it; only a proven sender's,
 * as with every answer relayed to another DFSP. An unroutable one is told to the sender.
 */
function errorRelay({ directory, hubName }) {
  return async (accepted) => {
    if (!isProven(accepted.sender)) return { failure: unprovenSenderFailure('An answer relayed to another DFSP') };
    const refusal = await refuseUnknownSource(directory, accepted);
    if (refusal) return { failure: refusal };
    const party = partyOf(accepted.params);
    const unroutable = await unroutableDestination(directory, accepted);
    if (unroutable) return requesterError(accepted, party, unroutable, hubName);
    return {
      events: [forwardEvent({
        accepted, party, action: 'error', to: accepted.headers['fspiop-destination'], endpointType: participantEndpoint('error', party), method: 'PUT', resource: 'participants',
      })],
    };
  };
}

/**
 * The /participants routes. `respond` comes from createResponder(); `directory` answers
 * which DFSPs are active; `registry.urlFor()` picks the oracle and `client` talks to it.
 */
export function participantRoutes({ respond, directory, registry, client, hubName }) {
  /** The hub's PUT with `body` to the requester, on its PARTICIPANT[_SUB_ID]_PUT endpoint. */
  const confirm = (accepted, party, body) => ({
    events: [hubEvent({
      id: partyKey(party), action: 'answer', hubName, accepted, endpointType: participantEndpoint('put', party),
      templateParams: partyTemplateParams(party), resource: 'participants', body,
    })],
  });
  const fail = (accepted, party, problem) => requesterError(accepted, party, problem, hubName);

  /** Runs `decide(accepted, party, source, request)` for an active requester only. */
  const forActiveRequester = (decide) => async (accepted, request) => {
    const refusal = await refuseUnknownSource(directory, accepted);
    if (refusal) return { failure: refusal };
    return decide(accepted, partyOf(accepted.params), accepted.headers['fspiop-source'], request);
  };

  /**
   * Runs `change()` at the oracle and answers `done`; if the oracle refuses, the requester is
   * told `refusal(detail)` in the oracle's words (domain/ownership.js oracleRefusalFailure).
   */
  async function changeAtOracle(accepted, party, { change, refusal, done }) {
    try {
      await change();
    } catch (error) {
      if (error instanceof OracleRefusalError) return fail(accepted, party, refusal(error.detail));
      throw error;
    }
    return done;
  }

  async function lookUp(accepted, party, source, request) {
    const { currency } = request.query;
    const invalid = lookupCurrencyFailure(currency);
    if (invalid) return { failure: invalid };
    const entries = await client.find(await registry.urlFor({ type: party.type, currency }), { party, currency, source });
    const { answer, error } = decideParticipantLookup({ entries });
    return error ? fail(accepted, party, error) : confirm(accepted, party, answer);
  }

  async function register(accepted, party, source) {
    const { fspId, currency } = accepted.body;
    const { error } = decideRegistration({ source, fspId });
    if (error) return fail(accepted, party, error);
    return changeAtOracle(accepted, party, {
      change: async () => client.register(await registry.urlFor({ type: party.type, currency }), { party, fspId, currency, source }),
      refusal: oracleRefusalFailure.register,
      done: confirm(accepted, party, { fspId }),
    });
  }

  async function remove(accepted, party, source) {
    const url = await registry.urlFor({ type: party.type });
    const [entry] = await client.find(url, { party, source });
    const { error } = decideDeletion({ source, entry });
    if (error) return fail(accepted, party, error);
    return changeAtOracle(accepted, party, {
      change: () => client.remove(url, { party, source }),
      refusal: oracleRefusalFailure.remove,
      // The specification leaves fspId out once the party's information is deleted.
      done: confirm(accepted, party, {}),
    });
  }

  async function registerMany(accepted) {
    const refusal = await refuseUnknownSource(directory, accepted);
    if (refusal) return { failure: refusal };
    const { requestId, currency } = accepted.body;
    const partyList = await registerBatch({ registry, client, request: accepted.body, source: accepted.headers['fspiop-source'] });
    return {
      events: [hubEvent({
        id: requestId, action: 'answer', hubName, accepted, endpointType: BATCH_ENDPOINTS.put,
        templateParams: { requestId }, resource: 'participants', body: { partyList, ...(currency ? { currency } : {}) },
      })],
    };
  }

  const route = (method, path, decide, payloadBytesMax, status = 202) => fspiopRoute({
    resource: 'participants', method, path, pathSchemas: pathSchemasOf(path), handle: respond(status, decide), payloadBytesMax,
  });
  const paths = ['/participants/{Type}/{ID}', '/participants/{Type}/{ID}/{SubId}'];
  return [
    ...paths.flatMap((path) => [
      route('GET', path, forActiveRequester(lookUp)),
      route('POST', path, provenOnly(forActiveRequester(register))),
      route('DELETE', path, provenOnly(forActiveRequester(remove))),
      // The answers go from the switch to DFSPs; DFSPs never send them here (Mojaloop answers 501).
      notImplementedRoute({ method: 'PUT', path }),
      route('PUT', `${path}/error`, errorRelay({ directory, hubName }), undefined, 200),
    ]),
    route('POST', '/participants', provenOnly(registerMany), BATCH_PAYLOAD_BYTES_MAX),
    notImplementedRoute({ method: 'PUT', path: '/participants/{ID}' }),
    notImplementedRoute({ method: 'PUT', path: '/participants/{ID}/error' }),
  ];
}
