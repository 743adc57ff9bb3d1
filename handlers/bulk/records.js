// The bulk handler's outcomes as notification events (one callback each, keyed by the
// bulkTransferId): the forward of a bulk to its payee, the rejection of a bulk none of whose
// transfers reserved, to its payer, and the payer's aggregated answer once every transfer of
// its bulk has committed or aborted.
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { errorInformation, failureToFspiop } from '../../platform/fspiop/errors.js';
import { answerVersionOf, contentVersionOf } from '../../platform/fspiop/versions.js';
import { BULK_OUTCOME } from '../../ledger/domain/bulk-results.js';
import { fspiopBulkTransferState, isBulkFinal } from '../../ledger/domain/bulk-transfer-states.js';

const RESOURCE = 'bulkTransfers';

const address = (endpointType, bulk, method) => ({
  endpointType, templateParams: { bulkTransferId: bulk.bulkTransferId }, method, resource: RESOURCE,
});

/**
 * POST /bulkTransfers to the payee. When every item reserved, it is the payer's request as
 * received: its headers, its bytes and so its signature. Otherwise the hub sends, under its
 * own headers and signature, the payer's request with only the reserved items, in the
 * version the payer sent it in; the payer hears about the others in the bulk's final
 * callback. Either way a payee that cannot be reached is the payer's PUT …/error.
 */
function forwardEvent(outcome, hubName) {
  const { bulk } = outcome;
  const ifUndeliverable = { to: bulk.payerFsp, callback: address('FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR', bulk, 'PUT') };
  const event = { id: bulk.bulkTransferId, type: 'notification', action: 'bulk-prepare', to: bulk.payeeFsp, ifUndeliverable };
  const callback = address('FSPIOP_CALLBACK_URL_BULK_TRANSFER_POST', bulk, 'POST');
  if (outcome.complete) return { ...event, callback, from: bulk.payerFsp, headers: bulk.headers, rawBody: bulk.rawBody };
  const request = JSON.parse(bulk.rawBody);
  const reserved = new Set(outcome.reservedItems.map((item) => item.transferId));
  const body = { ...request, individualTransfers: request.individualTransfers.filter((item) => reserved.has(item.transferId)) };
  const version = contentVersionOf(bulk.headers['content-type']);
  return { ...event, callback: { ...callback, ...(version ? { version } : {}) }, from: hubName, headers: {}, body };
}

/** The errorInformation of an item's failure, as a single transfer's parties would hear it. */
function itemErrorInformation(item) {
  return failureToFspiop(item.failure ?? { code: 'PROCESSING_FAILED', detail: 'the transfer could not be prepared' }).body.errorInformation;
}

/**
 * An item's entry of individualTransferResults: its fulfilment when committed, its error when
 * refused at prepare or aborted, only its id while it is still in flight.
 */
function itemResultBody(item) {
  if (item.finalResult === 'COMMITTED') return { transferId: item.transferId, ...(item.fulfilment ? { fulfilment: item.fulfilment } : {}) };
  if (item.finalResult) return { transferId: item.transferId, errorInformation: item.errorInformation ?? itemErrorInformation(item) };
  if (item.prepareResult === 'FAILED') return { transferId: item.transferId, errorInformation: itemErrorInformation(item) };
  return { transferId: item.transferId };
}

/**
 * PUT /bulkTransfers/{ID} to the payer from the hub, in the version the payer sent its bulk
 * in, once the bulk has ended: REJECTED with every item's error, or COMPLETED with every
 * item's fulfilment or error.
 */
function finalEvent(outcome, hubName, now, { action, items }) {
  const { bulk } = outcome;
  const version = contentVersionOf(bulk.headers['content-type']);
  return {
    id: bulk.bulkTransferId, type: 'notification', action, to: bulk.payerFsp, from: hubName, headers: {},
    callback: { ...address('FSPIOP_CALLBACK_URL_BULK_TRANSFER_PUT', bulk, 'PUT'), ...(version ? { version } : {}) },
    body: {
      bulkTransferState: fspiopBulkTransferState(bulk.state),
      completedTimestamp: now.toISOString(),
      individualTransferResults: items.map(itemResultBody),
    },
  };
}

/**
 * PUT /bulkTransfers/{ID} from the hub to the party that asked for it (its bulk sent again, or
 * its GET), in the version it asked in: the bulk's state, with the items that have a result so
 * far (a failed one with its error, a committed one with its fulfilment).
 */
function stateEvent(outcome, hubName) {
  const { bulk } = outcome;
  const version = answerVersionOf(outcome.request.headers, RESOURCE);
  const results = outcome.items.filter((item) => item.prepareResult).map(itemResultBody);
  return {
    id: bulk.bulkTransferId, type: 'notification', action: 'bulk-state', to: outcome.to, from: hubName, headers: {},
    callback: { ...address('FSPIOP_CALLBACK_URL_BULK_TRANSFER_PUT', bulk, 'PUT'), ...(version ? { version } : {}) },
    body: {
      bulkTransferState: fspiopBulkTransferState(bulk.state),
      ...(isBulkFinal(bulk.state) && bulk.completedAt ? { completedTimestamp: new Date(bulk.completedAt).toISOString() } : {}),
      ...(results.length > 0 ? { individualTransferResults: results } : {}),
    },
  };
}

/**
 * PUT /bulkTransfers/{ID}/error from the hub to `to` with `failed`'s error, in `version` (the
 * bulk's, or the one the asker asked in).
 */
