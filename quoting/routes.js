// The FSPIOP /quotes routes: each valid request becomes exactly one event keyed by quoteId
// (requests on topic-quotes-post, callbacks on topic-quotes-put), and the DFSP is answered
// only after Kafka acknowledged it. The quoting handler decides everything else.
import { TOPIC } from '../platform/kafka/topics.js';
import { destinationOf, edgeEvent, fspiopErrorResponse, fspiopRoute } from '../platform/fspiop/edge.js';
import { emptyResponse } from '../platform/http/server.js';
import { QUOTE_ACTION } from './domain/quotes.js';

const RESOURCE = 'quotes';
// The specification types a quote's {ID} only as a string, but it is the quoteId of the
// POST, a CorrelationId; checking it here keeps unusable keys off the topics.
const QUOTE_ID = Object.freeze({ ID: 'CorrelationId' });

const quoteEvent = (action, accepted, ids) => edgeEvent('quote', action, accepted, ids);
const destination = destinationOf;

/** The payee of a quote request: FSPIOP-Destination, or the payee party's FSP when it is absent. */
const requestEvent = (accepted) => quoteEvent(QUOTE_ACTION.request, accepted, {
  id: accepted.body.quoteId,
  to: destination(accepted) ?? accepted.body.payee?.partyIdInfo?.fspId,
});
const callbackEvent = (action) => (accepted) => quoteEvent(action, accepted, { id: accepted.params.ID, to: destination(accepted) });

/** The hapi routes of the quoting edge, producing through `publisher`, with the input limits of `config`. */
export function quoteRoutes({ publisher, config }) {
  const relay = (baseTopic, status, toEvent) => async (accepted, h) => {
    const failure = await publisher.publish(baseTopic, toEvent(accepted));
    return failure ? fspiopErrorResponse(h, failure) : emptyResponse(h, status);
  };
  const route = (method, path, handle, pathSchemas) => fspiopRoute({ resource: RESOURCE, method, path, pathSchemas, limits: config.inputLimits, handle });
  return [
    route('POST', '/quotes', relay(TOPIC.quotesPost, 202, requestEvent)),
    route('GET', '/quotes/{ID}', relay(TOPIC.quotesPost, 202, callbackEvent(QUOTE_ACTION.get)), QUOTE_ID),
    route('PUT', '/quotes/{ID}', relay(TOPIC.quotesPut, 200, callbackEvent(QUOTE_ACTION.response)), QUOTE_ID),
    route('PUT', '/quotes/{ID}/error', relay(TOPIC.quotesPut, 200, callbackEvent(QUOTE_ACTION.error)), QUOTE_ID),
  ];
}
