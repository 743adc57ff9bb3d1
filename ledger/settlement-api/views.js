// Response bodies in central-settlement's shapes, so operator scripts read them unchanged:
// windows listed with `settlementWindowId` (inside a settlement, `id`), amounts as JSON
// numbers written from exact decimal text, dates as ISO strings.
import { jsonNumber } from '../../platform/http/json.js';
import { errorInformation } from '../../platform/fspiop/errors.js';
import { formatAmount } from '../domain/money.js';

const iso = (date) => (date ? new Date(date).toISOString() : null);

function contentView(content, { withWindowId = false } = {}) {
  return {
    id: content.id,
    ...(withWindowId ? { settlementWindowId: content.settlementWindowId } : {}),
    state: content.state,
    ledgerAccountType: content.ledgerAccountType,
    currencyId: content.currency,
    createdDate: iso(content.createdAt),
    changedDate: iso(content.changedAt),
    settlementId: content.settlementId,
  };
}

/** A window as GET /settlementWindows answers it; `content` is left out for a window just opened. */
export function windowView(window, { withContent = true } = {}) {
  return {
    settlementWindowId: window.id,
    reason: window.reason,
    state: window.state,
    createdDate: iso(window.createdAt),
    changedDate: iso(window.changedAt),
    ...(withContent ? { content: window.content.map((content) => contentView(content)) } : {}),
  };
}

function accountView(account) {
  return {
    id: account.accountId,
    state: account.state,
    reason: account.reason,
    ...(account.externalReference ? { externalReference: account.externalReference } : {}),
    netSettlementAmount: { amount: jsonNumber(formatAmount(account.netAmount)), currency: account.currency },
  };
}

/** Accounts grouped by participant, in participant then account order. */
export function participantsView(accounts) {
  const byParticipant = new Map();
  for (const account of accounts) {
    if (!byParticipant.has(account.participantId)) byParticipant.set(account.participantId, []);
    byParticipant.get(account.participantId).push(account.error ? refusedAccountView(account) : accountView(account));
  }
  return [...byParticipant].sort(([a], [b]) => a - b).map(([id, accountViews]) => ({ id, accounts: accountViews }));
}

function refusedAccountView(account) {
  return {
    id: account.accountId,
    ...(account.state ? { state: account.state, reason: account.reason } : {}),
    ...(account.netAmount !== undefined ? { netSettlementAmount: { amount: jsonNumber(formatAmount(account.netAmount)), currency: account.currency } } : {}),
    ...errorInformation(3000, account.error),
  };
}

/** A settlement with its windows (and their content) and every participant account. */
export function settlementView(settlement, windows, { modelName } = {}) {
  return {
    id: settlement.id,
    ...(modelName ? { settlementModel: modelName } : {}),
    state: settlement.state,
    reason: settlement.reason,
    createdDate: iso(settlement.createdAt),
    changedDate: iso(settlement.changedAt),
    settlementWindows: windows.map((window) => ({
      id: window.id,
      state: window.state,
      reason: window.reason,
      createdDate: iso(window.createdAt),
      changedDate: iso(window.changedAt),
      content: window.content.filter((content) => content.settlementId === settlement.id).map((content) => contentView(content, { withWindowId: true })),
    })),
    participants: participantsView([...settlement.accounts.values()]),
  };
}

/** A window's totals per currency (GET /v2/settlementWindows/{id}/totals). */
export function windowTotalsView(settlementWindowId, totals) {
  return {
    settlementWindowId,
    totals: totals.map((total) => ({ currency: total.currency, transferCount: total.transferCount, amount: jsonNumber(formatAmount(total.amount)) })),
  };
}
