// The quoting edge's checks of a /bulkQuotes message beyond what its version's document
// says: version 1.0's untyped items held to 1.1's schema, and a quoteId listed twice. Each
// answers as the edge's schema validation does, naming the path at fault.
import { fspiopFailure } from '../platform/fspiop/edge.js';
import { schemaKeywordCode } from '../platform/fspiop/errors.js';
import { schemaValidator } from '../platform/fspiop/openapi.js';
import { contentVersionOf } from '../platform/fspiop/versions.js';

/**
 * The largest body a /bulkQuotes route reads. A bulk quote's event carries the body's text
 * (escaped once more as a JSON string) with its headers, and must fit Kafka's default largest
 * message (message.max.bytes, 1,000,000 bytes): 900,000 bytes of body leave room for both. A
 * bulk of 1,000 individual quotes as DFSPs write them (a party, an amount, a transaction type
 * and a note each) is about 400 to 600 kB; a larger one must be sent as smaller bulks.
 */
export const BULK_QUOTE_PAYLOAD_BYTES_MAX = 900_000;

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

/** What is wrong with a schema-valid PUT /bulkQuotes/{ID} beyond its document, or null. */
export const bulkAnswerFailure = (accepted) => v10BodyFailure(accepted, BULK_SCHEMAS_V1_1.answer);
