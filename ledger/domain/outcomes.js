// What the transfer decisions ask the outside world to be told, as plain values. The
// handlers turn them into notification events (handlers/transfer-records.js); the domain
// knows who must hear what, not how FSPIOP callbacks are addressed.

export const OUTCOME = Object.freeze({
  forwardPrepare: 'FORWARD_PREPARE', // the payer's prepare, to the payee
  forwardFulfil: 'FORWARD_FULFIL', // the payee's fulfil, to the payer
  forwardError: 'FORWARD_ERROR', // the payee's error callback, to the payer
  patchFinalState: 'PATCH_FINAL_STATE', // the final state, to a payee that asked with RESERVED
  error: 'ERROR', // a switch-detected failure, from the hub
  state: 'STATE', // the transfer's state, from the hub (duplicates, GET)
});

export const tell = Object.freeze({
  forwardPrepare: (transferId, to, message) => ({ type: OUTCOME.forwardPrepare, transferId, to, message }),
  forwardFulfil: (transferId, to, message) => ({ type: OUTCOME.forwardFulfil, transferId, to, message }),
  forwardError: (transferId, to, message) => ({ type: OUTCOME.forwardError, transferId, to, message }),
  patchFinalState: (transferId, to, view) => ({ type: OUTCOME.patchFinalState, transferId, to, view }),
  error: (transferId, to, failure) => ({ type: OUTCOME.error, transferId, to, failure }),
  state: (transferId, to, view) => ({ type: OUTCOME.state, transferId, to, view }),
});

/**
 * The FSPIOP resource an outcome is about: a transfer, an fx transfer (commitRequestId), or a
 * bulk transfer as a whole (bulkTransferId).
 */
export const RESOURCE = Object.freeze({ transfers: 'transfers', fxTransfers: 'fxTransfers', bulkTransfers: 'bulkTransfers' });

/**
 * The same outcomes about an fx transfer: `transferId` is its commitRequestId, and the
 * callbacks go to the /fxTransfers endpoints (conversionState instead of transferState).
 */
export const tellFx = Object.freeze(Object.fromEntries(Object.entries(tell).map(([name, make]) => [
  name, (...args) => Object.freeze({ ...make(...args), resource: RESOURCE.fxTransfers }),
])));

/**
 * What the hub tells about a bulk transfer as a whole: `transferId` is its bulkTransferId, and
 * the callbacks go to the /bulkTransfers endpoints. What happens to its individual transfers
 * is told through the bulk handler (handlers/README.md, "Bulk transfers").
 */
export const tellBulk = Object.freeze({
  error: (bulkTransferId, to, failure) => Object.freeze({ ...tell.error(bulkTransferId, to, failure), resource: RESOURCE.bulkTransfers }),
});
