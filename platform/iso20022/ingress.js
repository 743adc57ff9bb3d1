// An ISO 20022 request at an FSPIOP edge (issue 34, docs/iso20022.md "Ingress"). Every edge
// route (platform/fspiop/edge.js's fspiopRoute) hands a request that speaks ISO 20022 here:
// it is validated against its ISO 20022 message (validation.js), converted into the FSPIOP
// 2.0 form with Mojaloop's mapping library (transformer.js), its amounts written as FSPIOP
// writes them, and that form checked against the FSPIOP 2.0 operation and the input limits
// as an FSPIOP body would be. The handler then runs on what an FSPIOP request would have
// given it: `body` the FSPIOP form, no `rawBody` (an event's body is the parse of its
// rawBody, and this one is not), and the ISO 20022 text as received under
// ORIGINAL_BODY_HEADER beside the forwarded headers, which keep the ISO 20022 media types and
// the DFSP's signature over those bytes. Every refusal is FSPIOP `errorInformation`, as the
// ISO 20022 document answers synchronous errors too.
import { fspiopFailure } from '../fspiop/edge.js';
import { HEADER_WORDING } from '../fspiop/headers.js';
import { valuesAt } from '../fspiop/input-limits.js';
import { ISO_MESSAGES } from './document.js';
import { API_TYPE, apiTypeOfMediaType, isoVersionsOf } from './media-types.js';
import { ORIGINAL_BODY_HEADER } from './original.js';
import { loadTransformFacades } from './transformer.js';
import { createIsoRequestValidator } from './validation.js';

/** The FSPIOP version an ISO 20022 message is converted into, whose document checks the result. */
export const ISO_FSPIOP_VERSION = '2.0';

// How much of the library's own words a refusal keeps: an FSPIOP description holds 128
// characters, and the message's name and the catalogue's words come first.
const LIBRARY_WORDS_MAX = 60;

/**
 * The mapping library's operation for a route: `post`, `put`, `putError` or `patch`, or
 * undefined for an operation the ISO 20022 document gives no message (GET has none).
 */
export function transformOperationOf(method, path) {
  const upper = method.toUpperCase();
  if (!ISO_MESSAGES[`${upper} ${path}`]) return undefined;
  if (upper === 'PUT') return path.endsWith('/error') ? 'putError' : 'put';
  return upper.toLowerCase();
}

/**
 * An FSPIOP Amount has no trailing zeros in its fraction and no bare point (its pattern
 * refuses "10.50" and "10."), which ISO 20022 allows: the same value written as FSPIOP writes it.
 */
export function fspiopAmountOf(text) {
  if (typeof text !== 'string' || !text.includes('.')) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}

/** Rewrites every Money's amount at `moneys` (paths as limitedFieldsOf finds them) in FSPIOP's syntax. */
export function normaliseAmounts(body, moneys) {
  for (const path of moneys) {
    for (const { value: money } of valuesAt(body, path)) {
      if (money !== null && typeof money === 'object') money.amount = fspiopAmountOf(money.amount);
    }
  }
  return body;
}

/**
 * ISO 20022 requires both amounts of a pacs.091 (`InstdAmt`, `IntrBkSttlmAmt`), where an FSPIOP
 * fx quote states only the one its `amountType` fixes and asks the FXP for the other; Mojaloop's
 * mapping library writes the unstated one as 0 and reads it back as an amount of 0. The FXP is
 * asked to fill that side in, not to convert to or from nothing, so an amount of 0 on the side
 * the FXP fills (the target of a SEND, the source of a RECEIVE) is left out of the FSPIOP form.
 */
export function withoutUnstatedFxAmount(body) {
  const terms = body?.conversionTerms;
  const side = { SEND: 'targetAmount', RECEIVE: 'sourceAmount' }[terms?.amountType];
  const money = side ? terms[side] : undefined;
  if (money !== null && typeof money === 'object' && /^0+(\.0*)?$/.test(String(money.amount))) delete money.amount;
  return body;
}

