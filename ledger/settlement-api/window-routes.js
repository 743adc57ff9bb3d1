// Settlement windows: list, read, close. Closing takes the open-window pointer's exclusive
// lock, so it waits for the position handler's commits in flight (each holds the pointer's
// shared lock); the window's content is summed and the next window opened in the same
// transaction, after which no transfer can be recorded in the closed window.
import { bodyRoute, failureResponse, jsonResponse } from '../../platform/http/server.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { decideCloseWindow } from '../domain/settlement-windows.js';
import { closedWindowContent } from '../domain/settlements.js';
import { listSettlementModels } from '../repositories/onboarding.js';
import { closeWindowAndOpenNext, findWindow, findWindows, openWindowId, windowTotals } from '../repositories/settlements.js';
import { nothingFound, parseId, readFilters } from './query.js';
import { validators } from './schemas.js';
import { windowTotalsView, windowView } from './views.js';

export const WINDOW_FILTERS = Object.freeze(['participantId', 'state', 'fromDateTime', 'toDateTime', 'currency']);

export function windowRoutes({ db, clock, onWindowClosed = () => {} }) {
  async function listWindows(request, h) {
    const filters = readFilters(request, WINDOW_FILTERS);
    if (isFailure(filters)) return failureResponse(h, filters);
    const windows = await findWindows(db, filters);
    if (windows.length === 0) return failureResponse(h, nothingFound('settlementWindow', request));
    return jsonResponse(h, windows.map((window) => windowView(window)));
  }

  async function getWindow(request, h) {
    const id = parseId(request.params.id, 'settlementWindowId');
    if (isFailure(id)) return failureResponse(h, id);
    const [window] = await findWindows(db, { ids: [id] });
    if (!window) return failureResponse(h, failure(FAILURE.settlementWindowNotFound, `No record for settlementWindowId: ${id} found`));
    return jsonResponse(h, windowView(window));
  }

  /**
   * What a window holds per currency, in any state: its transfers' count and amount (gross
   * settled ones included). Not central-settlement's: its windows carry no amounts, and an
   * operator deciding when to close or settle one wants to see them.
   */
  async function getWindowTotals(request, h) {
    const id = parseId(request.params.id, 'settlementWindowId');
    if (isFailure(id)) return failureResponse(h, id);
    const window = await findWindow(db, id);
    if (!window) return failureResponse(h, failure(FAILURE.settlementWindowNotFound, `No record for settlementWindowId: ${id} found`));
    return jsonResponse(h, windowTotalsView(id, await windowTotals(db, id)));
  }

  async function closeWindow(request, h, body) {
    const id = parseId(request.params.id, 'settlementWindowId');
    if (isFailure(id)) return failureResponse(h, id);
    const outcome = await db.transaction(async (trx) => {
      const openId = await openWindowId(trx, { forUpdate: true });
      const window = await findWindow(trx, id);
      const totals = window && window.id === openId ? await windowTotals(trx, id) : [];
      const decision = decideCloseWindow({ id, window, openWindowId: openId, transferCount: totals.reduce((sum, total) => sum + total.transferCount, 0) });
      if (isFailure(decision)) return decision;
      // Content is what a deferred settlement will take: currencies settled gross are already
      // settled, and so is any transfer settled gross before its currency's model changed.
      const contentRows = closedWindowContent({ unsettledTotals: await windowTotals(trx, id, { grossSettled: false }), models: await listSettlementModels(trx) });
      const nextId = await closeWindowAndOpenNext(trx, {
        id, closedState: decision.closedState, openState: decision.nextState, reason: body.reason, contentRows, now: clock(),
      });
      return { totals, next: await findWindow(trx, nextId) };
    });
    if (isFailure(outcome)) return failureResponse(h, outcome);
    onWindowClosed(outcome.totals);
    return jsonResponse(h, windowView(outcome.next, { withContent: false }));
  }

  return [
    { method: 'GET', path: '/v2/settlementWindows', handler: listWindows },
    { method: 'GET', path: '/v2/settlementWindows/{id}', handler: getWindow },
    { method: 'GET', path: '/v2/settlementWindows/{id}/totals', handler: getWindowTotals },
    bodyRoute('POST', '/v2/settlementWindows/{id}', validators.closeWindow, closeWindow),
  ];
}
