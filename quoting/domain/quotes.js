// The quoting handler's decisions for a batch of quote events (POST /quotes, GET /quotes/{ID},
// PUT /quotes/{ID} and PUT /quotes/{ID}/error): a payer asks the payee it names for a quote,
// and only that payee answers, only to that payer. The rules (duplicates by the hash of the
// request or answer, who may answer, GET from the stored quote) are every relayed resource's
// (relay.js); what is a quote's own is here: which DFSPs are checked and what is kept.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { keptMessage } from './batch.js';
import {
  QUOTE_ACTION, QUOTE_OUTCOME, QUOTE_STATE, decideRelayBatch, relayKind,
} from './relay.js';

export { QUOTE_ACTION, QUOTE_OUTCOME, QUOTE_STATE };

/** The first DFSP (of `roles`) that is unknown or inactive, as a failure; null when all are fine. */
function checkParties(participants, roles) {
  for (const { role, name, code } of roles) {
    const participant = typeof name === 'string' ? participants.get(name) : undefined;
    if (!participant) return failure(code, name ? `${role} FSP ${name} is not a participant` : `no ${role} FSP is named`);
    if (!participant.isActive) return failure(code, `${role} FSP ${name} is not active`);
  }
  return null;
}

const payerRole = (name) => ({ role: 'payer', name, code: FAILURE.payerFspNotFound });
const payeeRole = (name) => ({ role: 'payee', name, code: FAILURE.payeeFspNotFound });

function requestRecord(event) {
  const { body } = event;
  const expiresAtMs = Date.parse(body.expiration);
  return {
    ...keptMessage(event),
    transactionId: body.transactionId ?? null,
    amount: body.amount?.amount ?? null,
    currency: body.amount?.currency ?? null,
    expiresAt: Number.isNaN(expiresAtMs) ? null : new Date(expiresAtMs),
  };
}

/** A quote: requested by its payer (FSPIOP-Source) of its payee (FSPIOP-Destination), both active. */
export const QUOTE_KIND = relayKind({
  idField: 'quoteId',
  requesterField: 'payerFsp',
  answererField: 'payeeFsp',
  noun: 'quote',
  resource: 'quotes',
  requesterRole: 'payer',
  requestFailure: (event, participants) => checkParties(participants, [payerRole(event.from), payeeRole(event.to)]),
  answerPartiesFailure: (participants, payee, payer) => checkParties(participants, [payeeRole(payee), payerRole(payer)]),
  requestRecord,
});

/**
 * `events`: decoded quote events in consumption order. `quotes`: quoteId → stored quote (see
 * quoting/repositories/quotes.js). `participants`: name → { isActive }. `persist`: whether the
 * quote's request and answer are kept, or only what duplicate detection needs.
 * Returns quotes to insert, `{ quoteId, changes }` to apply to stored ones, outcomes, and
 * events with an unknown action (which the handler logs and skips).
 */
export function decideQuoteBatch({ events, quotes, participants, persist }) {
  return decideRelayBatch(QUOTE_KIND, { events, records: quotes, participants, persist });
}
