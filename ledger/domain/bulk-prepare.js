// The prepare handler's decision for a batch of POST /bulkTransfers: each bulk is expanded into
// its individual transfers, and each of them is decided by the same prepare decisions as a
// single POST /transfers (prepare.js: validation, duplicates by transferId, expiry), its
// payer, payee and expiration taken from the bulk. A new bulk is stored with one item per
// individual transfer; the accepted transfers go to the payer's position like any other,
// carrying their `bulkTransferId`, so that their results reach the bulk handler instead of the
// parties (handlers/README.md, "Bulk transfers").
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { BULK_STATE, bulkTransition } from './bulk-transfer-states.js';
import { tell, tellBulk } from './outcomes.js';
import { decidePrepareBatch } from './prepare.js';

/**
 * The body of one individual transfer as a POST /transfers would carry it: the item's id,
 * amount, packet, condition and extensions, with the bulk's payer, payee and expiration. Its
 * hash is the individual transfer's request hash, so a redelivered bulk finds each of its
 * transfers unchanged.
 */
export function individualTransferBody(bulkBody, item) {
  return {
    transferId: item.transferId,
    payerFsp: bulkBody.payerFsp,
    payeeFsp: bulkBody.payeeFsp,
    amount: item.transferAmount,
    ilpPacket: item.ilpPacket,
    condition: item.condition,
    expiration: bulkBody.expiration,
    ...(item.extensionList ? { extensionList: item.extensionList } : {}),
  };
}

/**
 * A bulk-prepare event as the prepare events of its individual transfers, in the bulk's order:
 * each from the payer to the payee, with the payer's headers and receipt time, and the
 * `bulkTransferId` that routes its results to the bulk.
 */
export function individualTransferMessages(bulkMessage) {
  const { body } = bulkMessage;
  return body.individualTransfers.map((item) => ({
    id: item.transferId,
    type: 'transfer',
    action: 'prepare',
    from: bulkMessage.from,
    to: bulkMessage.to,
    headers: bulkMessage.headers,
    body: individualTransferBody(body, item),
    at: bulkMessage.at,
    bulkTransferId: bulkMessage.id,
  }));
}

function bulkRow(message, hash, now) {
  const { body } = message;
  const expiresAtMs = Date.parse(body.expiration);
  return {
    bulkTransferId: message.id,
    bulkQuoteId: body.bulkQuoteId,
    payerFsp: body.payerFsp,
    payeeFsp: body.payeeFsp,
    expiresAt: Number.isNaN(expiresAtMs) ? now : new Date(expiresAtMs),
    itemCount: body.individualTransfers.length,
    requestHash: hash,
    headers: message.headers ?? {},
    rawBody: message.rawBody ?? JSON.stringify(body),
    requestEventAtMs: message.at,
    statePath: bulkTransition(null, BULK_STATE.received),
    state: BULK_STATE.received,
  };
}

const takenFailure = (transferId) => failure(FAILURE.validation, `transfer id ${transferId} is already used by another transfer`);

/**
 * The individual transfers of a bulk whose ids another transfer already holds (a transfer of
 * its own, or of another bulk), each with its failure: such an item fails on its own, and the
 * transfer holding the id is not touched. For a bulk seen before (`ours`), a stored transfer
 * with the item's own request hash is the item itself.
 */
function takenItems(items, known, ours) {
  const taken = new Map();
  for (const item of items) {
    const holder = known.get(item.id);
    if (!holder) continue;
    if (ours && holder.requestHash === requestHash(item.body)) continue;
    taken.set(item.id, takenFailure(item.id));
  }
  return taken;
}

const isRedelivery = (prior, message) => prior.requestEventAtMs !== undefined && prior.requestEventAtMs === message.at;

/**
 * `messages`: bulk-prepare events in consumption order. `existingBulks`: bulkTransferId →
 * stored bulk. `existing`, `participants`, `now`, `onUsAllowed`: as decidePrepareBatch takes
 * them, `existing` holding the stored transfers of every individual transferId. Returns the
 * bulks and items to insert, the individual transfers to insert, the position events, the
 * outcomes (those about individual transfers to be routed to their bulk: `bulkOf`, transferId
 * → bulkTransferId), as decidePrepareBatch returns them, and `stateRequests`, the bulks sent
 * again whose payer must be told their current state.
 */
export function decideBulkPrepareBatch({ messages, existingBulks, existing, participants, now, onUsAllowed = false }) {
  const knownBulks = new Map(existingBulks);
  const known = new Map(existing);
  const result = { bulkInserts: [], itemInserts: [], inserts: [], positionEvents: [], outcomes: [], bulkOf: new Map(), stateRequests: [] };
  for (const message of messages) {
    const hash = requestHash(message.body);
    const prior = knownBulks.get(message.id);
    if (prior && prior.requestHash !== hash) {
      result.outcomes.push(tellBulk.error(message.id, message.from, failure(FAILURE.modifiedRequest, `bulk transfer ${message.id} was already prepared with different content`)));
      continue;
    }
    const items = individualTransferMessages(message);
    const taken = takenItems(items, known, Boolean(prior));
    const decided = decidePrepareBatch({ messages: items.filter((item) => !taken.has(item.id)), existing: known, participants, now, onUsAllowed });
    for (const item of items) result.bulkOf.set(item.id, message.id);
    for (const [transferId, refusal] of taken) result.outcomes.push(tell.error(transferId, message.from, refusal));
    for (const row of decided.inserts) known.set(row.transferId, row);
    result.inserts.push(...decided.inserts);
    result.positionEvents.push(...decided.positionEvents);
    result.outcomes.push(...decided.outcomes);
    // The same bulk again: the payer hears the bulk's current state from the bulk handler,
    // which holds its items' results; unless it is the very request again (the edge's `at`),
    // redelivered after a crash of this handler, which the payer did not send twice.
    if (prior) {
      if (!isRedelivery(prior, message)) result.stateRequests.push(message);
      continue;
    }
    const row = bulkRow(message, hash, now);
    knownBulks.set(message.id, row);
    result.bulkInserts.push(row);
    result.itemInserts.push(...items.map((item, index) => ({ bulkTransferId: message.id, transferId: item.id, itemIndex: index })));
  }
  return result;
}
