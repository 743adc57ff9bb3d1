// How every account-lookup request is answered (DESIGN.md, "Processing contract"): checks
// that need no more than an indexed read or one oracle call are made first; what they decide
// becomes notification events. The /participants answers go through Kafka, which must
// acknowledge them before the DFSP hears 202, so nothing accepted is lost. The /parties calls
// are sent by this process itself once the DFSP has its answer (party-callbacks.js says why
// discovery does without Kafka). A request that cannot be decided or stored is answered at once.
import { FAILURE, failure } from '../platform/domain/failures.js';
import { fspiopErrorResponse } from '../platform/fspiop/edge.js';
import { emptyResponse, failureResponse } from '../platform/http/server.js';
import { TOPIC } from '../platform/kafka/topics.js';
import { createThrottledWarn } from '../platform/throttled-log.js';
import { unknownSourceFailure, unroutableDestinationFailure } from './domain/dfsps.js';
import { OracleUnavailableError } from './oracle-client.js';

/** Path parameters typed with the specification's schemas, so a bad Type is a synchronous 3100. */
const PARTY_PATH_SCHEMAS = Object.freeze({ Type: 'PartyIdType', ID: 'PartyIdentifier', SubId: 'PartySubIdOrType' });

/** The path schemas that apply to a path template (SubId only where it appears). */
export function pathSchemasOf(path) {
  return Object.fromEntries(Object.entries(PARTY_PATH_SCHEMAS).filter(([name]) => path.includes(`{${name}}`)));
}

/**
 * The refusal of a request whose FSPIOP-Source is not an active DFSP (domain/dfsps.js), or
 * null when the requester is allowed.
 */
export async function refuseUnknownSource(directory, accepted) {
  const source = accepted.headers['fspiop-source'];
  return unknownSourceFailure({ source, isActive: await directory.isActiveDfsp(source) });
}

/** Why a DFSP's answer cannot be relayed to its FSPIOP-Destination (domain/dfsps.js); null when it can. */
export async function unroutableDestination(directory, accepted) {
  const destination = accepted.headers['fspiop-destination'];
  return unroutableDestinationFailure({ destination, isActive: Boolean(destination) && await directory.isActiveDfsp(destination) });
}

/** The DFSPs among `names` that are active, as a Set. */
export async function activeDfspsAmong(directory, names) {
  const active = await Promise.all(names.map((name) => directory.isActiveDfsp(name)));
  return new Set(names.filter((_, index) => active[index]));
}

/** Where a route leaves the calls to make once its DFSP has been answered (see callbacksAfterAnswer). */
const AFTER_ANSWER = 'callbacksAfterAnswer';

/**
 * Hands the calls a request decided to `send(event)` once hapi has sent that request's answer,
 * so that a DFSP hears 202 before the forward leaves, as with Mojaloop's ALS. Registered once
 * per server; a request that decided no such calls costs one property read.
 */
export function sendCallbacksAfterAnswer(server, send) {
  server.events.on('response', (request) => {
    const callbacks = request.app[AFTER_ANSWER];
    if (!callbacks) return;
    request.app[AFTER_ANSWER] = undefined;
    for (const event of callbacks) send(event);
  });
}

/**
 * Creates `respond(status, decide)`: a route handler for fspiopRoute. `decide(accepted, request)`
 * resolves to `{ failure }` (a domain failure), answered at once; `{ events }`, produced to
 * the notification topic and acknowledged before `status` is answered; or `{ callbacks }`,
 * notification events this process sends itself after answering `status`
 * (sendCallbacksAfterAnswer). An oracle that cannot be reached makes the answer 503 with
 * 2003: the request was not accepted and the DFSP may send it again.
 */
export function createResponder({ publisher, logger }) {
  const warn = createThrottledWarn(logger);

  async function decideSafely(decide, accepted, request) {
    try {
      return await decide(accepted, request);
    } catch (error) {
      if (!(error instanceof OracleUnavailableError)) throw error;
      warn('oracle-unavailable', { err: error, route: request.route.path }, 'an oracle could not be reached');
      return { failure: failure(FAILURE.oracleUnavailable, 'the oracle for this party id type could not be reached; retry later') };
    }
  }

  return function respond(status, decide) {
    return async (accepted, h, request) => {
      const outcome = await decideSafely(decide, accepted, request);
      if (outcome.failure) return failureResponse(h, outcome.failure);
      if (outcome.callbacks) {
        request.app[AFTER_ANSWER] = outcome.callbacks;
        return emptyResponse(h, status);
      }
      const published = await Promise.all(outcome.events.map((event) => publisher.publish(TOPIC.notificationEvent, event)));
      // The publisher reports an unacknowledged event as an FSPIOP answer already (2003).
      const unstored = published.find(Boolean);
      return unstored ? fspiopErrorResponse(h, unstored) : emptyResponse(h, status);
    };
  };
}
