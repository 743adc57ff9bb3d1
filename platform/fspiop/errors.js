// The FSPIOP error catalogue the switch uses, and the one table that maps the domain's
// failure codes onto it. README.md documents every code listed here (a test checks that).
import { FAILURE } from '../domain/failures.js';

export const FSPIOP_ERRORS = Object.freeze({
  2001: { description: 'Internal server error', httpStatus: 500 },
  2002: { description: 'Not implemented', httpStatus: 501 },
  2003: { description: 'Service currently unavailable', httpStatus: 503 },
  // Only for a DFSP over its rate limit: 429 is the status HTTP clients and proxies retry on.
  2005: { description: 'Server busy', httpStatus: 429 },
  3000: { description: 'Generic client error', httpStatus: 400 },
  3001: { description: 'Unacceptable version requested', httpStatus: 406 },
  3002: { description: 'Unknown URI', httpStatus: 404 },
  3003: { description: 'Add Party information error', httpStatus: 400 },
  3040: { description: 'Delete Party information error', httpStatus: 400 },
  3100: { description: 'Generic validation error', httpStatus: 400 },
  3101: { description: 'Malformed syntax', httpStatus: 400 },
  3102: { description: 'Missing mandatory element', httpStatus: 400 },
  3103: { description: 'Too many elements', httpStatus: 400 },
  3104: { description: 'Too large payload', httpStatus: 413 },
  3105: { description: 'Invalid signature', httpStatus: 400 },
  3106: { description: 'Modified request', httpStatus: 400 },
  3200: { description: 'Generic ID not found', httpStatus: 400 },
  3201: { description: 'Destination FSP Error', httpStatus: 400 },
  3202: { description: 'Payer FSP ID not found', httpStatus: 400 },
  3203: { description: 'Payee FSP ID not found', httpStatus: 400 },
  3204: { description: 'Party not found', httpStatus: 400 },
  3205: { description: 'Quote ID not found', httpStatus: 400 },
  3206: { description: 'Transaction request ID not found', httpStatus: 400 },
  3208: { description: 'Transfer ID not found', httpStatus: 400 },
  3209: { description: 'Bulk quote ID not found', httpStatus: 400 },
  3210: { description: 'Bulk transfer ID not found', httpStatus: 400 },
  3303: { description: 'Transfer expired', httpStatus: 400 },
  4001: { description: 'Payer FSP insufficient liquidity', httpStatus: 400 },
  4200: { description: 'Payer limit error', httpStatus: 400 },
  6000: { description: 'Generic Settlement Error', httpStatus: 400 },
});

const FAILURE_TO_FSPIOP_CODE = Object.freeze({
  [FAILURE.validation]: 3100,
  [FAILURE.malformedSyntax]: 3101,
  [FAILURE.missingElement]: 3102,
  [FAILURE.alreadyExists]: 3000,
  [FAILURE.hubAccountInvalid]: 3003,
  [FAILURE.hubAccountsMissing]: 3003,
  [FAILURE.participantNotFound]: 3200,
  [FAILURE.accountNotFound]: 3200,
  [FAILURE.transferNotFound]: 3208,
  [FAILURE.settlementModelMissing]: 6000,
  [FAILURE.modifiedRequest]: 3106,
  [FAILURE.invalidSignature]: 3105,
  [FAILURE.insufficientLiquidity]: 4001,
  [FAILURE.netDebitCapExceeded]: 4200,
  [FAILURE.invalidState]: 3100,
  [FAILURE.transferExpired]: 3303,
  [FAILURE.payerFspNotFound]: 3202,
  [FAILURE.payeeFspNotFound]: 3203,
  [FAILURE.quoteNotFound]: 3205,
  [FAILURE.transactionRequestNotFound]: 3206,
  [FAILURE.bulkQuoteNotFound]: 3209,
  [FAILURE.bulkTransferNotFound]: 3210,
  [FAILURE.partyNotFound]: 3204,
  [FAILURE.destinationUnroutable]: 3201,
  [FAILURE.partyRegistrationRefused]: 3003,
  [FAILURE.partyDeletionRefused]: 3040,
  [FAILURE.oracleUnavailable]: 2003,
  [FAILURE.messagingUnavailable]: 2003,
  [FAILURE.destinationUnreachable]: 2003,
  [FAILURE.oracleNotFound]: 3200,
  [FAILURE.operatorUnauthenticated]: 3000,
  [FAILURE.operatorForbidden]: 3000,
  [FAILURE.unsolicitedPartyAnswer]: 3100,
  [FAILURE.clientIdentityMismatch]: 3100,
  [FAILURE.processingFailed]: 2001,
  [FAILURE.limitMissing]: 4200,
  // central-settlement answers all four with its generic validation error.
  [FAILURE.settlementWindowNotFound]: 3100,
  [FAILURE.settlementNotFound]: 3100,
  [FAILURE.settlementModelNotFound]: 3100,
  [FAILURE.settlementStateChangeRefused]: 3100,
});

