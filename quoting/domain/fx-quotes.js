// The quoting handler's decisions for a batch of fx quote events (FSPIOP v2.0 POST /fxQuotes,
// GET /fxQuotes/{ID}, PUT /fxQuotes/{ID} and PUT /fxQuotes/{ID}/error): a DFSP asks the FXP
// it names for the terms of a currency conversion, and only that FXP answers, only to that
// DFSP. The rules are every relayed resource's, as for quotes (relay.js); what is an fx
// quote's own is here: the conversion's checks and what is kept of its request.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { keptMessage } from './batch.js';
import { decideRelayBatch, relayKind } from './relay.js';

/** The event type the /fxQuotes edge produces (quoting/routes.js); every other quoting event is a quote's. */
export const FX_QUOTE_EVENT = 'fxQuote';

const holdsPosition = (participant, currency) => participant.activePositionCurrencies?.includes(currency) ?? false;

/**
 * Why the conversion `terms` asked by `from` of `to` cannot be relayed, or null. The initiating
 * DFSP is the sender and must hold an active position in the source currency (3202, as for a
 * payer); the counterparty is the destination, an active FXP (3203, as for a payee) that has
 * registered the pair and holds active positions in both currencies (3100: the FXP exists, but
 * the conversion asked of it is not one it may make through this switch).
 */
export function conversionFailure(terms, { from, to }, participants) {
  const source = terms.sourceAmount.currency;
  const target = terms.targetAmount.currency;
  if (terms.initiatingFsp !== from) return failure(FAILURE.validation, `conversionTerms.initiatingFsp ${terms.initiatingFsp} is not the sender ${from}`);
  if (terms.counterPartyFsp !== to) return failure(FAILURE.validation, `conversionTerms.counterPartyFsp ${terms.counterPartyFsp} is not the FSPIOP-Destination ${to}`);
  if (source === target) return failure(FAILURE.validation, `the conversion is from ${source} to ${source}`);
  const initiator = participants.get(from);
  if (!initiator) return failure(FAILURE.payerFspNotFound, `initiating FSP ${from} is not a participant`);
  if (!initiator.isActive) return failure(FAILURE.payerFspNotFound, `initiating FSP ${from} is not active`);
  if (!holdsPosition(initiator, source)) return failure(FAILURE.payerFspNotFound, `initiating FSP ${from} has no active position in ${source}`);
  const fxp = participants.get(to);
  if (!fxp) return failure(FAILURE.payeeFspNotFound, `FXP ${to} is not a participant`);
  if (!fxp.isActive) return failure(FAILURE.payeeFspNotFound, `FXP ${to} is not active`);
  if (!fxp.pairs?.some((pair) => pair.sourceCurrency === source && pair.targetCurrency === target)) {
    return failure(FAILURE.validation, `FXP ${to} does not convert ${source} to ${target}`);
  }
  const missing = [source, target].find((currency) => !holdsPosition(fxp, currency));
  if (missing) return failure(FAILURE.validation, `FXP ${to} has no active position in ${missing}`);
  return null;
}

function requestRecord(event) {
  const terms = event.body.conversionTerms;
  return {
    ...keptMessage(event),
    sourceCurrency: terms.sourceAmount.currency,
    targetCurrency: terms.targetAmount.currency,
  };
}

/**
 * The answer's parties: the FXP (3203, as a payee) and the initiating DFSP (3202, as a payer)
 * must still be active; their pairs and positions were checked when the request was relayed.
 */
function answerPartiesFailure(participants, fxp, initiator) {
  for (const [role, name, code] of [['FXP', fxp, FAILURE.payeeFspNotFound], ['initiating FSP', initiator, FAILURE.payerFspNotFound]]) {
    if (!participants.get(name)?.isActive) return failure(code, `${role} ${name} is not active`);
  }
  return null;
}

/** An fx quote: requested by its initiating DFSP of the FXP its conversion terms name. */
export const FX_QUOTE_KIND = relayKind({
  idField: 'conversionRequestId',
  requesterField: 'initiatingFsp',
  answererField: 'counterPartyFsp',
  noun: 'fx quote',
  resource: 'fxQuotes',
  requesterRole: 'initiating FSP',
  requestFailure: (event, participants) => conversionFailure(event.body.conversionTerms, event, participants),
  answerPartiesFailure,
  requestRecord,
});

/**
 * `events`: decoded fx quote events in consumption order (`id`: the conversionRequestId).
 * `fxQuotes`: id → stored fx quote (quoting/repositories/fx-quotes.js). `participants`: name →
 * `{ isActive, activePositionCurrencies, pairs }` (the ledger's port, selectFxParticipantFacts)
 * for the DFSPs the events name, and at least `{ isActive }` for the stored fx quotes' parties.
 * Returns fx quotes to insert, `{ conversionRequestId, changes }` to apply, outcomes, and
 * events with an unknown action.
 */
export function decideFxQuoteBatch({ events, fxQuotes, participants, persist }) {
  return decideRelayBatch(FX_QUOTE_KIND, { events, records: fxQuotes, participants, persist });
}
