// The FSPIOP /transfers routes: each valid request becomes exactly one event
// (handlers/README.md, "Topics, producers, actions"), and the DFSP is answered only after
// Kafka acknowledged it.
import { TOPIC } from '../platform/kafka/topics.js';
import { destinationOf, edgeEvent, fspiopErrorResponse, fspiopRoute, notImplementedRoute } from '../platform/fspiop/edge.js';
import { emptyResponse } from '../platform/http/server.js';

const RESOURCE = 'transfers';
// The specification types a transfer's {ID} only as a string, but it is the transferId of
// the POST, a CorrelationId; checking it here keeps unusable keys off the topics.
const TRANSFER_ID = Object.freeze({ ID: 'CorrelationId' });

const FULFIL_ACTIONS = Object.freeze({ COMMITTED: 'commit', RESERVED: 'reserve' });

/** The action a payee's PUT /transfers/{ID} asks for: any state but these two rejects. */
export function fulfilAction(transferState) {
  return FULFIL_ACTIONS[transferState] ?? 'reject';
}

const transferEvent = (action, accepted, ids) => edgeEvent('transfer', action, accepted, ids);
const destination = destinationOf;

const prepareEvent = (accepted) => transferEvent('prepare', accepted, {
  id: accepted.body.transferId,
  to: destination(accepted) ?? accepted.body.payeeFsp,
});
const fulfilEvent = (accepted) => transferEvent(fulfilAction(accepted.body.transferState), accepted, {
  id: accepted.params.ID, to: destination(accepted),
});
const abortEvent = (accepted) => transferEvent('abort', accepted, { id: accepted.params.ID, to: destination(accepted) });
const getEvent = (accepted) => transferEvent('get', accepted, { id: accepted.params.ID, to: destination(accepted) });

/** The hapi routes of the transfers edge, producing through `publisher`, with the input limits of `config`. */
export function transferRoutes({ publisher, config }) {
  const relay = (baseTopic, status, toEvent) => async (accepted, h) => {
    const failure = await publisher.publish(baseTopic, toEvent(accepted));
    return failure ? fspiopErrorResponse(h, failure) : emptyResponse(h, status);
  };
  const route = (method, path, handle, pathSchemas) => fspiopRoute({ resource: RESOURCE, method, path, pathSchemas, limits: config.inputLimits, handle });
  return [
    route('POST', '/transfers', relay(TOPIC.transferPrepare, 202, prepareEvent)),
    route('PUT', '/transfers/{ID}', relay(TOPIC.transferFulfil, 200, fulfilEvent), TRANSFER_ID),
    route('PUT', '/transfers/{ID}/error', relay(TOPIC.transferFulfil, 200, abortEvent), TRANSFER_ID),
    route('GET', '/transfers/{ID}', relay(TOPIC.transferFulfil, 202, getEvent), TRANSFER_ID),
    // PATCH goes from the switch to a payee, never to the switch; Mojaloop answers 501.
    notImplementedRoute({ method: 'PATCH', path: '/transfers/{ID}' }),
  ];
}