/** Which header of a request says it speaks ISO 20022: its Content-Type, or (a GET) its Accept. */
function isoHeaderName(headers) {
  return apiTypeOfMediaType(headers['content-type']) === API_TYPE.iso20022 ? 'content-type' : 'accept';
}

/**
 * The refusal of an ISO 20022 request on a route the ISO 20022 document lacks (participants,
 * bulk, request to pay, services, or an operation of an ISO resource without a message): the
 * media type is wrong for the route, 3101 as headers.js answers any wrong media type, and
 * the description says what is not served.
 */
function notServedFailure(headers, method, path) {
  return fspiopFailure(3101, `${HEADER_WORDING.malformed(isoHeaderName(headers))}: ${method} ${path} is not served in ISO 20022`);
}

/**
 * Converts a validated ISO 20022 request into its FSPIOP form and checks that form. Returns
 * `{ body }` or `{ failure }`: the library refusing the message is a 3100 naming the ISO 20022
 * message, a form the FSPIOP operation refuses is a 3100 naming the FSPIOP field.
 */
async function convert(validated, { resource, operation, fspiopForm, receivedAt }) {
  const { message } = validated;
  let facades;
  try {
    // Loaded (and configured with the edge's logger) when the edge started, which also
    // logged a library that cannot load; each request tries the load again.
    facades = await loadTransformFacades();
  } catch {
    return { failure: fspiopFailure(2003, 'ISO 20022 cannot be converted now') };
  }
  let converted;
  try {
    converted = await facades.FSPIOPISO20022[resource][operation]({ body: validated.body, headers: validated.headers, params: validated.params });
  } catch (error) {
    return { failure: fspiopFailure(3100, `${message} cannot be converted to FSPIOP: ${String(error?.message).slice(0, LIBRARY_WORDS_MAX)}`) };
  }
  const body = converted?.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { failure: fspiopFailure(3100, `${message} converts to no FSPIOP body`) };
  }
  normaliseAmounts(body, fspiopForm.moneys);
  if (resource === 'fxQuotes' && operation === 'post') withoutUnstatedFxAmount(body);
  const problem = fspiopForm.check(body, receivedAt);
  // Whatever the field's own code, the DFSP sent a valid ISO 20022 message whose content
  // FSPIOP cannot carry: a validation error, with the message named before the FSPIOP path.
  if (problem) return { failure: fspiopFailure(3100, `${message} in FSPIOP: ${problem.detail}`) };
  return { body };
}

/**
 * Builds the ISO 20022 side of one edge route. `resource`, `method`, `path`, `pathSchemas`,
 * `payloadBytesMax`, `limits` and `requiredHeaders` are the route's, as fspiopRoute takes
 * them; `fspiopForm` is `{ moneys, check(body, receivedAt) }` for the FSPIOP 2.0 operation
 * the conversion must satisfy (edge.js), absent for a GET. Returns an async function of the
 * hapi request resolving to `{ failure }` or `{ headers, params, body }`.
 */
export function createIsoIngress({ resource, method, path, pathSchemas, payloadBytesMax, limits, requiredHeaders, fspiopForm }) {
  const operation = transformOperationOf(method, path);
  const isGet = method.toUpperCase() === 'GET';
  if (isoVersionsOf(resource).length === 0 || (!isGet && (!operation || !fspiopForm))) {
    return async (request) => ({ failure: notServedFailure(request.headers, method, path) });
  }
  const validate = createIsoRequestValidator({ resource, method, path, pathSchemas, payloadBytesMax, limits, requiredHeaders });
  return async function acceptIsoRequest(request) {
    const validated = validate(request);
    if (validated.failure) return validated;
    const { headers, params } = validated;
    if (isGet) return { headers, params, body: undefined };
    const receivedAt = request.info?.received ?? Date.now();
    const converted = await convert(validated, { resource, operation, fspiopForm, receivedAt });
    if (converted.failure) return converted;
    return { headers: { ...headers, [ORIGINAL_BODY_HEADER]: validated.rawBody }, params, body: converted.body };
  };
}
