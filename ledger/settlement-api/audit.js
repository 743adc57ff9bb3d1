// The settlement API's audit trail: what each write route may change, read before and after
// the call in its transaction. The API records every attempt (platform/http/operator-audit.js),
// so a refused one is kept with the state it was refused against: the window and the open
// window's id for a close, the windows named for a new settlement, the settlement and its
// accounts for a state change.
import { isFailure } from '../../platform/domain/failures.js';
import { looseBody } from '../../platform/http/operator-audit.js';
import { formatAmount } from '../domain/money.js';
import { findSettlement, findWindow, findWindows, openWindowId } from '../repositories/settlements.js';
import { parseId } from './query.js';

// As many windows as a settlement may name (schemas.js); a longer list is refused unread.
const SETTLEMENT_WINDOWS_MAX = 1000;

const idOf = (value) => {
  const id = parseId(String(value), 'id');
  return isFailure(id) ? undefined : id;
};

async function windowToClose(db, idText) {
  const id = idOf(idText);
  const window = id === undefined ? undefined : await findWindow(db, id);
  return { window: window ? { id: window.id, state: window.state, reason: window.reason } : null, openWindowId: await openWindowId(db) };
}

async function windowsToSettle(db, request) {
  const named = looseBody(request)?.settlementWindows;
  const ids = Array.isArray(named) && named.length <= SETTLEMENT_WINDOWS_MAX ? [...new Set(named.map((window) => idOf(window?.id)).filter(Boolean))] : [];
  const windows = ids.length === 0 ? [] : await findWindows(db, { ids });
  return {
    windows: windows.sort((a, b) => a.id - b.id).map((window) => ({
      id: window.id, state: window.state,
      content: window.content.map((content) => ({ currency: content.currency, state: content.state, settlementId: content.settlementId })),
    })),
  };
}

async function settlementState(db, idText) {
  const id = idOf(idText);
  const settlement = id === undefined ? undefined : await findSettlement(db, id);
  if (!settlement) return { settlement: null };
  const accounts = [...settlement.accounts.values()].map((account) => ({
    participantId: account.participantId, accountId: account.accountId, currency: account.currency, netAmount: formatAmount(account.netAmount),
    state: account.state, reason: account.reason, externalReference: account.externalReference,
  }));
  return { settlement: { id: settlement.id, state: settlement.state, reason: settlement.reason, windowIds: settlement.windowIds, accounts } };
}

/** What a settlement API write route may change. */
export async function settlementSnapshot(db, request) {
  if (request.route.path === '/v2/settlementWindows/{id}') return windowToClose(db, request.params.id);
  if (request.route.path === '/v2/settlements') return windowsToSettle(db, request);
  return settlementState(db, request.params.id ?? request.params.sid);
}
