// The fulfil handler's decision: the payee's PUT /transfers/{ID} (fulfil), PUT …/error
// (abort), and GET /transfers/{ID} from either party. Checks run in central-ledger's order:
// the transfer, who is calling, duplicates, expiry, the state, the fulfilment. Expiry is
// judged at the edge's receipt of the fulfil, not at this handler's clock (see fulfilTooLate).
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { withConversion } from './conversions.js';
import { completedAtOf, fulfilTooLate, fulfilmentProblem } from './fulfilment.js';
import { tell } from './outcomes.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { TRANSFER_KIND, TRANSFER_STATE, canTransition, isFinal, transition } from './transfer-states.js';

const S = TRANSFER_STATE;
const COMPLETIONS = new Set(['commit', 'reserve', 'reject', 'abort']);

/**
 * `events`: fulfil-topic events in consumption order. `transfers`: transferId → transfer
 * (locked), with the conversion (by commitRequestId) of any payment that has one. A
 * conversion is not a transfer here: the FXP answers it on /fxTransfers (fx-fulfil.js).
 * Returns state updates, position events and outcomes.
 */
export function decideFulfilBatch({ events, transfers, now }) {
  const current = new Map(transfers);
  const result = { stateUpdates: [], positionEvents: [], outcomes: [] };
  for (const event of events) {
    const stored = current.get(event.id);
    const transfer = stored?.kind === TRANSFER_KIND.fxTransfer ? undefined : stored;
    // Mojaloop drops a RESERVED fulfil sent as version 1.0 without an answer: the
    // transfer stays RESERVED and expires, since 1.0 has no PATCH to tell the payee.
    if (event.action === 'reserve' && !reservedFulfilSupported(event.headers?.['content-type'])) continue;
    const decision = event.action === 'get' ? answerGet(event, transfer)
      : COMPLETIONS.has(event.action) ? decideCompletion(event, transfer, now)
        : { outcomes: [tell.error(event.id, event.from, failure(FAILURE.validation, `unknown fulfil action ${event.action}`))] };
    result.outcomes.push(...decision.outcomes);
    if (decision.update) {
      result.stateUpdates.push(decision.update);
      current.set(event.id, { ...transfer, state: decision.update.statePath.at(-1), completionHash: decision.update.completionHash });
    }
    // A conversion payment's commit or release also moves its conversion's accounts.
    if (decision.positionEvent) result.positionEvents.push(withConversion(decision.positionEvent, transfer, current));
  }
  return result;
}

function answerGet(event, transfer) {
  if (!transfer || (event.from !== transfer.payerFsp && event.from !== transfer.payeeFsp)) {
    return { outcomes: [tell.error(event.id, event.from, failure(FAILURE.transferNotFound, `transfer ${event.id} is not known to ${event.from}`))] };
  }
  return { outcomes: [tell.state(event.id, event.from, transfer)] };
}

function refuse(event, code, detail) {
  return { outcomes: [tell.error(event.id, event.from, failure(code, detail))] };
}

