// The FSPIOP /bulkTransfers routes: a payer DFSP's bulk of 1 to 1,000 individual transfers to
// one payee, and the payee's answers. Each valid request becomes exactly one event on the
// transfer topics, with envelope type `bulkTransfer`, keyed by the bulkTransferId
// (handlers/README.md, "Bulk transfers"). What a bulk's items must satisfy beyond its
// document (its parties named by the headers, transfer ids that are ids and unique within
// the bulk) is checked here, so that a DFSP hears about a malformed bulk synchronously and
// no handler ever expands one.
import { TOPIC } from '../platform/kafka/topics.js';
import {
  destinationOf, edgeEvent, fspiopErrorResponse, fspiopFailure, fspiopRoute,
} from '../platform/fspiop/edge.js';
import { schemaValidator } from '../platform/fspiop/openapi.js';
import { emptyResponse } from '../platform/http/server.js';

const RESOURCE = 'bulkTransfers';
// The {ID} of every /bulkTransfers path is the bulkTransferId of the POST, a CorrelationId.
const BULK_TRANSFER_ID = Object.freeze({ ID: 'CorrelationId' });

/**
 * The largest body a bulk route reads. A bulk's event carries the body's text (escaped once
 * more as a JSON string) with its headers, and must fit Kafka's default largest message
 * (message.max.bytes, 1,000,000 bytes): 900,000 bytes of body leave room for both. A bulk of
 * 1,000 items with ILP packets of the size Mojaloop's SDKs write (a few hundred characters)
 * is about 400 to 800 kB; a bulk whose packets are larger must be sent as smaller bulks.
 */
export const BULK_PAYLOAD_BYTES_MAX = 900_000;

// Version 1.0 types the ids of a bulk's body as plain strings; every version's ids are UUIDs
// in practice, and an id that is not one could not key a topic or a row, so 1.1's
// CorrelationId is applied to all of them.
const isCorrelationId = schemaValidator('#/components/schemas/CorrelationId', '1.1');

/**
 * What is wrong with a schema-valid POST /bulkTransfers beyond its document, or null: the
 * payer must be FSPIOP-Source and the payee FSPIOP-Destination (a bulk is one payer's to one
 * payee), and every id must be a UUID, the transfer ids unique within the bulk. Each problem
 * names the path of the value, as a schema error does, in few words: an error description
 * is cut at 128 characters.
 */
export function bulkTransferProblem({ headers, body }) {
  if (body.payerFsp !== headers['fspiop-source']) {
    return `/requestBody/payerFsp ${body.payerFsp} is not the FSPIOP-Source ${headers['fspiop-source']}`;
  }
  if (body.payeeFsp !== headers['fspiop-destination']) {
    return `/requestBody/payeeFsp ${body.payeeFsp} is not the FSPIOP-Destination ${headers['fspiop-destination']}`;
  }
  for (const name of ['bulkTransferId', 'bulkQuoteId']) {
    if (!isCorrelationId(body[name])) return `/requestBody/${name} must be a UUID`;
  }
  const seen = new Map();
  for (const [index, item] of body.individualTransfers.entries()) {
    const where = `/requestBody/individualTransfers/${index}/transferId`;
    if (!isCorrelationId(item.transferId)) return `${where} must be a UUID`;
    const first = seen.get(item.transferId);
    if (first !== undefined) return `${where} repeats that of item ${first}`;
    seen.set(item.transferId, index);
  }
  return null;
}

const bulkEvent = (action, accepted, ids) => edgeEvent('bulkTransfer', action, accepted, ids);
const answerEvent = (action) => (accepted) => bulkEvent(action, accepted, { id: accepted.params.ID, to: destinationOf(accepted) });
const prepareEvent = (accepted) => bulkEvent('bulk-prepare', accepted, { id: accepted.body.bulkTransferId, to: accepted.body.payeeFsp });

/** The hapi routes of the /bulkTransfers edge, producing through `publisher`, with the input limits of `config`. */
export function bulkTransferRoutes({ publisher, config }) {
  const relay = (baseTopic, status, toEvent, check = () => null) => async (accepted, h) => {
    const problem = check(accepted);
    if (problem) return fspiopErrorResponse(h, fspiopFailure(3100, problem));
    const failure = await publisher.publish(baseTopic, toEvent(accepted));
    return failure ? fspiopErrorResponse(h, failure) : emptyResponse(h, status);
  };
  const route = (method, path, handle, { pathSchemas, requiredHeaders } = {}) => fspiopRoute({
    resource: RESOURCE, method, path, pathSchemas, requiredHeaders, limits: config.inputLimits, payloadBytesMax: BULK_PAYLOAD_BYTES_MAX, handle,
  });
  const byId = { pathSchemas: BULK_TRANSFER_ID };
  return [
    // The payee is named twice, in the body and the header, and both must agree: a bulk has
    // one payee, and the switch routes it by the header like every other request.
    route('POST', '/bulkTransfers', relay(TOPIC.transferPrepare, 202, prepareEvent, bulkTransferProblem), { requiredHeaders: ['fspiop-destination'] }),
    route('PUT', '/bulkTransfers/{ID}', relay(TOPIC.transferFulfil, 200, answerEvent('bulk-fulfil')), byId),
    route('PUT', '/bulkTransfers/{ID}/error', relay(TOPIC.transferFulfil, 200, answerEvent('bulk-abort')), byId),
    route('GET', '/bulkTransfers/{ID}', relay(TOPIC.transferFulfil, 202, answerEvent('bulk-get')), byId),
  ];
}
