// The request validator of an ISO 20022 route, the counterpart of edge.js's
// createRequestValidator for FSPIOP: headers (the ISO 20022 media types, then the rules both
// APIs share), path parameters as the FSPIOP 2.0 document types them (the paths are the same),
// then the body against the ISO 20022 message of the operation (document.js) and the limits
// an ISO 20022 body must keep to be converted into the FSPIOP form the switch runs on. A
// refusal is an FSPIOP failure (`{ code, httpStatus, body }`) naming the element's path.
import { checkFspiopHeaders, pickForwardedHeaders } from '../fspiop/headers.js';
import { checkPathParameters, fspiopFailure, parseJsonBody, schemaFailure } from '../fspiop/edge.js';
import { describeOperation } from '../fspiop/openapi.js';
import { EXPIRATION_AHEAD_MAX_MS_DEFAULT, currencyDecimals, dateTimeWithinWindow, moneyProblem, valuesAt } from '../fspiop/input-limits.js';
import { PAYLOAD_BYTES_MAX } from '../http/server.js';
import { isoOperation, isoSpec } from './document.js';
import { checkIsoAccept, checkIsoContentType, fspiopEquivalentOf, isoVersionsOf } from './media-types.js';

// The FSPIOP Amount allows four decimals, which is also the ledger's scale; ISO 20022 allows
// five, and an amount with a fifth cannot be carried into FSPIOP without changing its value.
const AMOUNT_DECIMALS_MAX = 4;
// The document's amount patterns leave the decimal point unescaped (`\d{1,17}.\d{1}`), so
// they admit any character there ("1x5"): the amount is held to a plain decimal here too.
const DECIMAL_AMOUNT = /^(0|[1-9]\d*)(\.\d+)?$/;
// The named schemas of the document that hold an amount, and the element holding its text.
const AMOUNT_SCHEMAS = Object.freeze({
  ActiveCurrencyAndAmount: 'ActiveCurrencyAndAmount',
  ActiveOrHistoricCurrencyAndAmount: 'ActiveOrHistoricCurrencyAndAmount',
});
// The elements of a date and time that say when a message's terms expire.
const EXPIRY_ELEMENTS = new Set(['PmtInstrXpryDtTm', 'XpryDtTm']);

function refName(schema) {
  return schema?.$ref ? schema.$ref.split('/').at(-1) : undefined;
}

/**
 * Where a message's schema holds amounts and instants: `{ amounts: [{ path, amountKey }],
 * dateTimes: [path] }`, each path a list of element names (`[]` for array items). The walk
 * follows `$ref`, properties, items and allOf/anyOf/oneOf, and does not enter a named schema
 * it is already inside, so a recursive definition ends (as limitedFieldsOf does for FSPIOP).
 */
export function isoLimitedFieldsOf(document, schemaName) {
  const fields = { amounts: [], dateTimes: [] };
  const pending = [{ schema: { $ref: `#/components/schemas/${schemaName}` }, path: [], inside: new Set() }];
  while (pending.length > 0) {
    const { schema: raw, path, inside } = pending.pop();
    const name = refName(raw);
    const schema = name ? document.components.schemas[name] : raw;
    if (!schema || (name && inside.has(name))) continue;
    if (name && AMOUNT_SCHEMAS[name]) { fields.amounts.push({ path, amountKey: AMOUNT_SCHEMAS[name] }); continue; }
    if (name === 'ISODateTime') { fields.dateTimes.push(path); continue; }
    const within = name ? new Set([...inside, name]) : inside;
    for (const [key, child] of Object.entries(schema.properties ?? {})) pending.push({ schema: child, path: [...path, key], inside: within });
    if (schema.items) pending.push({ schema: schema.items, path: [...path, '[]'], inside: within });
    for (const child of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) pending.push({ schema: child, path, inside: within });
  }
  return fields;
}

function amountProblem(text, currency, minorUnitCurrencies) {
  if (!DECIMAL_AMOUNT.test(text)) return `${text} is not a decimal amount`;
  const point = text.indexOf('.');
  const decimals = point === -1 ? 0 : text.length - point - 1;
  // The details are short: an FSPIOP description holds 128 characters, the path first.
  if (decimals > AMOUNT_DECIMALS_MAX) return `${text} has ${decimals} decimals, at most ${AMOUNT_DECIMALS_MAX}`;
  // FSPIOP writes no trailing zeros; the scheme's minor units are counted on the value.
  const value = point === -1 ? text : text.replace(/\.?0+$/, '');
  if (!moneyProblem({ currency, amount: value }, minorUnitCurrencies)) return null;
  return `${text}: ${currency} allows ${currencyDecimals(currency)} decimals`;
}

/**
 * Applies the amount and date limits to a schema-valid ISO 20022 body: every amount a plain
 * decimal with at most four decimals and within its currency's minor units where the scheme
 * asks for them (input-limits.js), every instant within 1970–9999 in UTC, an expiry at most
 * `expirationAheadMaxMs` after `nowMs`. Returns null, or `{ code: 3100, detail }` naming the
 * element's path under `/requestBody`.
 */
