// Participant, account, limit and endpoint rules for onboarding, decided on prefetched rows.
import { FAILURE, failure } from '../../platform/domain/failures.js';

export const ACCOUNT_TYPE = Object.freeze({
  position: 'POSITION',
  settlement: 'SETTLEMENT',
  hubReconciliation: 'HUB_RECONCILIATION',
  hubMultilateralSettlement: 'HUB_MULTILATERAL_SETTLEMENT',
});

export const HUB_ACCOUNT_TYPES = Object.freeze([ACCOUNT_TYPE.hubReconciliation, ACCOUNT_TYPE.hubMultilateralSettlement]);

export const LIMIT_TYPE = Object.freeze({ netDebitCap: 'NET_DEBIT_CAP' });

// central-ledger's own words for onboarding done twice, which provisioning scripts look for.
// It answers 3000 for the model; for the initial position it answers 500 (2001), where the
// switch answers 3000 with the same words, since the request, not the server, is at fault.
export const SETTLEMENT_MODEL_EXISTS = 'Settlement Model already exists';
export const INITIAL_POSITION_EXISTS = 'Participant Limit or Initial Position already set';

/**
 * Mojaloop's endpoint types, as central-ledger seeds them (its endpointType table), so that
 * existing DFSP onboarding scripts register every one of them unchanged. Most are callback
 * URL templates; the e-mail types hold an address to notify and ALARM_NOTIFICATION_TOPIC a
 * Kafka topic name, and neither is ever called as a URL.
 */
export const EMAIL_ENDPOINT_TYPES = Object.freeze([
  'NET_DEBIT_CAP_THRESHOLD_BREACH_EMAIL', 'NET_DEBIT_CAP_ADJUSTMENT_EMAIL', 'SETTLEMENT_TRANSFER_POSITION_CHANGE_EMAIL',
]);
export const TOPIC_ENDPOINT_TYPES = Object.freeze(['ALARM_NOTIFICATION_TOPIC']);

const FSPIOP_URL_ENDPOINT_TYPES = [
  'FSPIOP_CALLBACK_URL_TRANSFER_POST', 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR',
  'FSPIOP_CALLBACK_URL_FX_QUOTES', 'FSPIOP_CALLBACK_URL_FX_TRANSFER_POST', 'FSPIOP_CALLBACK_URL_FX_TRANSFER_PUT',
  'FSPIOP_CALLBACK_URL_FX_TRANSFER_ERROR',
  'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT', 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT',
  'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR', 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT_ERROR',
  'FSPIOP_CALLBACK_URL_PARTICIPANT_DELETE', 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_DELETE',
  'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT', 'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR',
  'FSPIOP_CALLBACK_URL_PARTIES_GET', 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET',
  'FSPIOP_CALLBACK_URL_PARTIES_PUT', 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT',
  'FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR', 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR',
  'FSPIOP_CALLBACK_URL_QUOTES', 'FSPIOP_CALLBACK_URL_BULK_QUOTES',
  'FSPIOP_CALLBACK_URL_BULK_TRANSFER_POST', 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_PUT', 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR',
  'FSPIOP_CALLBACK_URL_AUTHORIZATIONS', 'FSPIOP_CALLBACK_URL_TRX_REQ_SERVICE',
  // The switch's own (Mojaloop serves no /services/FXP and has no type for it): a base URL, to
  // which the hub's answers add `/services/FXP[/{SourceCurrency}/{TargetCurrency}]`, as
  // FSPIOP_CALLBACK_URL_QUOTES is one for /quotes.
  'FSPIOP_CALLBACK_URL_SERVICES',
];

// The third-party (PISP) API's callbacks.
const THIRD_PARTY_URL_ENDPOINT_TYPES = [
  'TRANSACTION_REQUEST_GET', 'TRANSACTION_REQUEST_POST', 'TRANSACTION_REQUEST_PUT', 'TRANSACTION_REQUEST_PUT_ERROR',
  'TRANSACTION_REQUEST_PATCH', 'TRANSACTION_REQUEST_AUTH_POST', 'TRANSACTION_REQUEST_AUTH_PUT', 'TRANSACTION_REQUEST_AUTH_PUT_ERROR',
  'TRANSACTION_REQUEST_VERIFY_POST', 'TRANSACTION_REQUEST_VERIFY_PUT', 'TRANSACTION_REQUEST_VERIFY_PUT_ERROR',
  'CONSENT_REQUEST_POST', 'CONSENT_REQUEST_PUT', 'CONSENT_REQUEST_PUT_ERROR', 'CONSENT_REQUEST_PATCH', 'CREATE_CREDENTIAL_POST',
  'CONSENT_POST', 'CONSENT_GET', 'CONSENT_PUT', 'CONSENT_PATCH', 'CONSENT_PUT_ERROR',
  'CONSENT_GENERATE_CHALLENGE_POST', 'CONSENT_GENERATE_CHALLENGE_PUT_ERROR',
  'ACCOUNTS_GET', 'ACCOUNTS_PUT', 'ACCOUNTS_PUT_ERROR', 'SERVICES_GET', 'SERVICES_PUT', 'SERVICES_PUT_ERROR',
].map((name) => `TP_CB_URL_${name}`);

