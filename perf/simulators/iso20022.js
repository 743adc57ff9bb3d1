// How a simulated DFSP that speaks ISO 20022 reads and writes its messages: with Mojaloop's
// mapping library, as a DFSP built on Mojaloop's SDKs in ISO 20022 mode does. The DFSP's logic
// stays in FSPIOP terms; what it receives is read into FSPIOP and what it sends is written as
// ISO 20022 here. Shared by the load test's simulators and the test DFSPs
// (test/support/iso-codec.js). The mapping library is loaded on the first conversion
// (platform/iso20022/transformer.js), so a run without ISO 20022 DFSPs never loads it.
import { loadTransformFacades } from '../../platform/iso20022/transformer.js';
import { isoContentType, isoVersionsOf } from '../../platform/iso20022/media-types.js';

// The library logs what it cannot map at debug; warnings and errors are worth seeing.
const quietLogger = Object.freeze({
  debug() {},
  warn: (fields, message) => process.stderr.write(`ml-schema-transformer-lib: ${message}\n`),
  error: (fields, message) => process.stderr.write(`ml-schema-transformer-lib: ${message}\n`),
});
const facades = () => loadTransformFacades(quietLogger);

/**
 * Loads the mapping library now rather than on the first message (it takes seconds), so that a
 * simulator with ISO 20022 DFSPs does not hold its first payments up with it.
 */
export function preloadIsoCodec() {
  return facades();
}

/** The resource of a path when ISO 20022 carries it, else null. */
export function isoResourceOf(path) {
  const [resource] = path.split('?')[0].split('/').filter(Boolean);
  return isoVersionsOf(resource).length > 0 ? resource : null;
}

/**
 * The ISO 20022 operation of a call: `{ resource, operation, params, template }`, operation one of
 * the facades' post, put, putError, patch; `template` the document's path. Null for a GET or a
 * resource ISO 20022 does not carry.
 */
export function isoOperationOf(method, path) {
  const resource = isoResourceOf(path);
  if (!resource) return null;
  const rest = path.split('?')[0].split('/').filter(Boolean).slice(1);
  const isError = rest.at(-1) === 'error';
  const ids = isError ? rest.slice(0, -1) : rest;
  const operation = { POST: 'post', PATCH: 'patch', PUT: isError ? 'putError' : 'put' }[method];
  if (!operation) return null;
  const params = resource === 'parties' ? { Type: ids[0], ID: ids[1], ...(ids[2] ? { SubId: ids[2] } : {}) } : (ids[0] ? { ID: ids[0] } : {});
  const idTemplate = resource === 'parties' ? ['{Type}', '{ID}', ...(ids[2] ? ['{SubId}'] : [])] : ids.map(() => '{ID}');
  const template = `/${[resource, ...idTemplate, ...(isError ? ['error'] : [])].join('/')}`;
  return { resource, operation, params, template };
}

/** An ISO 20022 call's body read into FSPIOP. */
export async function isoToFspiop({ method, path, headers, body }) {
  const { resource, operation, params } = isoOperationOf(method, path);
  const converted = await (await facades()).FSPIOPISO20022[resource][operation]({ body, headers, params });
  return converted.body;
}

/**
 * An FSPIOP body written as the ISO 20022 message of `method` on `path`; `context` is the
 * facades' `$context` (the ISO 20022 quote messages a PUT /quotes or POST /transfers needs).
 */
export async function fspiopToIso({ method, path, headers, body, context }) {
  const { resource, operation, params } = isoOperationOf(method, path);
  const converted = await (await facades()).FSPIOP[resource][operation]({ body, headers, params, ...(context ? { $context: context } : {}) });
  return converted.body;
}

/** The headers of an ISO 20022 call: the FSPIOP headers with the resource's ISO 20022 media type. */
export function isoHeaders(headers, resource) {
  const iso = { ...headers, 'content-type': isoContentType(resource) };
  if (iso.accept) iso.accept = isoContentType(resource).replace(/version=.*$/, 'version=2');
  return iso;
}

/** Whether a received call is ISO 20022: its Content-Type, or a GET's Accept, names an ISO 20022 media type. */
export function isIsoMessage(headers) {
  return (headers['content-type'] ?? headers.accept ?? '').includes('.iso20022.');
}
