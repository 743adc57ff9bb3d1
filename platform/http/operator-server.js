// The base of every operator API (admin API, settlement API, ALS admin API, built-in oracle):
// the shared HTTP base with the operator tokens, and query parameters that each appear once.
import { failureResponse, createHttpServer } from './server.js';
import { requireOperatorTokens } from './operator-auth.js';
import { FAILURE, failure } from '../domain/failures.js';

/**
 * hapi hands a route a parameter given more than once as an array of its values. No
 * operator API takes a list in its query, and a route that reads a parameter as text would
 * pass the array on to a query or a string method (a 500 before this check), so a repeated
 * parameter is refused here, for every route, before any handler sees it.
 */
function refuseRepeatedQueryParameters(request, h) {
  const repeated = Object.keys(request.query).find((name) => Array.isArray(request.query[name]));
  if (repeated === undefined) return h.continue;
  return failureResponse(h, failure(FAILURE.validation, `query parameter '${repeated}' must appear at most once`)).takeover();
}

/**
 * An operator API's server (createHttpServer's options, `operatorAuth` from platform/config.js
 * and `api`, the OPERATOR_API whose scopes its routes ask for). The query check runs after authentication, so a caller without a
 * token learns nothing but that it needs one.
 */
export function createOperatorServer({ operatorAuth, api, ...options }) {
  const server = createHttpServer(options);
  requireOperatorTokens(server, operatorAuth, api);
  server.ext('onPreHandler', refuseRepeatedQueryParameters);
  return server;
}
