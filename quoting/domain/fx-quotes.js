// The quoting handler's decisions for a batch of fx quote events (FSPIOP v2.0 POST /fxQuotes,
// GET /fxQuotes/{ID}, PUT /fxQuotes/{ID} and PUT /fxQuotes/{ID}/error): a DFSP asks the FXP
// it names for the terms of a currency conversion, and only that FXP answers, only to that
// DFSP. Duplicates follow the rules of quotes (quotes.js). The switch relays the terms and
// never changes them, so every forward carries the sender's own bytes.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { answerRecord, decideBatch, isRedelivery } from './batch.js';
import { QUOTE_ACTION, QUOTE_OUTCOME, QUOTE_STATE } from './quotes.js';

/** The event type the /fxQuotes edge produces (quoting/routes.js); every other quoting event is a quote's. */
export const FX_QUOTE_EVENT = 'fxQuote';

const forward = (type, conversionRequestId, to, message) => ({ type, conversionRequestId, to, message });
const tellError = (conversionRequestId, to, reason) => ({ type: QUOTE_OUTCOME.error, conversionRequestId, to, failure: reason });
const refuse = (event, reason) => ({ outcomes: [tellError(event.id, event.from, reason)] });

/**
 * `events`: decoded fx quote events in consumption order (`id`: the conversionRequestId).
 * `fxQuotes`: id → stored fx quote (quoting/repositories/fx-quotes.js). `participants`: name →
 * `{ isActive, activePositionCurrencies, pairs }` (the ledger's port, selectFxParticipantFacts)
 * for the DFSPs the events name, and at least `{ isActive }` for the stored fx quotes' parties.
 * Returns fx quotes to insert, `{ conversionRequestId, changes }` to apply, outcomes, and
 * events with an unknown action.
 */
export function decideFxQuoteBatch({ events, fxQuotes, participants, persist }) {
  const decided = decideBatch({
    events, records: fxQuotes, deciders: DECIDERS, context: { participants, persist }, idOf: (fxQuote) => fxQuote.conversionRequestId,
  });
  return { ...decided, updates: decided.updates.map(({ id, changes }) => ({ conversionRequestId: id, changes })) };
}

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
    headers: event.headers ?? {},
    rawBody: event.rawBody ?? JSON.stringify(event.body),
    sourceCurrency: terms.sourceAmount.currency,
    targetCurrency: terms.targetAmount.currency,
  };
}

/** POST /fxQuotes: a new conversion request goes to its FXP once both parties check out. */
function decideRequest(event, prior, { participants, persist }) {
  const hash = requestHash(event.body);
  if (prior) return duplicateRequest(event, prior, hash, persist);
  const problem = conversionFailure(event.body.conversionTerms, event, participants);
  // A refused request is not stored: a retry once the FXP serves the pair is then a new one.
  if (problem) return refuse(event, problem);
  const fxQuote = {
    conversionRequestId: event.id,
    initiatingFsp: event.from,
    counterPartyFsp: event.to,
    state: QUOTE_STATE.forwarded,
    requestHash: hash,
    requestAt: event.at ?? null,
    answerHash: null,
    answerAt: null,
    request: persist ? requestRecord(event) : null,
    answer: null,
  };
  return { insert: fxQuote, outcomes: [forward(QUOTE_OUTCOME.forwardRequest, event.id, fxQuote.counterPartyFsp, event)] };
}

/** The same conversionRequestId again: as for quotes (quotes.js duplicateRequest). */
function duplicateRequest(event, prior, hash, persist) {
  if (prior.requestHash !== hash || prior.initiatingFsp !== event.from) {
    return refuse(event, failure(FAILURE.modifiedRequest, `fx quote ${event.id} was already requested with different content`));
  }
  const inFlight = prior.state === QUOTE_STATE.forwarded;
  if (isRedelivery(event, prior.requestAt) || inFlight) {
    const replay = isRedelivery(event, prior.requestAt) && inFlight;
    return { outcomes: replay ? [forward(QUOTE_OUTCOME.forwardRequest, event.id, prior.counterPartyFsp, event)] : [] };
  }
  if (prior.answer) return { outcomes: [storedAnswer(prior, event)] };
  const update = { state: QUOTE_STATE.forwarded, answerHash: null, answerAt: null, requestAt: event.at ?? null, ...(persist ? { request: requestRecord(event) } : {}) };
  return { update, outcomes: [forward(QUOTE_OUTCOME.forwardRequest, event.id, prior.counterPartyFsp, event)] };
}

