// The admin API's OpenAPI document, made from the running code rather than written by hand:
// the routes come from the admin server's own route table and each request body's schema
// is the JSON schema its route validates with (ledger/admin-api/schemas.js), so the fuzzer
// always sees the API as it is. A write route without a known body schema is an error here,
// so that a new route cannot silently go unfuzzed.
import { validators } from '../../ledger/admin-api/schemas.js';

// Which validator each write route reads its body with (the bodyRoute calls of the route files).
const BODY_SCHEMAS = Object.freeze({
  'POST /participants': 'participantCreate',
  'PUT /participants/{name}': 'isActive',
  'POST /participants/{name}/accounts': 'hubAccount',
  'PUT /participants/{name}/accounts/{id}': 'isActive',
  'POST /participants/{name}/accounts/{id}': 'recordFunds',
  'PUT /participants/{name}/accounts/{id}/transfers/{transferId}': 'fundsOutCompletion',
  'POST /settlementModels': 'settlementModel',
  'POST /participants/{name}/initialPositionAndLimits': 'initialPositionAndLimits',
  'PUT /participants/{name}/limits': 'limitAdjustment',
  'POST /participants/{name}/endpoints': 'endpoint',
  'PUT /participants/{name}/jwsKeys': 'jwsKeys',
});

// The query parameters each read route accepts (route-helpers.js readQuery calls, audit.js).
const QUERY_PARAMETERS = Object.freeze({
  '/participants': ['isProxy'],
  '/participants/{name}/accounts': ['currency'],
  '/participants/{name}/positions': ['currency'],
  '/participants/limits': ['currency', 'type'],
  '/participants/{name}/limits': ['currency', 'type'],
  '/participants/{name}/endpoints': ['type'],
  '/audit': ['api', 'actor', 'method', 'route', 'target', 'from', 'to', 'beforeId', 'limit'],
});

// Routes of the shared HTTP base that are not the admin API's own (they are fuzzed through
// every other route's answers anyway).
const SKIPPED_PATHS = new Set(['/health', '/metrics']);

const ERROR_RESPONSE = {
  description: 'an FSPIOP error',
  content: { 'application/json': { schema: { type: 'object', required: ['errorInformation'] } } },
};

function operationFor({ method, path }) {
  const key = `${method.toUpperCase()} ${path}`;
  const parameters = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  for (const name of QUERY_PARAMETERS[path] ?? []) parameters.push({ name, in: 'query', required: false, schema: { type: 'string' } });
  const operation = {
    operationId: key.replace(/[^A-Za-z0-9]+/g, '_'),
    parameters,
    responses: { '2XX': { description: 'success' }, '4XX': ERROR_RESPONSE },
  };
  if (method === 'post' || method === 'put') {
    const validator = validators[BODY_SCHEMAS[key]];
    if (!validator) throw new Error(`test/fuzz/admin-openapi.js: no body schema is known for ${key}; add it to BODY_SCHEMAS`);
    operation.requestBody = { required: true, content: { 'application/json': { schema: validator.schema } } };
  }
  return operation;
}

/**
 * The OpenAPI 3.0 document of the routes in `routeTable` (hapi's `server.table()`: objects
 * with `method` and `path`), authenticated by a bearer token.
 */
export function adminOpenApiDocument(routeTable) {
  const paths = {};
  for (const route of routeTable) {
    if (SKIPPED_PATHS.has(route.path)) continue;
    paths[route.path] ??= {};
    paths[route.path][route.method] = operationFor(route);
  }
  return {
    openapi: '3.0.3',
    info: { title: 'fspiop-switch admin API (central-ledger compatible)', version: '1.0.0' },
    components: { securitySchemes: { operatorToken: { type: 'http', scheme: 'bearer' } } },
    security: [{ operatorToken: [] }],
    paths,
  };
}
