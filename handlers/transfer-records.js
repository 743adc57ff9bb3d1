// Turns the transfer decisions' position events and outcomes into Kafka records: position
// events keyed by the account they move, notification events (one callback each, as
// handlers/README.md describes) keyed by transferId so one transfer's callbacks stay in order.
// A DFSP's message goes on with its rawBody alone (platform/kafka/envelope.js): its body is
// neither parsed nor serialised again on the way to the callback.
import { carriedBody, copyForRelay, encodeEvent } from '../platform/kafka/envelope.js';
import { abortCauseExtensionList, failureToFspiop } from '../platform/fspiop/errors.js';
import { OUTCOME } from '../ledger/domain/outcomes.js';
import { fspiopTransferState, isFinal } from '../ledger/domain/transfer-states.js';
import { senderVersionsOf } from '../platform/fspiop/versions.js';

export function positionRecords(topics, positionEvents) {
  return positionEvents.map(({ accountId, action, message, fulfilAction, failure }) => ({
    topic: topics.transferPositionBatch,
    key: String(accountId),
    value: encodeEvent(copyForRelay(message, { type: 'position', action, accountId, fulfilAction, failure })),
  }));
}

const CALLBACKS = Object.freeze({
  [OUTCOME.forwardPrepare]: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', method: 'POST', action: 'prepare', forward: true },
  [OUTCOME.forwardFulfil]: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', action: 'commit', forward: true },
  [OUTCOME.forwardError]: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', method: 'PUT', action: 'abort', forward: true },
  [OUTCOME.patchFinalState]: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PATCH', action: 'patch' },
  [OUTCOME.error]: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', method: 'PUT', action: 'error' },
  [OUTCOME.state]: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', action: 'state' },
});

/**
 * The errorInformation an aborted transfer's parties were told: the switch's failure, or the
 * payee's own error; undefined when the view carries neither.
 */
function abortErrorInformation(view) {
  if (view.failure) return failureToFspiop(view.failure).body.errorInformation;
  return view.payeeError;
}

/** `extensionList` with the cause of an aborted transfer, when it is known. */
function withAbortCause(body, view) {
  const told = body.transferState === 'ABORTED' ? abortErrorInformation(view) : undefined;
  return told ? { ...body, extensionList: abortCauseExtensionList(told) } : body;
}

/**
 * The FSPIOP body of a transfer's state: `{transferState, completedTimestamp?, fulfilment?,
 * extensionList?}`, the list holding the cause of an abort.
 */
export function transferStateBody(view) {
  const body = { transferState: fspiopTransferState(view.state) };
  if (isFinal(view.state) && view.completedAt) body.completedTimestamp = new Date(view.completedAt).toISOString();
  if (view.fulfilment && body.transferState === 'COMMITTED') body.fulfilment = view.fulfilment;
  return withAbortCause(body, view);
}

function hubBody(outcome) {
  if (outcome.type === OUTCOME.error) return failureToFspiop(outcome.failure).body;
  if (outcome.type === OUTCOME.patchFinalState) {
    // TransfersIDPatchResponse has no fulfilment: the payee sent it.
    const { view } = outcome;
    return withAbortCause({ transferState: fspiopTransferState(view.state), completedTimestamp: new Date(view.completedAt).toISOString() }, view);
  }
  return transferStateBody(outcome.view);
}

/**
 * The notification event for one outcome: a forward keeps the DFSP's headers and bytes; a hub
 * call names `version` when it answers a message its receiver sent in that version.
 */
export function notificationEvent(outcome, hubName, version) {
  const spec = CALLBACKS[outcome.type];
  if (!spec) throw new Error(`no callback for outcome ${outcome.type}`);
  const event = {
    id: outcome.transferId,
    type: 'notification',
    action: spec.action,
    to: outcome.to,
    callback: { endpointType: spec.endpointType, templateParams: { transferId: outcome.transferId }, method: spec.method, resource: 'transfers' },
  };
  if (spec.forward) {
    const { message } = outcome;
    const forward = { ...event, from: message.from, headers: message.headers ?? {}, ...carriedBody(message), at: message.at };
    // A prepare that cannot reach the payee is answered to the payer with the hub's PUT
    // /transfers/{ID}/error (platform/delivery/requester-errors.js); the reservation is
    // released when the transfer expires, as Mojaloop does.
    if (outcome.type !== OUTCOME.forwardPrepare) return forward;
    return { ...forward, ifUndeliverable: { to: message.from, callback: { ...event.callback, endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', method: 'PUT' } } };
  }
  if (version) event.callback.version = version;
  return { ...event, from: hubName, headers: {}, body: hubBody(outcome) };
}

/**
 * The outcomes' notification records. `messages` are the batch's events the outcomes answer:
 * a hub call to the DFSP that sent one of them goes out in that message's version
 * (platform/delivery/dfsp-versions.js), a call to anybody else in the version the notification
 * handler knows its receiver by.
 */
export function notificationRecords(topics, outcomes, hubName, messages = []) {
  const versionOf = senderVersionsOf(messages, 'transfers');
  return outcomes.map((outcome) => ({
    topic: topics.notificationEvent,
    key: outcome.transferId,
    value: encodeEvent(notificationEvent(outcome, hubName, CALLBACKS[outcome.type]?.forward ? undefined : versionOf(outcome.transferId, outcome.to))),
  }));
}