/** The FXP's stored answer, forwarded to the initiating DFSP as the FXP sent it. */
function storedAnswer(fxQuote, event) {
  const type = fxQuote.state === QUOTE_STATE.failed ? QUOTE_OUTCOME.forwardError : QUOTE_OUTCOME.forwardAnswer;
  const message = { from: fxQuote.counterPartyFsp, headers: fxQuote.answer.headers, rawBody: fxQuote.answer.rawBody, at: event.at };
  return forward(type, fxQuote.conversionRequestId, fxQuote.initiatingFsp, message);
}

/**
 * PUT /fxQuotes/{ID} and PUT /fxQuotes/{ID}/error, forwarded to the initiating DFSP only from
 * the FXP the request named, and only for conversions relayed through this switch (3205
 * otherwise). An answer naming another destination than the initiating DFSP is refused.
 */
function decideResponse(event, prior, { participants, persist }) {
  if (!prior) return refuse(event, failure(FAILURE.quoteNotFound, `fx quote ${event.id} was not requested through this switch`));
  if (prior.counterPartyFsp !== event.from) return refuse(event, failure(FAILURE.validation, `fx quote ${event.id} was sent to ${prior.counterPartyFsp}; ${event.from} cannot answer it`));
  const to = prior.initiatingFsp;
  if (event.to && event.to !== to) return refuse(event, failure(FAILURE.validation, `fx quote ${event.id}: its initiating FSP is ${to}, not ${event.to}`));
  for (const [role, name, code] of [['FXP', event.from, FAILURE.payeeFspNotFound], ['initiating FSP', to, FAILURE.payerFspNotFound]]) {
    if (!participants.get(name)?.isActive) return refuse(event, failure(code, `${role} ${name} is not active`));
  }
  const isError = event.action === QUOTE_ACTION.error;
  const outcome = forward(isError ? QUOTE_OUTCOME.forwardError : QUOTE_OUTCOME.forwardAnswer, event.id, to, event);
  const hash = requestHash(event.body);
  if (prior.answerHash !== null) {
    if (prior.answerHash === hash) return { outcomes: [outcome] };
    return refuse(event, failure(FAILURE.modifiedRequest, `fx quote ${event.id} was already answered with different content`));
  }
  const update = {
    state: isError ? QUOTE_STATE.failed : QUOTE_STATE.answered,
    answerHash: hash,
    answerAt: event.at ?? null,
    answer: persist ? answerRecord(event) : null,
  };
  return { update, outcomes: [outcome] };
}

/** GET /fxQuotes/{ID}: answered from the stored fx quote, to its initiating DFSP only (quotes.js decideGet). */
function decideGet(event, prior) {
  if (!prior || prior.initiatingFsp !== event.from) return refuse(event, failure(FAILURE.quoteNotFound, `fx quote ${event.id} was not requested by ${event.from}`));
  if (prior.state === QUOTE_STATE.forwarded) return { outcomes: [] };
  if (prior.answer) return { outcomes: [storedAnswer(prior, event)] };
  return refuse(event, failure(FAILURE.quoteNotFound, `the answer to fx quote ${event.id} is not kept; resend POST /fxQuotes`));
}

const DECIDERS = Object.freeze({
  [QUOTE_ACTION.request]: decideRequest,
  [QUOTE_ACTION.get]: decideGet,
  [QUOTE_ACTION.response]: decideResponse,
  [QUOTE_ACTION.error]: decideResponse,
});
