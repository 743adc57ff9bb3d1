// The FSPIOP /quotes, /bulkQuotes and (v2.0) /fxQuotes routes: each valid request becomes
// exactly one event keyed by quoteId, bulkQuoteId or conversionRequestId (requests on
// topic-quotes-post, callbacks on topic-quotes-put; an fx quote's events have type `fxQuote`,
// a bulk quote's `bulkQuote`), and the DFSP is answered only after Kafka acknowledged it. The
// quoting handler decides everything else.
import { TOPIC } from '../platform/kafka/topics.js';
import {
  destinationOf, edgeEvent, fspiopErrorResponse, fspiopFailure, fspiopRoute,
} from '../platform/fspiop/edge.js';
import { schemaKeywordCode } from '../platform/fspiop/errors.js';
import { schemaValidator } from '../platform/fspiop/openapi.js';
import { contentVersionOf } from '../platform/fspiop/versions.js';
import { emptyResponse } from '../platform/http/server.js';
import { QUOTE_ACTION } from './domain/quotes.js';
import { FX_QUOTE_EVENT } from './domain/fx-quotes.js';
import { BULK_QUOTE_EVENT } from './domain/bulk-quotes.js';

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

/**
 * The largest body a /bulkQuotes route reads. A bulk quote's event carries the body's text
 * (escaped once more as a JSON string) with its headers, and must fit Kafka's default largest
 * message (message.max.bytes, 1,000,000 bytes): 900,000 bytes of body leave room for both. A
 * bulk of 1,000 individual quotes as DFSPs write them (a party, an amount, a transaction type
 * and a note each) is about 400 to 600 kB; a larger one must be sent as smaller bulks.
 */
export const BULK_QUOTE_PAYLOAD_BYTES_MAX = 900_000;

// /bulkQuotes is served in every version; its {ID} is the bulkQuoteId of the POST.
const BULK_QUOTES = Object.freeze({ resource: 'bulkQuotes', payloadBytesMax: BULK_QUOTE_PAYLOAD_BYTES_MAX });

// Version 1.0's document leaves a bulk's individual quotes and results untyped (no array, no
// item schema, no 1 to 1,000 bound); 1.1's types them as the API definition of both versions
// describes, so a 1.0 body is held to 1.1's schema as well.
const BULK_SCHEMAS_V1_1 = Object.freeze({
  request: schemaValidator('#/components/schemas/BulkQuotesPostRequest', '1.1'),
  answer: schemaValidator('#/components/schemas/BulkQuotesIDPutResponse', '1.1'),
});

/** `accepted`'s body against 1.1's `validate` when it was sent in 1.0, as the edge words a schema failure; null otherwise. */
function v10BodyFailure(accepted, validate) {
  if (contentVersionOf(accepted.headers['content-type']) !== '1.0' || validate(accepted.body)) return null;
  const [error] = validate.errors;
  return fspiopFailure(schemaKeywordCode(error.keyword), `/requestBody${error.instancePath} ${error.message}`);
}

/**
 * What is wrong with a schema-valid POST /bulkQuotes beyond its document, or null: a quoteId
 * listed twice would make the payee's answer ambiguous, so it is refused here, naming the path
 * of the repeat as a schema error does, before anything is produced.
 */
export function bulkQuoteRequestFailure(accepted) {
  const failure = v10BodyFailure(accepted, BULK_SCHEMAS_V1_1.request);
  if (failure) return failure;
  const seen = new Map();
  for (const [index, item] of accepted.body.individualQuotes.entries()) {
    const first = seen.get(item.quoteId);
    if (first !== undefined) return fspiopFailure(3100, `/requestBody/individualQuotes/${index}/quoteId repeats that of item ${first}`);
    seen.set(item.quoteId, index);
  }
  return null;
}

const bulkAnswerFailure = (accepted) => v10BodyFailure(accepted, BULK_SCHEMAS_V1_1.answer);

/** A request goes to its FSPIOP-Destination, which the edge requires; `idOf(body)` is the id it creates. */
const requestEvent = (type, idOf) => (accepted) => edgeEvent(type, QUOTE_ACTION.request, accepted, { id: idOf(accepted.body), to: destinationOf(accepted) });
const callbackEvent = (type, action) => (accepted) => edgeEvent(type, action, accepted, { id: accepted.params.ID, to: destinationOf(accepted) });

/** The hapi routes of the quoting edge, producing through `publisher`, with the input limits of `config`. */
export function quoteRoutes({ publisher, config }) {
  const relay = (baseTopic, status, toEvent, check = () => null) => async (accepted, h) => {
    const failure = check(accepted) ?? await publisher.publish(baseTopic, toEvent(accepted));
    return failure ? fspiopErrorResponse(h, failure) : emptyResponse(h, status);
  };
  const route = (method, path, handle, pathSchemas, requiredHeaders, document = { resource: RESOURCE }) => fspiopRoute({
    ...document, method, path, pathSchemas, limits: config.inputLimits, requiredHeaders, handle,
  });
  const fxRoute = (method, path, handle, pathSchemas, requiredHeaders) => route(method, path, handle, pathSchemas, requiredHeaders, FX_QUOTES);
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
    // A bulk quote goes, as a quote does, to the FSPIOP-Destination its payer signed.
    bulkRoute('POST', '/bulkQuotes', relay(TOPIC.quotesPost, 202, requestEvent(BULK_QUOTE_EVENT, (body) => body.bulkQuoteId), bulkQuoteRequestFailure), undefined, POST_REQUIRED_HEADERS),
    bulkRoute('GET', '/bulkQuotes/{ID}', relay(TOPIC.quotesPost, 202, callbackEvent(BULK_QUOTE_EVENT, QUOTE_ACTION.get)), QUOTE_ID),
    bulkRoute('PUT', '/bulkQuotes/{ID}', relay(TOPIC.quotesPut, 200, callbackEvent(BULK_QUOTE_EVENT, QUOTE_ACTION.response), bulkAnswerFailure), QUOTE_ID),
    bulkRoute('PUT', '/bulkQuotes/{ID}/error', relay(TOPIC.quotesPut, 200, callbackEvent(BULK_QUOTE_EVENT, QUOTE_ACTION.error)), QUOTE_ID),
  ];
}