function bulkErrorEvent({ bulkTransferId, to, failed, action, version }, hubName) {
  return {
    id: bulkTransferId, type: 'notification', action, to, from: hubName, headers: {},
    callback: { ...address('FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR', { bulkTransferId }, 'PUT'), ...(version ? { version } : {}) },
    body: failureToFspiop(failed).body,
  };
}

/**
 * PUT /bulkTransfers/{ID}/error (3303) from the hub to the payee of a bulk some of whose
 * transfers expired before its answer committed them: their reservations are released.
 */
function payeeExpiryEvent(outcome, hubName) {
  const { bulk } = outcome;
  const expired = failure(FAILURE.transferExpired, `bulk transfer expired at ${new Date(bulk.expiresAt).toISOString()}`);
  return bulkErrorEvent({
    bulkTransferId: bulk.bulkTransferId, to: bulk.payeeFsp, failed: expired, action: 'bulk-expired', version: contentVersionOf(bulk.headers['content-type']),
  }, hubName);
}

/** The refusal of a DFSP's request about a bulk (3210, or 2001 for a dead letter), in the version it asked in. */
function refusedEvent(outcome, hubName) {
  return bulkErrorEvent({
    bulkTransferId: outcome.bulkTransferId, to: outcome.to, failed: outcome.failure, action: 'bulk-refused', version: answerVersionOf(outcome.request.headers, RESOURCE),
  }, hubName);
}

/** A FAILED bulk's 2001: to its payer, and to its payee if the bulk was forwarded to it. */
function failedEvents(outcome, hubName) {
  const { bulk } = outcome;
  const version = contentVersionOf(bulk.headers['content-type']);
  const parties = outcome.forwarded ? [bulk.payerFsp, bulk.payeeFsp] : [bulk.payerFsp];
  return parties.map((to) => bulkErrorEvent({ bulkTransferId: bulk.bulkTransferId, to, failed: outcome.failure, action: 'bulk-failed', version }, hubName));
}

const EVENT_OF = Object.freeze({
  [BULK_OUTCOME.forward]: (outcome, hubName) => forwardEvent(outcome, hubName),
  [BULK_OUTCOME.rejected]: (outcome, hubName, now) => finalEvent(outcome, hubName, now, { action: 'bulk-rejected', items: outcome.failedItems }),
  [BULK_OUTCOME.completed]: (outcome, hubName, now) => finalEvent(outcome, hubName, now, { action: 'bulk-completed', items: outcome.items }),
  [BULK_OUTCOME.expired]: (outcome, hubName, now) => [
    finalEvent(outcome, hubName, now, { action: 'bulk-expired', items: outcome.items }), ...(outcome.forwarded ? [payeeExpiryEvent(outcome, hubName)] : []),
  ],
  [BULK_OUTCOME.state]: (outcome, hubName) => stateEvent(outcome, hubName),
  [BULK_OUTCOME.refused]: (outcome, hubName) => refusedEvent(outcome, hubName),
  [BULK_OUTCOME.failed]: (outcome, hubName) => failedEvents(outcome, hubName),
});

/** The outcomes' notification records (an expiry's or a failure's two: to the payer and to the payee). */
export function bulkNotificationRecords(topics, outcomes, hubName, now) {
  return outcomes.flatMap((outcome) => [EVENT_OF[outcome.type](outcome, hubName, now)].flat().map((event) => ({
    topic: topics.notificationEvent,
    key: outcome.bulk?.bulkTransferId ?? outcome.bulkTransferId,
    value: encodeEvent(event),
  })));
}

// FSPIOP's ExtensionList holds at most 16 extensions.
const EXTENSIONS_MAX = 16;

/**
 * The errorInformation of a payee's refused items, gathered: the items' own when they share
 * one code, else 3100; each item named in the extension list by its code (the key) and its
 * transferId (the value), the ones past the list's room counted in its last extension.
 */
function gatheredErrorInformation(items) {
  const codes = new Set(items.map((item) => item.errorInformation.errorCode));
  const shared = codes.size === 1 ? items[0].errorInformation
    : errorInformation(3100, `${items.length} individual transfers of the bulk were refused`).errorInformation;
  const named = items.length > EXTENSIONS_MAX ? items.slice(0, EXTENSIONS_MAX - 1) : items;
  const extension = named.map((item) => ({ key: item.errorInformation.errorCode, value: item.transferId }));
  if (named.length < items.length) extension.push({ key: 'more', value: `${items.length - named.length} more individual transfers refused` });
  return { errorCode: shared.errorCode, errorDescription: shared.errorDescription, extensionList: { extension } };
}

/**
 * One PUT /bulkTransfers/{ID}/error from the hub to a payee per bulk whose answer had items
 * the single fulfil decisions refused (`refusals`: `{ bulkTransferId, to, headers, items:
 * [{ transferId, errorInformation }] }`, see gatherBulkRefusals), in the version it answered in.
 */
export function bulkRefusalRecords(topics, refusals, hubName) {
  return refusals.map((refusal) => ({
    topic: topics.notificationEvent,
    key: refusal.bulkTransferId,
    value: encodeEvent({
      id: refusal.bulkTransferId, type: 'notification', action: 'bulk-items-refused', to: refusal.to, from: hubName, headers: {},
      callback: {
        ...address('FSPIOP_CALLBACK_URL_BULK_TRANSFER_ERROR', { bulkTransferId: refusal.bulkTransferId }, 'PUT'),
        ...(answerVersionOf(refusal.headers, RESOURCE) ? { version: answerVersionOf(refusal.headers, RESOURCE) } : {}),
      },
      body: { errorInformation: gatheredErrorInformation(refusal.items) },
    }),
  }));
}