/** The types whose value is a URL (template) the switch may call. */
export const URL_ENDPOINT_TYPES = Object.freeze(['ALARM_NOTIFICATION_URL', ...FSPIOP_URL_ENDPOINT_TYPES, ...THIRD_PARTY_URL_ENDPOINT_TYPES]);

export const ENDPOINT_TYPES = Object.freeze([...URL_ENDPOINT_TYPES, ...EMAIL_ENDPOINT_TYPES, ...TOPIC_ENDPOINT_TYPES]);

/**
 * The account types a settlement model may name, as central-ledger seeds its ledger account
 * types: the one a DFSP's transfers move (ledgerAccountType) and the one it settles through
 * (settlementAccountType). The hub's own types are not a DFSP's to hold.
 */
export const MODEL_LEDGER_ACCOUNT_TYPES = Object.freeze(['POSITION', 'INTERCHANGE_FEE', 'POSITION_REMITTANCE']);
export const MODEL_SETTLEMENT_ACCOUNT_TYPES = Object.freeze(['SETTLEMENT', 'INTERCHANGE_FEE_SETTLEMENT', 'SETTLEMENT_REMITTANCE']);

/**
 * Which hub accounts to create: the participant must be the hub, the type a hub type, and
 * the account new (central-ledger answers 3003 in each case).
 */
export function decideHubAccount({ participant, hubName, type, existingAccount }) {
  if (!participant) return failure(FAILURE.hubAccountInvalid, 'Participant was not found.');
  if (participant.name !== hubName) return failure(FAILURE.hubAccountInvalid, 'Endpoint is reserved for creation of Hub account types only.');
  if (!HUB_ACCOUNT_TYPES.includes(type)) return failure(FAILURE.hubAccountInvalid, 'The requested hub operator account type is not allowed.');
  if (existingAccount) return failure(FAILURE.hubAccountInvalid, 'Hub account has already been registered.');
  return { ok: true };
}

/**
 * Registering a DFSP (or a new currency for it) needs both hub accounts in the currency and
 * a settlement model for it (or a default one); the DFSP gets one account per model type.
 */
export function decideParticipantCurrency({ hubAccountTypes, participantCurrencies, currency, settlementModels }) {
  const missingHubTypes = HUB_ACCOUNT_TYPES.filter((type) => !hubAccountTypes.includes(type));
  if (missingHubTypes.length > 0) {
    return failure(FAILURE.hubAccountsMissing, `Hub account(s) ${missingHubTypes.join(', ')} must be created for ${currency} first`);
  }
  if (participantCurrencies.includes(currency)) {
    return failure(FAILURE.alreadyExists, 'Participant currency has already been registered');
  }
  const specific = settlementModels.filter((model) => model.currency === currency);
  const models = specific.length > 0 ? specific : settlementModels.filter((model) => model.currency === null);
  if (models.length === 0) return failure(FAILURE.settlementModelMissing, 'Unable to find a matching or default, Settlement Model');
  const accountTypes = [...new Set(models.flatMap((model) => [model.ledgerAccountType, model.settlementAccountType]))];
  return { ok: true, accountTypes };
}

/** initialPositionAndLimits may be set once per currency, on the DFSP's inactive accounts. */
export function decideInitialPositionAndLimits({ positionAccount, settlementAccount, existingLimit, limitType }) {
  if (!positionAccount || !settlementAccount) {
    return failure(FAILURE.accountNotFound, 'Participant has no POSITION and SETTLEMENT account in this currency');
  }
  if (limitType !== LIMIT_TYPE.netDebitCap) return failure(FAILURE.validation, `limit type ${limitType} is not supported`);
  if (existingLimit) return failure(FAILURE.alreadyExists, INITIAL_POSITION_EXISTS);
  return { ok: true };
}
