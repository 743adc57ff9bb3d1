// Response bodies in central-ledger's shapes, so existing onboarding tools read them
// unchanged: isActive as 1/0, amounts as JSON numbers (written from exact decimal text).
import { jsonNumber } from '../../platform/http/json.js';
import { amountFromColumn, formatAmount } from '../domain/money.js';

function decimalNumber(columnValue) {
  return jsonNumber(formatAmount(amountFromColumn(columnValue)));
}

function percentageNumber(columnValue) {
  return jsonNumber(String(Number.parseFloat(columnValue)));
}

export function participantView(participant, accounts, baseUrl) {
  const link = `${baseUrl}/participants/${participant.name}`;
  return {
    name: participant.name,
    id: link,
    created: participant.createdAt,
    isActive: participant.isActive ? 1 : 0,
    links: { self: link },
    accounts: accounts.map((account) => ({
      id: account.id,
      ledgerAccountType: account.type,
      currency: account.currency,
      isActive: account.isActive ? 1 : 0,
      createdDate: account.createdAt,
      createdBy: account.createdBy,
    })),
    isProxy: participant.isProxy ? 1 : 0,
    // Not a central-ledger field: the API the participant receives its messages in (FSPIOP or ISO20022).
    apiType: participant.apiType,
  };
}

/**
 * A participant as the DFSP directory token reads it (the notification handler and account
 * lookup, to know which API a DFSP receives messages in): no accounts, no links.
 */
export function participantDirectoryView(participant) {
  return { name: participant.name, isActive: participant.isActive ? 1 : 0, apiType: participant.apiType };
}

export function accountBalanceView(account) {
  return {
    id: account.id,
    ledgerAccountType: account.type,
    currency: account.currency,
    isActive: account.isActive ? 1 : 0,
    value: decimalNumber(account.value),
    reservedValue: decimalNumber(account.reservedValue),
    changedDate: account.changedAt,
  };
}

export function positionView(account) {
  return { currency: account.currency, value: decimalNumber(account.value), changedDate: account.changedAt };
}

export function limitView(row, { withName = false } = {}) {
  return {
    ...(withName ? { name: row.name } : {}),
    currency: row.currency,
    limit: { type: row.type, value: decimalNumber(row.value), alarmPercentage: percentageNumber(row.alarmPercentage) },
  };
}

export function settlementModelView(model) {
  return {
    settlementModelId: model.id,
    name: model.name,
    isActive: model.isActive ? 1 : 0,
    settlementGranularity: model.settlementGranularity,
    settlementInterchange: model.settlementInterchange,
    settlementDelay: model.settlementDelay,
    currency: model.currency,
    requireLiquidityCheck: model.requireLiquidityCheck,
    ledgerAccountType: model.ledgerAccountType,
    settlementAccountType: model.settlementAccountType,
    autoPositionReset: model.autoPositionReset,
  };
}

export function currencyPairView(pair) {
  return { sourceCurrency: pair.sourceCurrency, targetCurrency: pair.targetCurrency, createdDate: pair.createdAt };
}
