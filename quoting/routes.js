// The FSPIOP /quotes, /bulkQuotes, /transactionRequests, /authorizations and (v2.0) /fxQuotes
// routes: each valid request becomes exactly one event keyed by quoteId, bulkQuoteId,
// transactionRequestId or conversionRequestId (requests on topic-quotes-post, callbacks on
// topic-quotes-put; the event type names the resource: `quote`, `bulkQuote`,
// `transactionRequest`, `authorization`, `fxQuote`), and the DFSP is answered only after Kafka
// acknowledged it. The quoting handler decides everything else.
import { TOPIC } from '../platform/kafka/topics.js';
import {
  destinationOf, edgeEvent, fspiopErrorResponse, fspiopRoute,
} from '../platform/fspiop/edge.js';
import { failureToFspiop } from '../platform/fspiop/errors.js';
import { isProven, unprovenSenderFailure } from '../platform/fspiop/sender.js';
import { emptyResponse } from '../platform/http/server.js';
import { QUOTE_ACTION } from './domain/quotes.js';
import { FX_QUOTE_EVENT } from './domain/fx-quotes.js';
import { TRANSACTION_REQUEST_EVENT } from './domain/transaction-requests.js';
import { AUTHORIZATION_EVENT } from './domain/authorizations.js';
import { authorizationQueryFailure } from './authorization-query.js';
import { BULK_QUOTE_EVENT } from './domain/bulk-quotes.js';
import { BULK_QUOTE_PAYLOAD_BYTES_MAX, bulkAnswerFailure, bulkQuoteRequestFailure } from './bulk-quote-checks.js';

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

const TRANSACTION_REQUESTS = Object.freeze({ resource: 'transactionRequests' });
const AUTHORIZATIONS = Object.freeze({ resource: 'authorizations' });

// A payee's DFSP asks a payer's DFSP it has found through discovery, as a payer asks a payee
// for a quote; the payer's DFSP asks that payee DFSP for the payer's authorization. Both say
// where they go, and the handler checks it against the transaction request.
const ASK_REQUIRED_HEADERS = POST_REQUIRED_HEADERS;

// /bulkQuotes is served in every version; its {ID} is the bulkQuoteId of the POST.
const BULK_QUOTES = Object.freeze({ resource: 'bulkQuotes', payloadBytesMax: BULK_QUOTE_PAYLOAD_BYTES_MAX });

/** A request goes to its FSPIOP-Destination, which the edge requires; `idOf(body)` is the id it creates. */
const requestEvent = (type, idOf) => (accepted) => edgeEvent(type, QUOTE_ACTION.request, accepted, { id: idOf(accepted.body), to: destinationOf(accepted) });
const callbackEvent = (type, action) => (accepted) => edgeEvent(type, action, accepted, { id: accepted.params.ID, to: destinationOf(accepted) });

/**
 * GET /authorizations/{ID} is the payer DFSP's request, with no body: its query (the
 * authentication type, the retries left, the amount) is its content, carried parsed for the
 * handler (`query`) and as it was sent for the forward (`search`).
 */
const authorizationAsk = (accepted, request) => ({
  ...edgeEvent(AUTHORIZATION_EVENT, QUOTE_ACTION.request, accepted, { id: accepted.params.ID, to: destinationOf(accepted) }),
  query: { ...request.query },
  search: request.url.search,
});

