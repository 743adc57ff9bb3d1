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

/** Mojaloop's callback endpoint types, which existing DFSP onboarding scripts register. */
export const ENDPOINT_TYPES = Object.freeze([
  'FSPIOP_CALLBACK_URL_TRANSFER_POST', 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR',
  'FSPIOP_CALLBACK_URL_PARTIES_GET', 'FSPIOP_CALLBACK_URL_PARTIES_PUT', 'FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR',
  'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET', 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT', 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR',
  'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT', 'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR',
  'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT', 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT_ERROR',
  'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT', 'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR',
  'FSPIOP_CALLBACK_URL_QUOTES', 'FSPIOP_CALLBACK_URL_BULK_QUOTES',
  'FSPIOP_CALLBACK_URL_BULK_TRANSFER_POST', 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_PUT', 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR',
  'FSPIOP_CALLBACK_URL_TRX_REQ_SERVICE', 'FSPIOP_CALLBACK_URL_AUTHORIZATIONS',
  'FSPIOP_CALLBACK_URL_FX_QUOTES', 'FSPIOP_CALLBACK_URL_FX_TRANSFER_POST', 'FSPIOP_CALLBACK_URL_FX_TRANSFER_PUT',
  'FSPIOP_CALLBACK_URL_FX_TRANSFER_ERROR',
  'NET_DEBIT_CAP_THRESHOLD_BREACH_EMAIL', 'NET_DEBIT_CAP_ADJUSTMENT_EMAIL', 'SETTLEMENT_TRANSFER_POSITION_CHANGE_EMAIL',
  'ALARM_NOTIFICATION_URL', 'ALARM_NOTIFICATION_TOPIC',
]);

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
  if (existingLimit) return failure(FAILURE.alreadyExists, 'Participant Limit or Initial Position already set');
  return { ok: true };
}
