// The FSPIOP v2.0 /fxTransfers routes: a payer DFSP's request to convert, and the FXP's
// answers. Each valid request becomes exactly one event on the transfer topics, with
// envelope type `fxTransfer`, keyed by the commitRequestId (handlers/README.md, "Currency
// conversion (fx transfers)", "Messages and positions"); the prepare, fulfil, position,
// timeout and notification handlers decide conversions as they decide payments.
import { TOPIC } from '../platform/kafka/topics.js';
import { destinationOf, edgeEvent, fspiopErrorResponse, fspiopRoute, notImplementedRoute } from '../platform/fspiop/edge.js';
import { emptyResponse } from '../platform/http/server.js';

const RESOURCE = 'fxTransfers';
// The {ID} of every /fxTransfers path is the commitRequestId of the POST, a CorrelationId.
const COMMIT_REQUEST_ID = Object.freeze({ ID: 'CorrelationId' });

// RESERVED is the FXP's fulfilment; COMMITTED is taken the same way (it commits nothing
// either: the conversion commits with its payment). ABORTED is refused: an FXP rejects with
// PUT …/error, which carries its cause.
const FX_FULFIL_ACTIONS = Object.freeze({ RESERVED: 'fx-reserve', COMMITTED: 'fx-commit' });

/** The action an FXP's PUT /fxTransfers/{ID} asks for: any state but these two is refused. */
export function fxFulfilAction(conversionState) {
  return FX_FULFIL_ACTIONS[conversionState] ?? 'fx-reject';
}

const fxEvent = (action, accepted, ids) => edgeEvent('fxTransfer', action, accepted, ids);
const answerEvent = (action) => (accepted) => fxEvent(action, accepted, { id: accepted.params.ID, to: destinationOf(accepted) });

const prepareEvent = (accepted) => fxEvent('fx-prepare', accepted, {
  id: accepted.body.commitRequestId,
  to: destinationOf(accepted) ?? accepted.body.counterPartyFsp,
});
const fulfilEvent = (accepted) => answerEvent(fxFulfilAction(accepted.body.conversionState))(accepted);

/** The hapi routes of the /fxTransfers edge, producing through `publisher`, with the input limits of `config`. */
export function fxTransferRoutes({ publisher, config }) {
  const relay = (baseTopic, status, toEvent) => async (accepted, h) => {
    const failure = await publisher.publish(baseTopic, toEvent(accepted));
    return failure ? fspiopErrorResponse(h, failure) : emptyResponse(h, status);
  };
  const route = (method, path, handle, pathSchemas) => fspiopRoute({
    resource: RESOURCE, method, path, pathSchemas, limits: config.inputLimits, handle,
  });
  return [
    route('POST', '/fxTransfers', relay(TOPIC.transferPrepare, 202, prepareEvent)),
    route('PUT', '/fxTransfers/{ID}', relay(TOPIC.transferFulfil, 200, fulfilEvent), COMMIT_REQUEST_ID),
    route('PUT', '/fxTransfers/{ID}/error', relay(TOPIC.transferFulfil, 200, answerEvent('fx-abort')), COMMIT_REQUEST_ID),
    route('GET', '/fxTransfers/{ID}', relay(TOPIC.transferFulfil, 202, answerEvent('fx-get')), COMMIT_REQUEST_ID),
    // PATCH goes from the switch to the FXP, never to the switch.
    notImplementedRoute({ method: 'PATCH', path: '/fxTransfers/{ID}' }),
  ];
}
