// The FSPIOP v1.1 OpenAPI document, as @mojaloop/api-snippets ships it, is the only source of
// the request schemas: the edges compile what they need from it with Ajv and keep no copies,
// so a field the specification adds or tightens reaches every edge with a package update. The
// v2.0 document is read the same way for the resources only v2.0 has (/services).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/** The documents by API version: '1.1' unless a caller names another. */
const SPEC_FILES = Object.freeze({
  '1.1': join('docs', 'fspiop-rest-v1.1-openapi3-snippets.yaml'),
  '2.0': join('docs', 'fspiop-rest-v2.0-openapi3-snippets.yaml'),
});

const loaded = new Map();

const specId = (version) => `fspiop-v${version}`;

function specPath(version) {
  if (!SPEC_FILES[version]) throw new Error(`no FSPIOP document for version ${version}`);
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@mojaloop/api-snippets/package.json')), SPEC_FILES[version]);
}

/**
 * Loads and parses the document once per process and registers its components with one
 * Ajv instance, so every validator shares compiled sub-schemas (Money, CorrelationId, ...).
 */
export function fspiopSpec(version = '1.1') {
  if (loaded.has(version)) return loaded.get(version);
  const document = loadYaml(readFileSync(specPath(version), 'utf8'));
  // The document is OpenAPI, not pure JSON Schema: it carries keywords such as `example`
  // that strict mode would refuse. allErrors stays off, as Ajv advises for untrusted input,
  // and the first error reported for an object is a missing required property, if any.
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: specId(version), components: document.components });
  loaded.set(version, { document, ajv });
  return loaded.get(version);
}

/** A compiled validator for a `#/components/...` reference inside the document. */
export function schemaValidator(reference, version = '1.1') {
  const validate = fspiopSpec(version).ajv.getSchema(`${specId(version)}${reference}`);
  if (!validate) throw new Error(`the FSPIOP v${version} document has no schema at ${reference}`);
  return validate;
}

function resolve(document, node) {
  if (!node?.$ref) return node;
  const target = node.$ref.replace(/^#\//, '').split('/').reduce((parent, key) => parent?.[key], document);
  if (!target) throw new Error(`the FSPIOP document has no ${node.$ref}`);
  return target;
}

/** The operation for an HTTP method and path template, with path-level parameters merged in. */
function findOperation(document, method, path) {
  const pathItem = document.paths[path];
  const operation = pathItem?.[method.toLowerCase()];
  if (!operation) throw new Error(`the FSPIOP document has no ${method} ${path}`);
  const parameters = new Map();
  for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
    const resolved = resolve(document, parameter);
    parameters.set(`${resolved.in}:${resolved.name}`, resolved);
  }
  return { operation, parameters: [...parameters.values()] };
}

function compileParameterSchema(ajv, schema, version) {
  return schema.$ref ? schemaValidator(schema.$ref, version) : ajv.compile(schema);
}

function requestBodyValidator(document, operation, version) {
  const body = operation.requestBody && resolve(document, operation.requestBody);
  const schema = body?.content?.['application/json']?.schema;
  if (!schema) return null;
  return { validate: schema.$ref ? schemaValidator(schema.$ref, version) : fspiopSpec(version).ajv.compile(schema), required: body.required === true };
}

/**
 * What an edge needs to know about one operation of the document:
 * - `requiredHeaders`: lower-cased names of the header parameters marked required;
 * - `pathParameters`: `[{ name, validate, schemaName }]`; `pathSchemas` maps a path
 *   parameter to a named schema of the document where the specification types the value
 *   more tightly than the parameter itself does (a transfer's ID is a CorrelationId);
 * - `body`: `{ validate, required }` for the JSON request body, or null when there is none.
 * `version` names the document the operation is in ('1.1' or '2.0').
 */
export function describeOperation(method, path, pathSchemas = {}, version = '1.1') {
  const { document, ajv } = fspiopSpec(version);
  const { operation, parameters } = findOperation(document, method, path);
  const requiredHeaders = parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name.toLowerCase());
  const pathParameters = parameters.filter((p) => p.in === 'path').map((p) => {
    const schemaName = pathSchemas[p.name];
    const validate = schemaName ? schemaValidator(`#/components/schemas/${schemaName}`, version) : compileParameterSchema(ajv, p.schema, version);
    return { name: p.name, validate, schemaName: schemaName ?? 'string' };
  });
  const unknown = Object.keys(pathSchemas).filter((name) => !pathParameters.some((p) => p.name === name));
  if (unknown.length > 0) throw new Error(`${method} ${path} has no path parameter ${unknown.join(', ')}`);
  return { operationId: operation.operationId, requiredHeaders, pathParameters, body: requestBodyValidator(document, operation, version) };
}
