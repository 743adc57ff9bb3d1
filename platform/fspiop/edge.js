// The FSPIOP edge: one request validator and one hapi route builder that every FSPIOP
// edge (transfers, quotes, parties, participants) shares. A request is checked in the order
// Mojaloop's hub checks it: headers, path parameters, then the body against the
// operation's schema in the OpenAPI document of the version its Content-Type states (1.0,
// 1.1 or 2.0, as versions.js serves the resource). Bad input is always answered
// synchronously with `errorInformation` and the catalogue's HTTP status, never a 500.
import { TextDecoder } from 'node:util';
import { FSPIOP_ERRORS, errorInformation, schemaKeywordCode } from './errors.js';
import { HEADER_WORDING, checkFspiopHeaders, pickForwardedHeaders } from './headers.js';
import { describeOperation, fspiopSpec, hasOperation } from './openapi.js';
import { answerContentTypeOf, contentVersionOf, supportedVersionsExtensionList, versionsOf } from './versions.js';
import { JSON_DEPTH_MAX, checkBodyLimits, exceedsJsonDepth, limitedFieldsOf } from './input-limits.js';
import { PAYLOAD_BYTES_MAX } from '../http/server.js';
import { senderOf } from './sender.js';
import { API_TYPE, requestApiType } from '../iso20022/media-types.js';
import { ISO_FSPIOP_VERSION, createIsoIngress } from '../iso20022/ingress.js';

/**
 * An FSPIOP error answer: `{ code, httpStatus, body }` where body is `{ errorInformation }`.
 * For 3001 the supported versions go into the extension list as the FSPIOP API definition
 * asks (§3.3.4.3: key the major version, value the minor).
 */
export function fspiopFailure(code, detail, { supportedVersions } = {}) {
  const entry = FSPIOP_ERRORS[code];
  if (!entry) throw new Error(`FSPIOP error ${code} is not in the catalogue`);
  const body = errorInformation(code, detail);
  if (supportedVersions) body.errorInformation.extensionList = supportedVersionsExtensionList(supportedVersions);
  return Object.freeze({ code, httpStatus: entry.httpStatus, body });
}

