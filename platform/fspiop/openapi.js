// The FSPIOP OpenAPI documents, one per version (1.0, 1.1, 2.0) as @mojaloop/api-snippets
// ships them, are the only source of the request schemas: the edges compile what they need
// from the document of the request's version with Ajv and keep no copies, so a field the
// specification adds or tightens reaches every edge with a package update.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import { API_VERSIONS } from './versions.js';

/** The version whose document a caller gets when it names none: the one the switch long spoke. */
const VERSION_DEFAULT = '1.1';

const loaded = new Map();

const specId = (version) => `fspiop-v${version}`;

/** Where api-snippets keeps the bundled document of a version. */
export function specPath(version = VERSION_DEFAULT) {
  if (!API_VERSIONS.includes(version)) throw new Error(`FSPIOP ${version} is not a version the switch knows`);
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@mojaloop/api-snippets/package.json')), 'docs', `fspiop-rest-v${version}-openapi3-snippets.yaml`);
}

/**
 * Loads and parses a version's document once per process and registers its components with
 * an Ajv instance of its own (the versions name their schemas alike), so every validator of
 * that version shares compiled sub-schemas (Money, CorrelationId, ...).
 */
export function fspiopSpec(version = VERSION_DEFAULT) {
  if (loaded.has(version)) return loaded.get(version);
  const document = loadYaml(readFileSync(specPath(version), 'utf8'));
  // The document is OpenAPI, not pure JSON Schema: it carries keywords such as `example`
  // that strict mode would refuse. allErrors stays off, as Ajv advises for untrusted input,
  // and the first error reported for an object is a missing required property, if any.
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: specId(version), components: document.components });
  const spec = { version, document, ajv };
  loaded.set(version, spec);
  return spec;
}

/** A compiled validator for a `#/components/...` reference inside a version's document. */
export function schemaValidator(reference, version = VERSION_DEFAULT) {
  const validate = fspiopSpec(version).ajv.getSchema(`${specId(version)}${reference}`);
  if (!validate) throw new Error(`the FSPIOP v${version} document has no schema at ${reference}`);
  return validate;
}

function resolve({ version, document }, node) {
  if (!node?.$ref) return node;
  const target = node.$ref.replace(/^#\//, '').split('/').reduce((parent, key) => parent?.[key], document);
  if (!target) throw new Error(`the FSPIOP v${version} document has no ${node.$ref}`);
  return target;
}

/** Whether a version's document has an operation (PATCH /transfers/{ID} is not in 1.0). */
export function hasOperation(method, path, version = VERSION_DEFAULT) {
  return Boolean(fspiopSpec(version).document.paths[path]?.[method.toLowerCase()]);
}

/** The operation for an HTTP method and path template, with path-level parameters merged in. */
function findOperation(spec, method, path) {
  const pathItem = spec.document.paths[path];
  const operation = pathItem?.[method.toLowerCase()];
  if (!operation) throw new Error(`the FSPIOP v${spec.version} document has no ${method} ${path}`);
  const parameters = new Map();
  for (const parameter of [...(pathItem.parameters ?? []), ...(operation.parameters ?? [])]) {
    const resolved = resolve(spec, parameter);
    parameters.set(`${resolved.in}:${resolved.name}`, resolved);
  }
  return { operation, parameters: [...parameters.values()] };
}

function compileSchema(spec, schema) {
  return schema.$ref ? schemaValidator(schema.$ref, spec.version) : spec.ajv.compile(schema);
}

/** The JSON request body schema of an operation, or undefined when it takes no body. */
function requestBodySchema(spec, operation) {
  const body = operation.requestBody && resolve(spec, operation.requestBody);
  return body?.content?.['application/json']?.schema && { schema: body.content['application/json'].schema, required: body.required === true };
}

/**
 * What an edge needs to know about one operation of a version's document:
 * - `requiredHeaders`: lower-cased names of the header parameters marked required;
 * - `pathParameters`: `[{ name, validate, schemaName }]`; `pathSchemas` maps a path
 *   parameter to a named schema of the document where the specification types the value
 *   more tightly than the parameter itself does (a transfer's ID is a CorrelationId);
 * - `body`: `{ validate, required, schema }` for the JSON request body, or null when there is
 *   none (`schema` as the document writes it, for input-limits.js to walk).
 */
export function describeOperation(method, path, pathSchemas = {}, version = VERSION_DEFAULT) {
  const spec = fspiopSpec(version);
  const { operation, parameters } = findOperation(spec, method, path);
  const requiredHeaders = parameters.filter((p) => p.in === 'header' && p.required).map((p) => p.name.toLowerCase());
  const pathParameters = parameters.filter((p) => p.in === 'path').map((p) => {
    const schemaName = pathSchemas[p.name];
    const validate = schemaName ? schemaValidator(`#/components/schemas/${schemaName}`, version) : compileSchema(spec, p.schema);
    return { name: p.name, validate, schemaName: schemaName ?? 'string' };
  });
  const unknown = Object.keys(pathSchemas).filter((name) => !pathParameters.some((p) => p.name === name));
  if (unknown.length > 0) throw new Error(`${method} ${path} has no path parameter ${unknown.join(', ')}`);
  const body = requestBodySchema(spec, operation);
  return {
    operationId: operation.operationId, requiredHeaders, pathParameters, body: body ? { ...body, validate: compileSchema(spec, body.schema) } : null,
  };
}
