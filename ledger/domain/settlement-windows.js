// Settlement windows: their states and transitions as data, and the decisions the settlement
// API takes on them (close one, which windows a settlement may take, how they follow a
// settlement that ends). A window is OPEN while
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
 * Besides the windows (in id order) and the content taken, it names the state both move to
 * and the windows that move (a window another settlement has made PENDING_SETTLEMENT already
 * stays as it is).
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
  for (const item of content) windowTransition(item.state, W.pendingSettlement);
  const movingWindowIds = windowIds.filter((id) => canWindowTransition(windows.get(id).state, W.pendingSettlement));
  return { ok: true, windowIds, content, state: W.pendingSettlement, movingWindowIds };
}

/** The states a settlement ends in that its windows follow. */
const SETTLEMENT_ENDS = Object.freeze([W.settled, W.aborted]);

/**
 * How a settlement's windows follow it when it ends `state` (SETTLED or ABORTED). Its own
 * content (the rows naming it) moves with it; a window is SETTLED once every currency of it
 * is, while an abort gives back every window of the settlement at once, as central-settlement
 * does. `windows`: the settlement's windows, each { id, state, content: [{ id, state,
 * settlementId }] }. Returns the content ids and window ids (in id order) that take `state`.
 * A window an earlier abort already gave back (it held content of two settlements) records
 * this abort as well; any other step outside the window table is a bug and throws.
 */
export function decideWindowsAfterSettlement({ settlementId, windows, state }) {
  if (!SETTLEMENT_ENDS.includes(state)) throw new Error(`a settlement's windows follow it to ${SETTLEMENT_ENDS.join(' or ')}, not ${state}`);
  const own = (content) => content.settlementId === settlementId;
  const ownContent = windows.flatMap((window) => window.content.filter(own));
  for (const content of ownContent) windowTransition(content.state, state);
  const finished = windows.filter((window) => state === W.aborted || window.content.every((content) => own(content) || content.state === state));
  for (const window of finished) {
    const abortedAgain = state === W.aborted && window.state === W.aborted;
    if (!abortedAgain) windowTransition(window.state, state);
  }
  return { state, contentIds: ownContent.map((content) => content.id), windowIds: finished.map((window) => window.id).sort((a, b) => a - b) };
}
