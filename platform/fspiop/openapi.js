// The FSPIOP v1.1 OpenAPI document, as @mojaloop/api-snippets ships it, is the only source of
// the request schemas: the edges compile what they need from it with Ajv and keep no copies,
// so a field the specification adds or tightens reaches every edge with a package update.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const SPEC_ID = 'fspiop-v1.1';
const SPEC_FILE = join('docs', 'fspiop-rest-v1.1-openapi3-snippets.yaml');

let loaded = null;

function specPath() {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@mojaloop/api-snippets/package.json')), SPEC_FILE);
}

/**
 * Loads and parses the document once per process and registers its components with one
 * Ajv instance, so every validator shares compiled sub-schemas (Money, CorrelationId, ...).
 */
export function fspiopSpec() {
  if (loaded) return loaded;
  const document = loadYaml(readFileSync(specPath(), 'utf8'));
  // The document is OpenAPI, not pure JSON Schema: it carries keywords such as `example`
  // that strict mode would refuse. allErrors stays off, as Ajv advises for untrusted input,
  // and the first error reported for an object is a missing required property, if any.
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: SPEC_ID, components: document.components });
  loaded = { document, ajv };
  return loaded;
}

/** A compiled validator for a `#/components/...` reference inside the document. */
export function schemaValidator(reference) {
  const validate = fspiopSpec().ajv.getSchema(`${SPEC_ID}${reference}`);
  if (!validate) throw new Error(`the FSPIOP v1.1 document has no schema at ${reference}`);
  return validate;
}

function resolve(document, node) {
  if (!node?.$ref) return node;
  const target = node.$ref.replace(/^#\//, '').split('/').reduce((parent, key) => parent?.[key], document);
  if (!target) throw new Error(`the FSPIOP v1.1 document has no ${node.$ref}`);
  return target;
}

/** The operation for an HTTP method and path template, with path-level parameters merged in. */
function findOperation(document, method, path) {
  const pathItem = document.paths[path];
  const operation = pathItem?.[method.toLowerCase()];
  if (!operation) throw new Error(`the FSPIOP v1.1 document has no ${method} ${path}`);
  const parameters = new Map();
  for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
    const resolved = resolve(document, parameter);
    parameters.set(`${resolved.in}:${resolved.name}`, resolved);
  }
  return { operation, parameters: [...parameters.values()] };
}

function compileParameterSchema(ajv, schema) {
  return schema.$ref ? schemaValidator(schema.$ref) : ajv.compile(schema);
}

function requestBodyValidator(document, operation) {
  const body = operation.requestBody && resolve(document, operation.requestBody);
  const schema = body?.content?.['application/json']?.schema;
  if (!schema) return null;
  return { validate: schema.$ref ? schemaValidator(schema.$ref) : fspiopSpec().ajv.compile(schema), required: body.required === true };
}

/**
 * What an edge needs to know about one operation of the document:
 * - `requiredHeaders`: lower-cased names of the header parameters marked required;
 * - `pathParameters`: `[{ name, validate, schemaName }]`; `pathSchemas` maps a path
 *   parameter to a named schema of the document where the specification types the value
 *   more tightly than the parameter itself does (a transfer's ID is a CorrelationId);
 * - `body`: `{ validate, required }` for the JSON request body, or null when there is none.
 */
export function describeOperation(method, path, pathSchemas = {}) {
  const { document, ajv } = fspiopSpec();
  const { operation, parameters } = findOperation(document, method, path);
  const requiredHeaders = parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name.toLowerCase());
  const pathParameters = parameters.filter((p) => p.in === 'path').map((p) => {
    const schemaName = pathSchemas[p.name];
    const validate = schemaName ? schemaValidator(`#/components/schemas/${schemaName}`) : compileParameterSchema(ajv, p.schema);
    return { name: p.name, validate, schemaName: schemaName ?? 'string' };
  });
  const unknown = Object.keys(pathSchemas).filter((name) => !pathParameters.some((p) => p.name === name));
  if (unknown.length > 0) throw new Error(`${method} ${path} has no path parameter ${unknown.join(', ')}`);
  return { operationId: operation.operationId, requiredHeaders, pathParameters, body: requestBodyValidator(document, operation) };
}