/** Sends an fspiopFailure() as the HTTP answer. */
export function fspiopErrorResponse(h, failure) {
  return h.response(failure.body).code(failure.httpStatus);
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

// Where a value sits, in the words of Mojaloop's OpenAPI validation: `/requestBody/amount`
// for the body, `/path/ID` for a path parameter. DFSPs and Mojaloop's tests compare the
// whole description, e.g. "Missing mandatory element - /requestBody must have required
// property 'condition'", so Ajv's own message is kept as it is.
export function schemaFailure(errors, where) {
  const { code, detail } = schemaProblem(errors, where);
  return fspiopFailure(code, detail);
}

/** Ajv's first error as `{ code, detail }`, in the words schemaFailure answers with. */
function schemaProblem(errors, where) {
  const [error] = errors;
  return { code: schemaKeywordCode(error.keyword), detail: `${where}${error.instancePath} ${error.message}` };
}

/** Mojaloop's description of an absent body, and of one that is not JSON (hapi's words). */
const BODY_WORDING = Object.freeze({
  missing: "must have required property 'requestBody'",
  notJson: 'Invalid request payload JSON format',
});

/**
 * Reads a raw JSON body: present when the operation requires one, within the size limit,
 * UTF-8 (JSON is, by RFC 8259, and the text must round-trip to the signed bytes) and JSON
 * nested no deeper than JSON_DEPTH_MAX. Returns `{ body, rawBody }` (both undefined for an
 * absent optional body) or `{ failure }`. Shared by the FSPIOP and the ISO 20022 edges.
 */
export function parseJsonBody(payload, { required, payloadBytesMax = PAYLOAD_BYTES_MAX }) {
  const bytes = Buffer.isBuffer(payload) ? payload : Buffer.from(payload ?? '');
  if (bytes.length === 0) {
    return required ? { failure: fspiopFailure(3102, BODY_WORDING.missing) } : { body: undefined, rawBody: undefined };
  }
  if (bytes.length > payloadBytesMax) return { failure: fspiopFailure(3104, `the body exceeds ${payloadBytesMax} bytes`) };
  let rawBody;
  let body;
  try {
    rawBody = UTF8.decode(bytes);
    body = JSON.parse(rawBody);
  } catch {
    return { failure: fspiopFailure(3101, BODY_WORDING.notJson) };
  }
  // Native JSON.parse is right here: FSPIOP carries amounts as strings, and a number
  // where the schema wants a string must stay a number so that the schema rejects it.
  // Depth is checked before anything recursive (the schema, the event's JSON.stringify, the
  // request hash) walks the body; V8 parses deep JSON without recursion, they do not.
  if (exceedsJsonDepth(body, JSON_DEPTH_MAX)) return { failure: fspiopFailure(3100, `the body nests deeper than ${JSON_DEPTH_MAX} levels`) };
  return { body, rawBody };
}

/**
 * Reads the raw body (parseJsonBody), then checks it against the operation's schema and the
 * date and amount limits (input-limits.js). Returns `{ body, rawBody }` or `{ failure }`.
 */
function readBody(payload, bodySpec, { payloadBytesMax, limitedFields, limits, receivedAt }) {
  const parsed = parseJsonBody(payload, { required: bodySpec.required, payloadBytesMax });
  if (parsed.failure || parsed.body === undefined) return parsed;
  const problem = bodyProblem(parsed.body, bodySpec, { limitedFields, limits, receivedAt });
  return problem ? { failure: fspiopFailure(problem.code, problem.detail) } : parsed;
}

/**
 * Checks a parsed body against its operation's schema and the date and amount limits
 * (input-limits.js): null, or `{ code, detail }` naming the field. Both an FSPIOP body as
 * received and the FSPIOP form of an ISO 20022 one pass through here.
 */
function bodyProblem(body, bodySpec, { limitedFields, limits, receivedAt }) {
  if (!bodySpec.validate(body)) return schemaProblem(bodySpec.validate.errors, '/requestBody');
  return checkBodyLimits(body, limitedFields, { nowMs: receivedAt, ...limits });
}

/**
 * What the ISO 20022 ingress needs of the FSPIOP operation its conversion must satisfy:
 * `{ moneys, check(body, receivedAt) }`, `moneys` the paths of its Money values and `check`
 * bodyProblem() against the operation; undefined for an operation without a body.
 */
function fspiopFormOf(operation, limits) {
  if (!operation?.body) return undefined;
  const { limitedFields } = operation;
  return {
    moneys: limitedFields.moneys,
    check: (body, receivedAt) => bodyProblem(body, operation.body, { limitedFields, limits, receivedAt }),
  };
}

export function checkPathParameters(params, pathParameters) {
  for (const { name, validate } of pathParameters) {
    const value = params?.[name];
    if (value === undefined || value === '') return fspiopFailure(3102, `/path must have required property '${name}'`);
    if (!validate(value)) return schemaFailure(validate.errors, `/path/${name}`);
  }
  return null;
}

/**
 * The operation of a route in every version whose document has it, keyed by version, each
 * with where its body schema puts DateTime and Money values (found once per route, not per
 * request).
 */
function describeVersions({ resource, method, path, pathSchemas, requiredHeaders }) {
  const operations = new Map();
  for (const version of versionsOf(resource)) {
    if (!hasOperation(method, path, version)) continue;
    const operation = describeOperation(method, path, pathSchemas, version);
    operations.set(version, {
      ...operation,
      required: [...new Set([...operation.requiredHeaders, ...requiredHeaders])],
      limitedFields: operation.body ? limitedFieldsOf(fspiopSpec(version).document, operation.body.schema) : null,
    });
  }
  if (operations.size === 0) throw new Error(`no FSPIOP document has ${method} ${path} for ${resource}`);
  return operations;
}

/**
 * Builds the validator for one route. `resource` is the FSPIOP resource the media types
 * must name (`transfers`, `quotes`, `parties`, `participants`); `method` and `path` name
 * the operation in the OpenAPI documents (its path template, e.g. `/transfers/{ID}`),
 * checked in the document of the version the request's Content-Type states;
 * `pathSchemas` optionally types path parameters with schemas of the document; `limits`
 * (config.inputLimits) holds `expirationAheadMaxMs`, how far ahead an `expiration` may lie,
 * and `minorUnitCurrencies`, the currencies whose amounts keep to their ISO 4217 minor units;
 * `requiredHeaders` names (lower-case) headers the switch requires beyond the document's,
 * as Mojaloop's own services do (its quoting service requires FSPIOP-Destination on POST).
 *
 * The validator takes `{ headers, params, payload, info }` (a hapi request fits: headers
 * lower-cased, payload a Buffer or absent, `info.received` the arrival in epoch ms) and
 * returns `{ failure }` or `{ headers, params, body, rawBody }` where headers is the
 * forwarded subset.
 */
export function createRequestValidator({ resource, method, path, pathSchemas = {}, payloadBytesMax = PAYLOAD_BYTES_MAX, limits = {}, requiredHeaders = [] }) {
  const operations = describeVersions({ resource, method, path, pathSchemas, requiredHeaders });
  return requestValidatorOf(operations, { resource, payloadBytesMax, limits });
}

/** The validator of createRequestValidator() over the operations describeVersions() found. */
function requestValidatorOf(operations, { resource, payloadBytesMax, limits }) {
  const versions = [...operations.keys()];
  // The headers are checked against the newest document's rules (the versions require the
  // same headers) while the request's version is not yet known to be one the route serves.
  const newest = operations.get(versions[versions.length - 1]);
  return function validateRequest({ headers, params, payload, info }) {
    // Without a Content-Type (refused below where the document requires one) the newest applies.
    const stated = headers['content-type'] ? operations.get(contentVersionOf(headers['content-type'])) : newest;
    const headerProblem = checkFspiopHeaders(headers, { resource, required: (stated ?? newest).required });
    if (headerProblem) {
      const { code, detail, supportedVersions } = headerProblem;
      return { failure: fspiopFailure(code, detail, { supportedVersions }) };
    }
    // A version the resource is served in, whose document lacks this operation (PATCH in 1.0).
    if (!stated) return { failure: fspiopFailure(3001, HEADER_WORDING.contentTypeVersion, { supportedVersions: versions }) };
    const operation = stated;
    const pathProblem = checkPathParameters(params, operation.pathParameters);
    if (pathProblem) return { failure: pathProblem };
    const reading = { payloadBytesMax, limitedFields: operation.limitedFields, limits, receivedAt: info?.received ?? Date.now() };
    const read = operation.body ? readBody(payload, operation.body, reading) : { body: undefined, rawBody: undefined };
    if (read.failure) return read;
    return { headers: pickForwardedHeaders(headers), params: { ...params }, body: read.body, rawBody: read.rawBody };
  };
}

/**
 * A hapi route for an FSPIOP operation. The body is read raw (hapi does not parse it) so
 * that its bytes can be forwarded unchanged. `handle(accepted, h, request)` runs only for
 * a valid request, with `accepted = { headers, params, body, rawBody, receivedAt, sender }`
 * (`receivedAt`: epoch ms when the request arrived; `sender`: who sent it and how that was
 * proven, sender.js), and returns the hapi response.
 * `limits` and `requiredHeaders` are passed to createRequestValidator().
 *
 * A request in ISO 20022 (requestApiType) is accepted on the operations the ISO 20022
 * document has (platform/iso20022/ingress.js): its handler gets the FSPIOP form as `body`,
 * no `rawBody`, and the ISO 20022 text under ORIGINAL_BODY_HEADER in `headers`, so it runs
 * the same code as for an FSPIOP request. Any other route refuses an ISO 20022 media type.
 */
export function fspiopRoute({ resource, method, path, pathSchemas = {}, payloadBytesMax = PAYLOAD_BYTES_MAX, limits = {}, requiredHeaders = [], handle }) {
  const operations = describeVersions({ resource, method, path, pathSchemas, requiredHeaders });
  const validate = requestValidatorOf(operations, { resource, payloadBytesMax, limits });
  const fspiopForm = fspiopFormOf(operations.get(ISO_FSPIOP_VERSION), limits);
  const acceptIso = createIsoIngress({ resource, method, path, pathSchemas, payloadBytesMax, limits, requiredHeaders, fspiopForm });
  const options = {
    handler: async (request, h) => {
      const result = requestApiType(request.headers) === API_TYPE.iso20022 ? await acceptIso(request) : validate(request);
      if (result.failure) return fspiopErrorResponse(h, result.failure);
      return handle({ ...result, receivedAt: request.info.received, sender: senderOf(request) }, h, request);
    },
    ext: { onPreResponse: { method: (request, h) => statingVersion(request, h, resource) } },
  };
  // hapi refuses payload settings on GET; every other FSPIOP method may carry a body.
  if (method !== 'GET') options.payload = { parse: false, output: 'data', maxBytes: payloadBytesMax };
  return { method, path, options };
}

/**
 * Every answer with a body (an error, whichever part of the server wrote it) states the
 * resource and version it speaks, as the API definition asks of a server (§3.3.4); an empty
 * 202 has no content to type.
 */
function statingVersion(request, h, resource) {
  const { response } = request;
  if (response.isBoom || response.source === null || response.source === undefined) return h.continue;
  return response.type(answerContentTypeOf(request.headers, resource));
}

/** A route the switch knows but does not serve: 501 with 2002, as Mojaloop answers. */
export function notImplementedRoute({ method, path }) {
  const options = {
    handler: (request, h) => fspiopErrorResponse(h, fspiopFailure(2002, `${method} ${path} is not served by the switch`)),
  };
  if (method !== 'GET') options.payload = { parse: false, output: 'data', maxBytes: PAYLOAD_BYTES_MAX };
  return { method, path, options };
}

/** The event an edge produces for an accepted request (handlers/README.md's envelope). */
export function edgeEvent(type, action, accepted, { id, to }) {
  return {
    id,
    type,
    action,
    from: accepted.headers['fspiop-source'],
    to,
    headers: accepted.headers,
    body: accepted.body,
    rawBody: accepted.rawBody,
    at: accepted.receivedAt,
  };
}

/** FSPIOP-Destination is optional on the wire; an empty one counts as absent. */
export function destinationOf(accepted) {
  return accepted.headers['fspiop-destination'] || undefined;
}
