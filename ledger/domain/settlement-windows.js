// Settlement windows: their states and transitions as data, and the decisions the settlement
// API takes on them (close one, which windows a settlement may take). A window is OPEN while
// committed transfers are recorded in it; closing it opens the next one in the same
// transaction; its content (per currency) is then settled by exactly one settlement at a time.
import { FAILURE, failure } from '../../platform/domain/failures.js';

export const WINDOW_STATE = Object.freeze({
  open: 'OPEN',
  closed: 'CLOSED',
  pendingSettlement: 'PENDING_SETTLEMENT',
  settled: 'SETTLED',
  aborted: 'ABORTED',
});

const W = WINDOW_STATE;

/**
 * from → [to, ...]. A settlement over the window makes it PENDING_SETTLEMENT; it ends SETTLED,
 * or ABORTED when its settlement is aborted, and an aborted window may be settled again.
 */
const WINDOW_TRANSITIONS = Object.freeze({
  [W.open]: [W.closed],
  [W.closed]: [W.pendingSettlement],
  [W.pendingSettlement]: [W.settled, W.aborted],
  [W.aborted]: [W.pendingSettlement],
});

/** Whether a window (or a window's content, which follows the same table) may go from `from` to `to`. */
export function canWindowTransition(from, to) {
  return (WINDOW_TRANSITIONS[from] ?? []).includes(to);
}

/** Asserts a decided change of a window against the table: deciding an illegal one is a bug. */
export function windowTransition(from, to) {
  if (!canWindowTransition(from, to)) throw new Error(`illegal settlement window transition ${from} → ${to}`);
  return to;
}

/**
 * Closing the window `id` (its row read under the open-window lock, or undefined when the id
 * is unknown). Only the open window closes, and only once it holds a transfer; anything else
 * is the operator's error, in central-settlement's words.
 */
export function decideCloseWindow({ id, window, openWindowId, transferCount }) {
  if (!window) return failure(FAILURE.settlementWindowNotFound, `Window ${id} does not exist`);
  if (window.state !== W.open || window.id !== openWindowId) return failure(FAILURE.validation, `Window ${id} is not open`);
  if (transferCount === 0) return failure(FAILURE.validation, `Window ${id} is empty`);
  return { ok: true, closedState: windowTransition(window.state, W.closed), nextState: W.open };
}

const SETTLEABLE_CONTENT = Object.freeze([W.closed, W.aborted]);

/**
 * What a new settlement takes from the requested windows: the content (per currency) that is
 * CLOSED or ABORTED and that `settles` accepts (content closed under the settlement's model). A window is applicable when it is
 * CLOSED, ABORTED or PENDING_SETTLEMENT (another currency of it may be pending) and has such
 * content; otherwise the request names its ids, as central-settlement does.
 * `windows`: id → { state, content: [{ id, currency, state }] }.
 */
export function decideSettlementWindows({ requestedIds, windows, settles }) {
  const applicable = (window) => [W.closed, W.aborted, W.pendingSettlement].includes(window.state);
  const takenContent = (window) => window.content.filter((content) => SETTLEABLE_CONTENT.includes(content.state) && settles(content));
  const inapplicable = requestedIds.filter((id) => {
    const window = windows.get(id);
    return !window || !applicable(window) || takenContent(window).length === 0;
  });
  if (inapplicable.length > 0) return failure(FAILURE.validation, `Inapplicable windows ${inapplicable.join(', ')}`);
  const windowIds = [...requestedIds].sort((a, b) => a - b);
  const content = windowIds.flatMap((id) => takenContent(windows.get(id)));
  return { ok: true, windowIds, content };
}
