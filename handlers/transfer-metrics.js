// The transfer handlers' own metrics: transfers reaching a final state (by kind, state and
// FSPIOP error code) and position changes (by reason). Counted after the batch's transaction
// committed, from the decision's new state rows, so a redelivered batch (whose decision
// replays outputs without new rows) is not counted twice.
import { fspiopCodeOf } from '../platform/fspiop/errors.js';
import { isFinal } from '../ledger/domain/transfer-states.js';
import { metricOnce } from '../platform/metrics.js';

const FOUR_DIGITS = /^\d{4}$/;

/**
 * `error_code` is the switch's FSPIOP code for a switch-detected failure, the payee's own
 * code when it rejected the transfer, or "none". A payee's code that is not four digits is
 * counted as "other", so junk from a DFSP cannot grow the label set beyond 10,000 values.
 */
function errorCodeLabel(code) {
  if (code === undefined || code === null) return 'none';
  const text = String(code);
  return FOUR_DIGITS.test(text) ? text : 'other';
}

export function createTransferMetrics(metrics) {
  const finished = metricOnce(metrics, metrics.client.Counter, {
    name: 'transfers_finished_total',
    help: 'Transfers that reached a final state, by kind (PAYMENT, FX_TRANSFER, FUNDS_IN, FUNDS_OUT), state and FSPIOP error code ("none" when committed).',
    labelNames: ['kind', 'state', 'error_code'],
  });
  const positionChanges = metricOnce(metrics, metrics.client.Counter, {
    name: 'position_changes_total',
    help: 'Position changes applied, by reason (PREPARE reserves, COMMIT moves to the payee, ABORT and TIMEOUT release).',
    labelNames: ['reason'],
  });
  return {
    /**
     * `updates`: state rows a committed decision wrote ({ transferId, kind, statePath, failure? }).
     * `payeeErrorCodeOf(update)`: the code a payee sent, for an abort that carries none itself.
     */
    countFinished(updates, payeeErrorCodeOf = () => undefined) {
      for (const update of updates) {
        const state = update.statePath.at(-1);
        if (!isFinal(state)) continue;
        const code = update.failure ? fspiopCodeOf(update.failure.code) : payeeErrorCodeOf(update);
        finished.inc({ kind: update.kind, state, error_code: errorCodeLabel(code) });
      }
    },
    countPositionChanges(changes) {
      for (const change of changes) positionChanges.inc({ reason: change.reason });
    },
  };
}
