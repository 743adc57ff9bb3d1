// Expected failures are values, not exceptions: each has a stable code that the platform
// maps to an FSPIOP error in exactly one place (platform/fspiop/errors.js).

export const FAILURE = Object.freeze({
  validation: 'VALIDATION',
  malformedSyntax: 'MALFORMED_SYNTAX',
  missingElement: 'MISSING_ELEMENT',
  alreadyExists: 'ALREADY_EXISTS',
  hubAccountInvalid: 'HUB_ACCOUNT_INVALID',
  hubAccountsMissing: 'HUB_ACCOUNTS_MISSING',
  participantNotFound: 'PARTICIPANT_NOT_FOUND',
  accountNotFound: 'ACCOUNT_NOT_FOUND',
  transferNotFound: 'TRANSFER_NOT_FOUND',
  settlementModelMissing: 'SETTLEMENT_MODEL_MISSING',
  modifiedRequest: 'MODIFIED_REQUEST',
  insufficientLiquidity: 'INSUFFICIENT_LIQUIDITY',
  netDebitCapExceeded: 'NET_DEBIT_CAP_EXCEEDED',
  invalidState: 'INVALID_STATE',
  transferExpired: 'TRANSFER_EXPIRED',
});

export function failure(code, detail) {
  return Object.freeze({ ok: false, code, detail });
}

export function isFailure(value) {
  return value !== null && typeof value === 'object' && value.ok === false;
}
