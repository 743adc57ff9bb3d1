// The fulfil handler's decision for an FXP's answer to a conversion: PUT /fxTransfers/{ID}
// (`fx-reserve` for conversionState RESERVED, `fx-commit` for COMMITTED, `fx-reject` for
// ABORTED), PUT …/error (`fx-abort`) and GET /fxTransfers/{ID} (`fx-get`). Checks run in the
// order of the transfer fulfil (fulfil.js): the conversion, who is calling, duplicates,
// expiry, the state, the fulfilment. A fulfilment matching the condition commits nothing:
// the conversion waits, RECEIVED_FULFIL_DEPENDENT, for its dependent transfer, and the payer
// gets the FXP's answer. A wrong one, or the FXP's error, releases the payer's reservation.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { completedAtOf, fulfilTooLate, fulfilmentProblem } from './fulfilment.js';
import { tellFx } from './outcomes.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { TRANSFER_KIND, TRANSFER_STATE, canTransition, isFinal, transition } from './transfer-states.js';

const S = TRANSFER_STATE;
const FULFILMENTS = new Set(['fx-reserve', 'fx-commit']);
const COMPLETIONS = new Set([...FULFILMENTS, 'fx-reject', 'fx-abort']);

/**
 * `events`: fx fulfil events (`id` = commitRequestId) in consumption order. `transfers`:
 * commitRequestId → stored record (locked); only a conversion (kind FX_TRANSFER) answers.
 * Returns state updates, position events and outcomes.
 */
export function decideFxFulfilBatch({ events, transfers, now }) {
  const current = new Map(transfers);
  const result = { stateUpdates: [], positionEvents: [], outcomes: [] };
  for (const event of events) {
    const record = current.get(event.id);
    const conversion = record?.kind === TRANSFER_KIND.fxTransfer ? record : undefined;
    const decision = event.action === 'fx-get' ? answerGet(event, conversion)
      : COMPLETIONS.has(event.action) ? decideCompletion(event, conversion, now)
        : refuse(event, FAILURE.validation, `unknown fx fulfil action ${event.action}`);
    result.outcomes.push(...decision.outcomes);
    if (decision.update) {
      result.stateUpdates.push(decision.update);
      const { statePath, transferId: _transferId, ...fields } = decision.update;
      current.set(event.id, { ...conversion, ...fields, state: statePath.at(-1) });
    }
    if (decision.positionEvent) result.positionEvents.push(decision.positionEvent);
  }
  return result;
}

function refuse(event, code, detail) {
  return { outcomes: [tellFx.error(event.id, event.from, failure(code, detail))] };
}

function answerGet(event, conversion) {
  if (!conversion || (event.from !== conversion.payerFsp && event.from !== conversion.payeeFsp)) {
    return refuse(event, FAILURE.transferNotFound, `fx transfer ${event.id} is not known to ${event.from}`);
  }
  return { outcomes: [tellFx.state(event.id, event.from, conversion)] };
}

/** The position event that releases the payer's source currency. */
function releaseEvent(conversion, event, told) {
  return { accountId: conversion.payerAccountId, action: 'fx-abort', message: event, commitRequestId: conversion.transferId, ...(told ? { failure: told } : {}) };
}

function decideCompletion(event, conversion, now) {
  if (!conversion) return refuse(event, FAILURE.transferNotFound, `fx transfer ${event.id} was not found`);
  if (event.from !== conversion.payeeFsp) return refuse(event, FAILURE.validation, `FSPIOP-Source ${event.from} is not the counterparty FSP of the fx transfer`);
  if (event.to && event.to !== conversion.payerFsp) return refuse(event, FAILURE.validation, `FSPIOP-Destination ${event.to} is not the initiating FSP of the fx transfer`);
  const hash = requestHash({ action: event.action === 'fx-abort' ? 'abort' : 'fulfil', body: event.body });
  if (conversion.completionHash) {
    if (conversion.completionHash !== hash) return refuse(event, FAILURE.modifiedRequest, `fx transfer ${event.id} was already answered with different content`);
    return replayCompletion(event, conversion);
  }
  // The FXP's fulfilment is judged at the edge's receipt, as a payee's is; its error is
  // never too late: it only releases the payer sooner.
  if (event.action !== 'fx-abort' && fulfilTooLate(event, conversion, now)) return refuse(event, FAILURE.transferExpired, `fx transfer expired at ${conversion.expiresAt.toISOString()}`);
  const requestedState = event.action === 'fx-abort' ? S.receivedError : S.receivedFulfilDependent;
  if (!canTransition(conversion.kind, conversion.state, requestedState)) return refuse(event, FAILURE.validation, `fx transfer is ${conversion.state}, not RESERVED`);
  if (event.action === 'fx-reject') return refuse(event, FAILURE.validation, 'an FXP rejects a conversion with PUT /fxTransfers/{ID}/error');
  const toState = (state, extra) => ({ transferId: conversion.transferId, kind: conversion.kind, statePath: transition(conversion.kind, conversion.state, state), completionHash: hash, ...extra });
  if (event.action === 'fx-abort') {
    const { errorCode, errorDescription } = event.body.errorInformation ?? {};
    return { outcomes: [], update: toState(S.receivedError, { payeeError: { errorCode, errorDescription } }), positionEvent: releaseEvent(conversion, event) };
  }
  const fulfilment = event.body.fulfilment;
  const problem = fulfilmentProblem(fulfilment, conversion.ilpCondition);
  if (problem) {
    const invalid = failure(FAILURE.validation, problem);
    return { outcomes: [], update: toState(S.receivedError, { failure: invalid }), positionEvent: releaseEvent(conversion, event, invalid) };
  }
  // Nothing moves yet: the payer hears the FXP's answer, and the conversion commits with
  // the payment that depends on it.
  return {
    outcomes: [tellFx.forwardFulfil(conversion.transferId, conversion.payerFsp, event)],
    update: toState(S.receivedFulfilDependent, { fulfilment, completedAt: completedAtOf(event.body.completedTimestamp, now) }),
  };
}

/**
 * The same answer again. Final: the FXP is told the state. Fulfilled: the payer may have
 * missed the FXP's answer, so it is forwarded again. In error: the release is produced again
 * (a redelivery after a crash between the database commit and the produce; the position
 * handler applies it at most once).
 */
function replayCompletion(event, conversion) {
  if (isFinal(conversion.state)) return { outcomes: [tellFx.state(event.id, event.from, conversion)] };
  if (conversion.state === S.receivedFulfilDependent) return { outcomes: [tellFx.forwardFulfil(conversion.transferId, conversion.payerFsp, event)] };
  if (conversion.state === S.receivedError) return { outcomes: [], positionEvent: releaseEvent(conversion, event, conversion.failure) };
  return { outcomes: [] };
}