// FSPIOP has no authentication codes, so operator API refusals are its generic client error
// with HTTP's own statuses, which every HTTP client and proxy already understands.
const FAILURE_HTTP_STATUS = Object.freeze({
  [FAILURE.operatorUnauthenticated]: 401,
  [FAILURE.operatorForbidden]: 403,
});

// A value that breaks the FSPIOP OpenAPI document maps to a code by the JSON Schema keyword
// it broke, as Mojaloop's edges do in their default validation mode (central-services-error-
// handling's mapping of Ajv errors, ERROR_HANDLING_AJV_JOI_PARITY off): an absent property is
// a missing element, an unknown one too many elements, a value of the wrong type malformed
// syntax, and anything else (a pattern, format, enumeration, length or count) the generic
// validation error. Malformed headers and JSON that does not parse stay 3101 (edge.js).
const SCHEMA_KEYWORD_TO_FSPIOP_CODE = Object.freeze({
  required: 3102,
  additionalProperties: 3103,
  type: 3101,
});

/** The FSPIOP code for a JSON Schema keyword a request value broke (Ajv's `error.keyword`). */
export function schemaKeywordCode(keyword) {
  return SCHEMA_KEYWORD_TO_FSPIOP_CODE[keyword] ?? 3100;
}

// FSPIOP bounds a description and an extension value alike to 128 characters.
const TEXT_LENGTH_MAX = 128;

// Codes whose description DFSPs' tooling compares whole, in Mojaloop's words (central-ledger's:
// the description alone, or with the one detail it always adds). The switch's own detail goes
// into the extension list instead (key `detail`), where no comparison trips over it.
const FIXED_DETAIL = Object.freeze({
  3106: null,
  3208: 'Provided Transfer ID was not found on the server.',
  3303: null,
});

const extensionList = (key, value) => ({ extension: [{ key, value: String(value).slice(0, TEXT_LENGTH_MAX) }] });

/**
 * The FSPIOP `errorInformation` body for a code, with an optional detail: appended to the
 * description, or for a code in FIXED_DETAIL carried in the extension list.
 */
export function errorInformation(code, detail) {
  const entry = FSPIOP_ERRORS[code];
  if (!entry) throw new Error(`FSPIOP error ${code} is not in the catalogue`);
  const fixed = Object.hasOwn(FIXED_DETAIL, code);
  const shownDetail = fixed ? FIXED_DETAIL[code] : detail;
  const text = shownDetail ? `${entry.description} - ${shownDetail}` : entry.description;
  const body = { errorCode: String(code), errorDescription: text.slice(0, TEXT_LENGTH_MAX) };
  if (fixed && detail) body.extensionList = extensionList('detail', detail);
  return { errorInformation: body };
}

/**
 * Why a transfer was aborted, as Mojaloop tells it with the transfer's state (the PUT of a
 * GET answer, the PATCH to a payee): the extension list `cause`, "<code>: <description>", from
 * the `errorInformation` the abort was told with.
 */
export function abortCauseExtensionList({ errorCode, errorDescription }) {
  return extensionList('cause', `${errorCode}: ${errorDescription}`);
}

/** Maps a domain failure value to `{ httpStatus, body }`. */
export function failureToFspiop(domainFailure) {
  const code = FAILURE_TO_FSPIOP_CODE[domainFailure.code];
  if (code === undefined) throw new Error(`failure code ${domainFailure.code} has no FSPIOP mapping`);
  const httpStatus = FAILURE_HTTP_STATUS[domainFailure.code] ?? FSPIOP_ERRORS[code].httpStatus;
  return { httpStatus, body: errorInformation(code, domainFailure.detail) };
}

export function fspiopCodeOf(failureCode) {
  return FAILURE_TO_FSPIOP_CODE[failureCode];
}