export function checkIsoBodyLimits(body, fields, { nowMs, expirationAheadMaxMs = EXPIRATION_AHEAD_MAX_MS_DEFAULT, minorUnitCurrencies }) {
  for (const { path, amountKey } of fields.amounts) {
    for (const { value, where } of valuesAt(body, path)) {
      const text = value?.[amountKey];
      const detail = typeof text === 'string' ? amountProblem(text, value.Ccy, minorUnitCurrencies) : null;
      if (detail) return { code: 3100, detail: `/requestBody${where}/${amountKey} ${detail}` };
    }
  }
  for (const path of fields.dateTimes) {
    for (const { value, where } of valuesAt(body, path)) {
      if (typeof value !== 'string') continue;
      const instantMs = dateTimeWithinWindow(value);
      if (instantMs === null) return { code: 3100, detail: `/requestBody${where} ${value} is outside the years 1970 to 9999 in UTC` };
      if (EXPIRY_ELEMENTS.has(path.at(-1)) && instantMs - nowMs > expirationAheadMaxMs) {
        return { code: 3100, detail: `/requestBody${where} ${value} is more than ${expirationAheadMaxMs} ms ahead` };
      }
    }
  }
  return null;
}

/**
 * The error to report among Ajv's: the deepest one. A choice (anyOf) that fails reports each
 * branch's error and then its own; the deepest is the element actually wrong (the missing
 * `Id` inside `PrvtId`), not the other branch's absent element or the choice as a whole.
 */
export function telling(errors) {
  let chosen = errors[0];
  for (const error of errors) {
    if (error.instancePath.split('/').length > chosen.instancePath.split('/').length) chosen = error;
  }
  return [chosen];
}

/**
 * The media types first (an ISO 20022 Content-Type, and Accept where the operation requires
 * it), then the rules both APIs share, applied by headers.js to the FSPIOP equivalents.
 */
function checkIsoHeaders(headers, { resource, required }) {
  const contentType = headers['content-type'];
  if (contentType !== undefined && String(contentType).trim() !== '') {
    const found = checkIsoContentType(contentType, resource);
    if (found) return found;
  }
  const { accept } = headers;
  if (required.includes('accept') && accept !== undefined && String(accept).trim() !== '') {
    const found = checkIsoAccept(accept, resource);
    if (found) return found;
  }
  const equivalent = { ...headers };
  if (contentType !== undefined) equivalent['content-type'] = fspiopEquivalentOf(contentType);
  if (accept !== undefined) equivalent.accept = fspiopEquivalentOf(accept);
  return checkFspiopHeaders(equivalent, { resource, required });
}

/** checkIsoHeaders() as the FSPIOP failure to answer with, or null. */
function isoHeaderFailure(headers, { resource, required }) {
  const problem = checkIsoHeaders(headers, { resource, required });
  if (!problem) return null;
  const { code, detail, supportedVersions } = problem;
  return fspiopFailure(code, detail, { supportedVersions });
}

/**
 * Builds the validator of one ISO 20022 route: `resource` (one of ISO_RESOURCE_VERSIONS),
 * `method` and `path` (the operation's path template, the same in the FSPIOP 2.0 and the ISO
 * 20022 documents), `pathSchemas`, `limits` and `requiredHeaders` as createRequestValidator
 * takes them. The validator takes `{ headers, params, payload, info }` and returns
 * `{ failure }` or `{ headers, params, body, rawBody, message }`, `message` the ISO 20022
 * message's name (pacs.008, ...); the forwarded headers keep the ISO 20022 media types.
 * A GET carries no message: its ISO 20022 Accept and the headers and path are checked, and
 * `body`, `rawBody` and `message` are undefined.
 */
export function createIsoRequestValidator({ resource, method, path, pathSchemas = {}, payloadBytesMax = PAYLOAD_BYTES_MAX, limits = {}, requiredHeaders = [] }) {
  if (isoVersionsOf(resource).length === 0) throw new Error(`${resource} is not served in ISO 20022`);
  const [version] = isoVersionsOf(resource);
  const fspiop = describeOperation(method, path, pathSchemas, version);
  if (method.toUpperCase() === 'GET') return isoGetValidator({ resource, fspiop, requiredHeaders });
  const iso = isoOperation(method, path);
  const required = [...new Set([...fspiop.requiredHeaders, ...requiredHeaders])];
  const fields = isoLimitedFieldsOf(isoSpec().document, iso.schema);
  return function validateIsoRequest({ headers, params, payload, info }) {
    const headerFailure = isoHeaderFailure(headers, { resource, required });
    if (headerFailure) return { failure: headerFailure };
    const pathProblem = checkPathParameters(params, fspiop.pathParameters);
    if (pathProblem) return { failure: pathProblem };
    const parsed = parseJsonBody(payload, { required: iso.required, payloadBytesMax });
    if (parsed.failure) return parsed;
    if (parsed.body !== undefined) {
      if (!iso.validate(parsed.body)) return { failure: schemaFailure(telling(iso.validate.errors), '/requestBody') };
      const outside = checkIsoBodyLimits(parsed.body, fields, { nowMs: info?.received ?? Date.now(), ...limits });
      if (outside) return { failure: fspiopFailure(outside.code, outside.detail) };
    }
    return { headers: pickForwardedHeaders(headers), params: { ...params }, body: parsed.body, rawBody: parsed.rawBody, message: iso.message };
  };
}

/**
 * The validator of a GET asked in ISO 20022 (its Accept names the ISO 20022 media type): the
 * same headers and path as any other ISO 20022 request of the resource, and no body.
 */
function isoGetValidator({ resource, fspiop, requiredHeaders }) {
  // The answer is a callback in ISO 20022, so the Accept saying so is checked as ISO 20022's.
  const required = [...new Set([...fspiop.requiredHeaders, 'accept', ...requiredHeaders])];
  return function validateIsoGet({ headers, params }) {
    const headerFailure = isoHeaderFailure(headers, { resource, required });
    if (headerFailure) return { failure: headerFailure };
    const pathProblem = checkPathParameters(params, fspiop.pathParameters);
    if (pathProblem) return { failure: pathProblem };
    return { headers: pickForwardedHeaders(headers), params: { ...params }, body: undefined, rawBody: undefined, message: undefined };
  };
}
