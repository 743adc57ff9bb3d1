// The operator APIs' OpenAPI documents (the admin API, the ALS admin API), made from the
// running code rather than written by hand: the routes come from each server's own route
// table and each request body's schema is the JSON schema its route validates with
// (ledger/admin-api/schemas.js, account-lookup/schemas.js), so the fuzzer always sees the APIs
// as they are. A write route without a known body schema is an error here, so that a new
// route cannot silently go unfuzzed.
import { validators } from '../../ledger/admin-api/schemas.js';
import { validators as alsValidators } from '../../account-lookup/schemas.js';

// Which validator each write route reads its body with (the bodyRoute calls of the route files).
const ADMIN_BODY_SCHEMAS = Object.freeze({
  'POST /participants': 'participantCreate',
  'PUT /participants/{name}': 'participantUpdate',
  'POST /participants/{name}/accounts': 'hubAccount',
  'PUT /participants/{name}/accounts/{id}': 'isActive',
  'POST /participants/{name}/accounts/{id}': 'recordFunds',
  'PUT /participants/{name}/accounts/{id}/transfers/{transferId}': 'fundsOutCompletion',
  'POST /settlementModels': 'settlementModel',
  'POST /participants/{name}/initialPositionAndLimits': 'initialPositionAndLimits',
  'PUT /participants/{name}/limits': 'limitAdjustment',
  'POST /participants/{name}/endpoints': 'endpoint',
  'PUT /participants/{name}/jwsKeys': 'jwsKeys',
  'POST /participants/{name}/currencyPairs': 'currencyPair',
  'POST /deadLetters/{handler}/replay': 'deadLetterReplay',
});

// The query parameters each read route accepts (route-helpers.js readQuery calls, audit.js).
export const ADMIN_QUERY_PARAMETERS = Object.freeze({
  '/participants': ['isProxy'],
  '/participants/{name}/accounts': ['currency'],
  '/participants/{name}/positions': ['currency'],
  '/participants/limits': ['currency', 'type'],
  '/participants/{name}/limits': ['currency', 'type'],
  '/participants/{name}/endpoints': ['type'],
  '/participants/{name}/currencyPairs': [],
  '/audit': ['api', 'actor', 'method', 'route', 'target', 'from', 'to', 'beforeId', 'limit'],
  '/operatorToken': [],
  '/transfers': ['quoteId', 'partyIdType', 'partyIdentifier', 'limit'],
  '/transfers/{id}': [],
  '/deadLetters': ['handler'],
});

const ALS_ADMIN_BODY_SCHEMAS = Object.freeze({ 'POST /oracles': 'oracleCreate', 'PUT /oracles/{ID}': 'oracleUpdate' });
export const ALS_ADMIN_QUERY_PARAMETERS = Object.freeze({ '/oracles': ['type', 'currency'] });

// Routes of the shared HTTP base that are not the admin API's own (they are fuzzed through
// every other route's answers anyway).
const SKIPPED_PATHS = new Set(['/health', '/metrics']);

const ERROR_RESPONSE = {
  description: 'an FSPIOP error',
  content: { 'application/json': { schema: { type: 'object', required: ['errorInformation'] } } },
};

// A query parameter is text, or the same parameter repeated: Schemathesis sends an array of a
// form-exploded parameter as `?name=a&name=b`, which the operator APIs must refuse with 3100
// (platform/http/operator-server.js), never answer with a 5xx.
const QUERY_PARAMETER_SCHEMA = Object.freeze({ anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 2, maxItems: 3 }] });

function operationFor({ method, path }, { bodySchemas, queryParameters }) {
  const key = `${method.toUpperCase()} ${path}`;
  const parameters = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  for (const name of queryParameters[path] ?? []) {
    parameters.push({ name, in: 'query', required: false, style: 'form', explode: true, schema: QUERY_PARAMETER_SCHEMA });
  }
  const operation = {
    operationId: key.replace(/[^A-Za-z0-9]+/g, '_'),
    parameters,
    responses: { '2XX': { description: 'success' }, '4XX': ERROR_RESPONSE },
  };
  if (method === 'post' || method === 'put') {
    const schema = bodySchemas[key];
    if (!schema) throw new Error(`test/fuzz/admin-openapi.js: no body schema is known for ${key}; add it to the API's BODY_SCHEMAS`);
    operation.requestBody = { required: true, content: { 'application/json': { schema } } };
  }
  return operation;
}

const schemasOf = (table, compiled) => Object.fromEntries(Object.entries(table).map(([key, name]) => [key, compiled[name]?.schema]));

/**
 * The OpenAPI 3.0 document of the routes in `routeTable` (hapi's `server.table()`: objects
 * with `method` and `path`), authenticated by a bearer token.
 */
function operatorApiDocument(title, routeTable, api) {
  const paths = {};
  for (const route of routeTable) {
    if (SKIPPED_PATHS.has(route.path)) continue;
    paths[route.path] ??= {};
    paths[route.path][route.method] = operationFor(route, api);
  }
  return {
    openapi: '3.0.3',
    info: { title, version: '1.0.0' },
    components: { securitySchemes: { operatorToken: { type: 'http', scheme: 'bearer' } } },
    security: [{ operatorToken: [] }],
    paths,
  };
}

/** The admin API's document (ledger/admin-api). */
export function adminOpenApiDocument(routeTable) {
  return operatorApiDocument('fspiop-switch admin API (central-ledger compatible)', routeTable, {
    bodySchemas: schemasOf(ADMIN_BODY_SCHEMAS, validators), queryParameters: ADMIN_QUERY_PARAMETERS,
  });
}

/** The ALS admin API's document (account-lookup/admin: the oracle registry). */
export function alsAdminOpenApiDocument(routeTable) {
  return operatorApiDocument('fspiop-switch ALS admin API (oracle registry)', routeTable, {
    bodySchemas: schemasOf(ALS_ADMIN_BODY_SCHEMAS, alsValidators), queryParameters: ALS_ADMIN_QUERY_PARAMETERS,
  });
}
