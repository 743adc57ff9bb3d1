// The FSPIOP /quotes and (v2.0) /fxQuotes routes: each valid request becomes exactly one event
// keyed by quoteId or conversionRequestId (requests on topic-quotes-post, callbacks on
// topic-quotes-put; an fx quote's events have type `fxQuote`), and the DFSP is answered only
// after Kafka acknowledged it. The quoting handler decides everything else.
import { TOPIC } from '../platform/kafka/topics.js';
import { destinationOf, edgeEvent, fspiopErrorResponse, fspiopRoute } from '../platform/fspiop/edge.js';
import { emptyResponse } from '../platform/http/server.js';
import { QUOTE_ACTION } from './domain/quotes.js';
import { FX_QUOTE_EVENT } from './domain/fx-quotes.js';

const RESOURCE = 'quotes';
// The specification types a quote's {ID} only as a string, but it is the quoteId of the
// POST, a CorrelationId; checking it here keeps unusable keys off the topics.
const QUOTE_ID = Object.freeze({ ID: 'CorrelationId' });

// Mojaloop's quoting service refuses a POST /quotes without FSPIOP-Destination (3102): the
// payer has just resolved the payee's FSP through discovery, and routing on the body's
// payee fspId instead would send a quote where the payer's signature never said it goes.
const POST_REQUIRED_HEADERS = Object.freeze(['fspiop-destination']);

// /fxQuotes exists in v2.0 only: its routes speak version 2.0 alone (platform/fspiop/versions.js;
// 406 with 3001 to any other).
const FX_QUOTES = Object.freeze({ resource: 'fxQuotes' });

/** A request goes to its FSPIOP-Destination, which the edge requires; `idOf(body)` is the id it creates. */
const requestEvent = (type, idOf) => (accepted) => edgeEvent(type, QUOTE_ACTION.request, accepted, { id: idOf(accepted.body), to: destinationOf(accepted) });
const callbackEvent = (type, action) => (accepted) => edgeEvent(type, action, accepted, { id: accepted.params.ID, to: destinationOf(accepted) });

/** The hapi routes of the quoting edge, producing through `publisher`, with the input limits of `config`. */
export function quoteRoutes({ publisher, config }) {
  const relay = (baseTopic, status, toEvent) => async (accepted, h) => {
    const failure = await publisher.publish(baseTopic, toEvent(accepted));
    return failure ? fspiopErrorResponse(h, failure) : emptyResponse(h, status);
  };
  const route = (method, path, handle, pathSchemas, requiredHeaders, document = { resource: RESOURCE }) => fspiopRoute({
    ...document, method, path, pathSchemas, limits: config.inputLimits, requiredHeaders, handle,
  });
  const fxRoute = (method, path, handle, pathSchemas, requiredHeaders) => route(method, path, handle, pathSchemas, requiredHeaders, FX_QUOTES);
  return [
    route('POST', '/quotes', relay(TOPIC.quotesPost, 202, requestEvent('quote', (body) => body.quoteId)), undefined, POST_REQUIRED_HEADERS),
    route('GET', '/quotes/{ID}', relay(TOPIC.quotesPost, 202, callbackEvent('quote', QUOTE_ACTION.get)), QUOTE_ID),
    route('PUT', '/quotes/{ID}', relay(TOPIC.quotesPut, 200, callbackEvent('quote', QUOTE_ACTION.response)), QUOTE_ID),
    route('PUT', '/quotes/{ID}/error', relay(TOPIC.quotesPut, 200, callbackEvent('quote', QUOTE_ACTION.error)), QUOTE_ID),
    // An fx quote goes, as a quote does, to the FSPIOP-Destination its initiating DFSP signed;
    // the handler checks that this is the FXP the conversion terms name.
    fxRoute('POST', '/fxQuotes', relay(TOPIC.quotesPost, 202, requestEvent(FX_QUOTE_EVENT, (body) => body.conversionRequestId)), undefined, POST_REQUIRED_HEADERS),
    fxRoute('GET', '/fxQuotes/{ID}', relay(TOPIC.quotesPost, 202, callbackEvent(FX_QUOTE_EVENT, QUOTE_ACTION.get)), QUOTE_ID),
    fxRoute('PUT', '/fxQuotes/{ID}', relay(TOPIC.quotesPut, 200, callbackEvent(FX_QUOTE_EVENT, QUOTE_ACTION.response)), QUOTE_ID),
    fxRoute('PUT', '/fxQuotes/{ID}/error', relay(TOPIC.quotesPut, 200, callbackEvent(FX_QUOTE_EVENT, QUOTE_ACTION.error)), QUOTE_ID),
  ];
}
