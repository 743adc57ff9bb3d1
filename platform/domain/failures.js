// Expected failures are values, not exceptions: each has a stable code that the FSPIOP edge
// code maps to an FSPIOP error in exactly one place (platform/fspiop/errors.js). The codes are
// the switch's shared vocabulary: every bounded context (ledger, quoting, account lookup)
// returns them, so they live in the shared kernel rather than in any one context.

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
  invalidSignature: 'INVALID_SIGNATURE',
  insufficientLiquidity: 'INSUFFICIENT_LIQUIDITY',
  netDebitCapExceeded: 'NET_DEBIT_CAP_EXCEEDED',
  invalidState: 'INVALID_STATE',
  transferExpired: 'TRANSFER_EXPIRED',
  payerFspNotFound: 'PAYER_FSP_NOT_FOUND',
  payeeFspNotFound: 'PAYEE_FSP_NOT_FOUND',
  quoteNotFound: 'QUOTE_NOT_FOUND',
  transactionRequestNotFound: 'TRANSACTION_REQUEST_NOT_FOUND',
  bulkQuoteNotFound: 'BULK_QUOTE_NOT_FOUND',
  bulkTransferNotFound: 'BULK_TRANSFER_NOT_FOUND',
  partyNotFound: 'PARTY_NOT_FOUND',
  destinationUnroutable: 'DESTINATION_UNROUTABLE',
  partyRegistrationRefused: 'PARTY_REGISTRATION_REFUSED',
  partyDeletionRefused: 'PARTY_DELETION_REFUSED',
  oracleUnavailable: 'ORACLE_UNAVAILABLE',
  // Kafka did not answer an operator's call that reads or writes it (dead letters).
  messagingUnavailable: 'MESSAGING_UNAVAILABLE',
  // A DFSP a request was forwarded to did not answer (refused, timed out, circuit open).
  destinationUnreachable: 'DESTINATION_UNREACHABLE',
  oracleNotFound: 'ORACLE_NOT_FOUND',
  operatorUnauthenticated: 'OPERATOR_UNAUTHENTICATED',
  operatorForbidden: 'OPERATOR_FORBIDDEN',
  unsolicitedPartyAnswer: 'UNSOLICITED_PARTY_ANSWER',
  clientIdentityMismatch: 'CLIENT_IDENTITY_MISMATCH',
  // The switch could not process a message at all (it was set aside as a dead letter).
  processingFailed: 'PROCESSING_FAILED',
  // The payer's account has no net debit cap or settlement account to check against.
  limitMissing: 'LIMIT_MISSING',
  // Settlement (central-settlement's API): unknown windows, settlements and models, and a
  // settlement state change the settlement's progress no longer allows.
  settlementWindowNotFound: 'SETTLEMENT_WINDOW_NOT_FOUND',
  settlementNotFound: 'SETTLEMENT_NOT_FOUND',
  settlementModelNotFound: 'SETTLEMENT_MODEL_NOT_FOUND',
  settlementStateChangeRefused: 'SETTLEMENT_STATE_CHANGE_REFUSED',
});

export function failure(code, detail) {
  return Object.freeze({ ok: false, code, detail });
}

export function isFailure(value) {
  return value !== null && typeof value === 'object' && value.ok === false;
}
