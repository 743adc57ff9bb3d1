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

// Mojaloop's quoting service refuses a POST /quotes without FSPIOP-Destination (3102): the
// payer has just resolved the payee's FSP through discovery, and routing on the body's
// payee fspId instead would send a quote where the payer's signature never said it goes.
const POST_REQUIRED_HEADERS = Object.freeze(['fspiop-destination']);

const quoteEvent = (action, accepted, ids) => edgeEvent('quote', action, accepted, ids);

/** A quote request goes to its FSPIOP-Destination, which the edge requires. */
const requestEvent = (accepted) => quoteEvent(QUOTE_ACTION.request, accepted, { id: accepted.body.quoteId, to: destinationOf(accepted) });
const callbackEvent = (action) => (accepted) => quoteEvent(action, accepted, { id: accepted.params.ID, to: destinationOf(accepted) });

/** The hapi routes of the quoting edge, producing through `publisher`, with the input limits of `config`. */
export function quoteRoutes({ publisher, config }) {
  const relay = (baseTopic, status, toEvent) => async (accepted, h) => {
    const failure = await publisher.publish(baseTopic, toEvent(accepted));
    return failure ? fspiopErrorResponse(h, failure) : emptyResponse(h, status);
  };
  const route = (method, path, handle, pathSchemas, requiredHeaders) => fspiopRoute({
    resource: RESOURCE, method, path, pathSchemas, limits: config.inputLimits, requiredHeaders, handle,
  });
  return [
    route('POST', '/quotes', relay(TOPIC.quotesPost, 202, requestEvent), undefined, POST_REQUIRED_HEADERS),
    route('GET', '/quotes/{ID}', relay(TOPIC.quotesPost, 202, callbackEvent(QUOTE_ACTION.get)), QUOTE_ID),
    route('PUT', '/quotes/{ID}', relay(TOPIC.quotesPut, 200, callbackEvent(QUOTE_ACTION.response)), QUOTE_ID),
    route('PUT', '/quotes/{ID}/error', relay(TOPIC.quotesPut, 200, callbackEvent(QUOTE_ACTION.error)), QUOTE_ID),
  ];
}
