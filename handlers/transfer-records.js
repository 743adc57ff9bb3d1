// Turns the transfer decisions' position events and outcomes into Kafka records: position
// events keyed by the account they move, notification events (one callback each, as
// handlers/README.md describes) keyed by transferId so one transfer's callbacks stay in order.
// A DFSP's message goes on with its rawBody alone (platform/kafka/envelope.js): its body is
// neither parsed nor serialised again on the way to the callback.
import { carriedBody, copyForRelay, encodeEvent } from '../platform/kafka/envelope.js';
import { abortCauseExtensionList, failureToFspiop } from '../platform/fspiop/errors.js';
import { OUTCOME, RESOURCE } from '../ledger/domain/outcomes.js';
import { fspiopTransferState, isFinal } from '../ledger/domain/transfer-states.js';
import { senderVersionsOf } from '../platform/fspiop/versions.js';

/**
 * Position events keyed by the account they reserve or settle; an event of a conversion
 * payment also names its conversion (`commitRequestId`) and the accounts the conversion moves
 * (`linkedAccountIds`), which the position handler locks with it.
 */
export function positionRecords(topics, positionEvents) {
  return positionEvents.map(({ accountId, action, message, fulfilAction, failure, commitRequestId, linkedAccountIds }) => ({
    topic: topics.transferPositionBatch,
    key: String(accountId),
    value: encodeEvent(copyForRelay(message, { type: 'position', action, accountId, fulfilAction, failure, commitRequestId, linkedAccountIds })),
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

// The same callbacks about a conversion go to the FXP's and the payer's /fxTransfers endpoints.
const FX_ENDPOINT_TYPES = Object.freeze({
  FSPIOP_CALLBACK_URL_TRANSFER_POST: 'FSPIOP_CALLBACK_URL_FX_TRANSFER_POST',
  FSPIOP_CALLBACK_URL_TRANSFER_PUT: 'FSPIOP_CALLBACK_URL_FX_TRANSFER_PUT',
  FSPIOP_CALLBACK_URL_TRANSFER_ERROR: 'FSPIOP_CALLBACK_URL_FX_TRANSFER_ERROR',
});
// What the hub says about a bulk as a whole goes to the payer's /bulkTransfers endpoints.
const BULK_ENDPOINT_TYPES = Object.freeze({
  FSPIOP_CALLBACK_URL_TRANSFER_POST: 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_POST',
  FSPIOP_CALLBACK_URL_TRANSFER_PUT: 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_PUT',
  FSPIOP_CALLBACK_URL_TRANSFER_ERROR: 'FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR',
});
// /fxTransfers exists only in FSPIOP v2.0: what the hub says about a conversion is said in it.
const FX_API_VERSION = '2.0';

/**
 * Where an outcome's callback goes: the endpoint type and URL parameters of its resource,
 * and for a conversion the version the hub speaks.
 */
function callbackAddress(outcome, endpointType) {
  if (outcome.resource === RESOURCE.bulkTransfers) {
    return { endpointType: BULK_ENDPOINT_TYPES[endpointType], templateParams: { bulkTransferId: outcome.transferId }, resource: RESOURCE.bulkTransfers };
  }
  if (outcome.resource !== RESOURCE.fxTransfers) return { endpointType, templateParams: { transferId: outcome.transferId }, resource: RESOURCE.transfers };
  return {
    endpointType: FX_ENDPOINT_TYPES[endpointType], templateParams: { commitRequestId: outcome.transferId }, resource: RESOURCE.fxTransfers, version: FX_API_VERSION,
  };
}

/** A transfer's body speaks of its transferState; a conversion's of its conversionState. */
function forResource(body, outcome) {
  if (outcome.resource !== RESOURCE.fxTransfers || !('transferState' in body)) return body;
  const { transferState, ...rest } = body;
  return { conversionState: transferState, ...rest };
}

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
    callback: { ...callbackAddress(outcome, spec.endpointType), method: spec.method },
  };
  if (spec.forward) {
    const { message } = outcome;
    const forward = { ...event, from: message.from, headers: message.headers ?? {}, ...carriedBody(message), at: message.at };
    // A prepare that cannot reach the payee is answered to the payer with the hub's PUT
    // /transfers/{ID}/error (platform/delivery/requester-errors.js); the reservation is
    // released when the transfer expires, as Mojaloop does.
    if (outcome.type !== OUTCOME.forwardPrepare) return forward;
    const errorCallback = { ...event.callback, ...callbackAddress(outcome, 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR'), method: 'PUT' };
    return { ...forward, ifUndeliverable: { to: message.from, callback: errorCallback } };
  }
  // A conversion's callbacks already name 2.0, the one version /fxTransfers is served in.
  if (version && !event.callback.version) event.callback.version = version;
  return { ...event, from: hubName, headers: {}, body: forResource(hubBody(outcome), outcome) };
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
