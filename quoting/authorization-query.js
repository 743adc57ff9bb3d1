// The query of GET /authorizations/{ID}: the API definition's request has no body, and asks
// with `authenticationType`, `retriesLeft`, `amount` and `currency` (§6.6.2.1). The documents
// of api-snippets list no query parameters for the operation, so the edge checks them here,
// against the documents' own schemas for those types: an authorization the payee's DFSP
// cannot act on is refused before it travels.
import { fspiopFailure } from '../platform/fspiop/edge.js';
import { schemaValidator } from '../platform/fspiop/openapi.js';
import { contentVersionOf } from '../platform/fspiop/versions.js';

// The number of retries left is an Integer(2) of the API definition; the last retry is 0.
const RETRIES_LEFT = /^(0|[1-9]\d?)$/;

const PARAMETERS = Object.freeze([
  { name: 'authenticationType', valid: (value, version) => schemaValidator('#/components/schemas/AuthenticationType', version)(value) },
  { name: 'retriesLeft', valid: (value) => RETRIES_LEFT.test(value) },
  { name: 'amount', valid: (value, version) => schemaValidator('#/components/schemas/Amount', version)(value) },
  { name: 'currency', valid: (value, version) => schemaValidator('#/components/schemas/Currency', version)(value) },
]);

/**
 * The FSPIOP failure of an authorization's query (hapi's parsed `query`), or null; checked in
 * the document of the version the request's Content-Type states (the edge has checked that
 * version is one the resource is served in).
 */
export function authorizationQueryFailure(query, contentType) {
  const version = contentVersionOf(contentType);
  for (const { name, valid } of PARAMETERS) {
    const value = query?.[name];
    if (value === undefined || value === '') return fspiopFailure(3102, `/query must have required property '${name}'`);
    if (typeof value !== 'string') return fspiopFailure(3103, `/query/${name} is given more than once`);
    if (!valid(value, version)) return fspiopFailure(3100, `/query/${name} is not a valid ${name}`);
  }
  return null;
}