/** The hapi routes of the quoting edge, producing through `publisher`, with the input limits of `config`. */
export function quoteRoutes({ publisher, config }) {
  const relay = (baseTopic, status, toEvent, check = () => null) => async (accepted, h, request) => {
    const failure = check(accepted) ?? await publisher.publish(baseTopic, toEvent(accepted, request));
    return failure ? fspiopErrorResponse(h, failure) : emptyResponse(h, status);
  };
  const askAuthorization = relay(TOPIC.quotesPost, 202, authorizationAsk);
  // An ask has no body, so the JWS rule for bodies does not prove its sender; it makes the
  // merchant prompt its customer in the payer DFSP's name, so an unproven one is refused, as
  // account-lookup refuses a forged lookup (sender.js).
  const checkedAsk = (accepted, h, request) => {
    const failure = (isProven(accepted.sender) ? null : failureToFspiop(unprovenSenderFailure('An authorization asked of another DFSP')))
      ?? authorizationQueryFailure(request.query, accepted.headers['content-type']);
    return failure ? fspiopErrorResponse(h, failure) : askAuthorization(accepted, h, request);
  };
  const route = (method, path, handle, pathSchemas, requiredHeaders, document = { resource: RESOURCE }) => fspiopRoute({
    ...document, method, path, pathSchemas, limits: config.inputLimits, requiredHeaders, handle,
  });
  const fxRoute = (method, path, handle, pathSchemas, requiredHeaders) => route(method, path, handle, pathSchemas, requiredHeaders, FX_QUOTES);
  const trRoute = (method, path, handle, pathSchemas, requiredHeaders) => route(method, path, handle, pathSchemas, requiredHeaders, TRANSACTION_REQUESTS);
  const authRoute = (method, path, handle, pathSchemas, requiredHeaders) => route(method, path, handle, pathSchemas, requiredHeaders, AUTHORIZATIONS);
  const bulkRoute = (method, path, handle, pathSchemas, requiredHeaders) => route(method, path, handle, pathSchemas, requiredHeaders, BULK_QUOTES);
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
    trRoute('POST', '/transactionRequests', relay(TOPIC.quotesPost, 202, requestEvent(TRANSACTION_REQUEST_EVENT, (body) => body.transactionRequestId)), undefined, ASK_REQUIRED_HEADERS),
    trRoute('GET', '/transactionRequests/{ID}', relay(TOPIC.quotesPost, 202, callbackEvent(TRANSACTION_REQUEST_EVENT, QUOTE_ACTION.get)), QUOTE_ID),
    trRoute('PUT', '/transactionRequests/{ID}', relay(TOPIC.quotesPut, 200, callbackEvent(TRANSACTION_REQUEST_EVENT, QUOTE_ACTION.response)), QUOTE_ID),
    trRoute('PUT', '/transactionRequests/{ID}/error', relay(TOPIC.quotesPut, 200, callbackEvent(TRANSACTION_REQUEST_EVENT, QUOTE_ACTION.error)), QUOTE_ID),
    // {ID} is the transactionRequestId of the transaction request being authorized.
    authRoute('GET', '/authorizations/{ID}', checkedAsk, QUOTE_ID, ASK_REQUIRED_HEADERS),
    authRoute('PUT', '/authorizations/{ID}', relay(TOPIC.quotesPut, 200, callbackEvent(AUTHORIZATION_EVENT, QUOTE_ACTION.response)), QUOTE_ID),
    authRoute('PUT', '/authorizations/{ID}/error', relay(TOPIC.quotesPut, 200, callbackEvent(AUTHORIZATION_EVENT, QUOTE_ACTION.error)), QUOTE_ID),
    // A bulk quote goes, as a quote does, to the FSPIOP-Destination its payer signed.
    bulkRoute('POST', '/bulkQuotes', relay(TOPIC.quotesPost, 202, requestEvent(BULK_QUOTE_EVENT, (body) => body.bulkQuoteId), bulkQuoteRequestFailure), undefined, POST_REQUIRED_HEADERS),
    bulkRoute('GET', '/bulkQuotes/{ID}', relay(TOPIC.quotesPost, 202, callbackEvent(BULK_QUOTE_EVENT, QUOTE_ACTION.get)), QUOTE_ID),
    bulkRoute('PUT', '/bulkQuotes/{ID}', relay(TOPIC.quotesPut, 200, callbackEvent(BULK_QUOTE_EVENT, QUOTE_ACTION.response), bulkAnswerFailure), QUOTE_ID),
    bulkRoute('PUT', '/bulkQuotes/{ID}/error', relay(TOPIC.quotesPut, 200, callbackEvent(BULK_QUOTE_EVENT, QUOTE_ACTION.error)), QUOTE_ID),
  ];
}