function decideCompletion(event, transfer, now) {
  if (!transfer) return refuse(event, FAILURE.transferNotFound, `transfer ${event.id} was not found`);
  if (event.from !== transfer.payeeFsp) return refuse(event, FAILURE.validation, `FSPIOP-Source ${event.from} is not the payee FSP of the transfer`);
  if (event.to && event.to !== transfer.payerFsp) return refuse(event, FAILURE.validation, `FSPIOP-Destination ${event.to} is not the payer FSP of the transfer`);
  const hash = requestHash({ action: event.action === 'abort' ? 'abort' : 'fulfil', body: event.body });
  if (transfer.completionHash) {
    if (transfer.completionHash !== hash) return refuse(event, FAILURE.modifiedRequest, `transfer ${event.id} was already completed with different content`);
    return replayCompletion(event, transfer);
  }
  // The payee's error is never too late (fulfilment.js fulfilTooLate).
  if (event.action !== 'abort' && fulfilTooLate(event, transfer, now)) return refuse(event, FAILURE.transferExpired, `transfer expired at ${transfer.expiresAt.toISOString()}`);
  // A completion for a transfer that cannot take the step (not RESERVED) is the payee's
  // mistake or a race with the timeout handler: an expected failure, refused, not asserted.
  const requestedState = event.action === 'abort' ? S.receivedError : S.receivedFulfil;
  if (!canTransition(transfer.kind, transfer.state, requestedState)) return refuse(event, FAILURE.validation, `transfer is ${transfer.state}, not RESERVED`);
  if (event.action === 'reject') return refuse(event, FAILURE.validation, 'a payee rejects a transfer with PUT /transfers/{ID}/error');
  if (event.action === 'abort') return payeeAbort(event, transfer, hash);
  const problem = fulfilmentProblem(event.body.fulfilment, transfer.ilpCondition);
  if (problem) {
    const invalid = failure(FAILURE.validation, problem);
    return {
      outcomes: [],
      update: { transferId: transfer.transferId, kind: transfer.kind, statePath: transition(transfer.kind, transfer.state, S.receivedError), completionHash: hash, failure: invalid },
      // fulfilAction: a payee that fulfilled with RESERVED waits for a PATCH with the outcome.
      positionEvent: { accountId: transfer.payerAccountId, action: 'abort', message: event, failure: invalid, fulfilAction: event.action },
    };
  }
  return {
    outcomes: [],
    update: {
      transferId: transfer.transferId, kind: transfer.kind, statePath: transition(transfer.kind, transfer.state, S.receivedFulfil), completionHash: hash,
      fulfilment: event.body.fulfilment, completedAt: completedAtOf(event.body.completedTimestamp, now),
    },
    positionEvent: { accountId: transfer.payeeAccountId, action: 'commit', message: event, fulfilAction: event.action },
  };
}

/**
 * The same completion again. Final: the payee is told the state. In flight: the position
 * event is produced again, because this may be a redelivery after a crash between the
 * database commit and the produce; the position handler applies it at most once.
 */
function replayCompletion(event, transfer) {
  if (isFinal(transfer.state)) return { outcomes: [tell.state(event.id, event.from, transfer)] };
  // Which position step is pending is a question about the state reached, not about the
  // table: RESERVED may also become COMMITTED (a funds out), but it is no stored fulfil.
  // Nothing is changed here, so there is no transition to assert.
  if (transfer.state === S.receivedFulfil) {
    return { outcomes: [], positionEvent: { accountId: transfer.payeeAccountId, action: 'commit', message: event, fulfilAction: event.action } };
  }
  if (transfer.state === S.receivedError) {
    return { outcomes: [], positionEvent: { accountId: transfer.payerAccountId, action: 'abort', message: event, failure: transfer.failure, fulfilAction: event.action } };
  }
  return { outcomes: [] };
}

function payeeAbort(event, transfer, hash) {
  const { errorCode, errorDescription } = event.body.errorInformation ?? {};
  return {
    outcomes: [],
    update: {
      transferId: transfer.transferId, kind: transfer.kind, statePath: transition(transfer.kind, transfer.state, S.receivedError), completionHash: hash, payeeError: { errorCode, errorDescription },
    },
    positionEvent: { accountId: transfer.payerAccountId, action: 'abort', message: event },
  };
}

/**
 * The FSPIOP API version of a request's Content-Type (`…;version=1.1`), as
 * `{ major, minor }`, or null when it names none (the edge has already refused those).
 */
export function apiVersionOf(contentType) {
  const match = /;\s*version\s*=\s*(\d+)(?:\.(\d+))?/i.exec(typeof contentType === 'string' ? contentType : '');
  return match ? { major: Number(match[1]), minor: Number(match[2] ?? 0) } : null;
}

/** Whether a fulfil with transferState RESERVED means anything: it exists from version 1.1 on. */
export function reservedFulfilSupported(contentType) {
  const version = apiVersionOf(contentType);
  return version === null || version.major > 1 || version.minor >= 1;
}
