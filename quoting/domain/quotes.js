// The quoting handler's decisions for a batch of quote events (POST /quotes, GET /quotes/{ID},
// PUT /quotes/{ID} and PUT /quotes/{ID}/error): check both DFSPs, classify duplicates by the
// hash of the request or answer, and say who must be told what. The switch only relays a
// quote; it never changes its terms, so every forward carries the DFSP's own bytes.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { answerRecord, decideBatch, isRedelivery } from './batch.js';

/** Where a stored quote stands. FORWARDED: the payee has it and has not answered yet. */
export const QUOTE_STATE = Object.freeze({ forwarded: 'FORWARDED', answered: 'ANSWERED', failed: 'FAILED' });

/** The actions of the events the quoting edge produces (handlers/README.md). */
export const QUOTE_ACTION = Object.freeze({ request: 'request', get: 'get', response: 'response', error: 'error' });

/** Who must hear what; quoting/handler/records.js turns each into one notification event. */
export const QUOTE_OUTCOME = Object.freeze({
  forwardRequest: 'FORWARD_REQUEST', // the payer's POST /quotes, to the payee
  forwardAnswer: 'FORWARD_ANSWER', // the payee's PUT /quotes/{ID}, to the payer
  forwardError: 'FORWARD_ERROR', // the payee's PUT /quotes/{ID}/error, to the payer
  error: 'ERROR', // a switch-detected failure, from the hub to the requester
});

const forward = (type, quoteId, to, message) => ({ type, quoteId, to, message });
const tellError = (quoteId, to, reason) => ({ type: QUOTE_OUTCOME.error, quoteId, to, failure: reason });

/**
 * `events`: decoded quote events in consumption order. `quotes`: quoteId → stored quote (see
 * quoting/repositories/quotes.js). `participants`: name → { isActive }. `persist`: whether the
 * quote's request and answer are kept, or only what duplicate detection needs.
 * Returns quotes to insert, `{ quoteId, changes }` to apply to stored ones, outcomes, and
 * events with an unknown action (which the handler logs and skips).
 */
export function decideQuoteBatch({ events, quotes, participants, persist }) {
  const decided = decideBatch({ events, records: quotes, deciders: DECIDERS, context: { participants, persist }, idOf: (quote) => quote.quoteId });
  return { ...decided, updates: decided.updates.map(({ id, changes }) => ({ quoteId: id, changes })) };
}

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
    headers: event.headers ?? {},
    rawBody: event.rawBody ?? JSON.stringify(body),
    transactionId: body.transactionId ?? null,
    amount: body.amount?.amount ?? null,
    currency: body.amount?.currency ?? null,
    expiresAt: Number.isNaN(expiresAtMs) ? null : new Date(expiresAtMs),
  };
}

/** POST /quotes: a new quote goes to its payee once both DFSPs check out. */
function decideRequest(event, prior, { participants, persist }) {
  const hash = requestHash(event.body);
  if (prior) return duplicateRequest(event, prior, hash, persist);
  const problem = checkParties(participants, [payerRole(event.from), payeeRole(event.to)]);
  // A refused request is not stored: a retry after the DFSP is onboarded is then a new quote.
  if (problem) return { outcomes: [tellError(event.id, event.from, problem)] };
  const quote = {
    quoteId: event.id,
    payerFsp: event.from,
    payeeFsp: event.to,
    state: QUOTE_STATE.forwarded,
    requestHash: hash,
    requestAt: event.at ?? null,
    answerHash: null,
    answerAt: null,
    request: persist ? requestRecord(event) : null,
    answer: null,
  };
  return { insert: quote, outcomes: [forward(QUOTE_OUTCOME.forwardRequest, event.id, quote.payeeFsp, event)] };
}

/**
 * The same quote id again. Changed content, or another DFSP reusing the id: 3106. The very
 * record redelivered (a crash before the offsets were committed): its forward is replayed
 * while the payee has not answered, since the forward may never have been produced. A
 * DFSP's resend while the payee has not answered is ignored: the answer is on its way. A
 * resend of an answered quote gets the payee's stored answer; when answers are not kept, the
 * request goes to the payee again and the quote waits for the payee's new answer.
 */
function duplicateRequest(event, prior, hash, persist) {
  if (prior.requestHash !== hash || prior.payerFsp !== event.from) {
    return { outcomes: [tellError(event.id, event.from, failure(FAILURE.modifiedRequest, `quote ${event.id} was already requested with different content`))] };
  }
  const inFlight = prior.state === QUOTE_STATE.forwarded;
  if (isRedelivery(event, prior.requestAt) || inFlight) {
    const replay = isRedelivery(event, prior.requestAt) && inFlight;
    return { outcomes: replay ? [forward(QUOTE_OUTCOME.forwardRequest, event.id, prior.payeeFsp, event)] : [] };
  }
  if (prior.answer) return { outcomes: [storedAnswer(prior, event)] };
  const update = { state: QUOTE_STATE.forwarded, answerHash: null, answerAt: null, requestAt: event.at ?? null, ...(persist ? { request: requestRecord(event) } : {}) };
  return { update, outcomes: [forward(QUOTE_OUTCOME.forwardRequest, event.id, prior.payeeFsp, event)] };
}

/** The payee's stored answer, forwarded to the payer as the payee sent it. */
function storedAnswer(quote, event) {
  const type = quote.state === QUOTE_STATE.failed ? QUOTE_OUTCOME.forwardError : QUOTE_OUTCOME.forwardAnswer;
  const message = { from: quote.payeeFsp, headers: quote.answer.headers, rawBody: quote.answer.rawBody, at: event.at };
  return forward(type, quote.quoteId, quote.payerFsp, message);
}

/**
 * PUT /quotes/{ID} and PUT /quotes/{ID}/error, forwarded to the quote's payer only from the
 * quote's payee. Unlike Mojaloop, which relays an answer to a quote it does not know to
 * whoever FSPIOP-Destination names, the switch answers only quotes it relayed: every quote
 * it forwards is stored (at least what duplicate detection needs), so an answer without one
 * answers nothing a payer asked, and an answer naming another DFSP than the payer is refused.
 */
function decideResponse(event, prior, { participants, persist }) {
  const refuse = (reason) => ({ outcomes: [tellError(event.id, event.from, reason)] });
  if (!prior) return refuse(failure(FAILURE.quoteNotFound, `quote ${event.id} was not requested through this switch`));
  if (prior.payeeFsp !== event.from) return refuse(failure(FAILURE.validation, `quote ${event.id} was sent to ${prior.payeeFsp}; ${event.from} cannot answer it`));
  if (event.to && event.to !== prior.payerFsp) {
    return refuse(failure(FAILURE.validation, `quote ${event.id}: its payer is ${prior.payerFsp}, not ${event.to}`));
  }
  const to = prior.payerFsp;
  const problem = checkParties(participants, [payeeRole(event.from), payerRole(to)]);
  if (problem) return refuse(problem);
  const isError = event.action === QUOTE_ACTION.error;
  const outcome = forward(isError ? QUOTE_OUTCOME.forwardError : QUOTE_OUTCOME.forwardAnswer, event.id, to, event);
  const hash = requestHash(event.body);
  // An answer already recorded: the same one again is a resend or a redelivery and is
  // forwarded again (the payer may not have had it); a different one is 3106 to the payee.
  if (prior.answerHash !== null) {
    if (prior.answerHash === hash) return { outcomes: [outcome] };
    return { outcomes: [tellError(event.id, event.from, failure(FAILURE.modifiedRequest, `quote ${event.id} was already answered with different content`))] };
  }
  const update = {
    state: isError ? QUOTE_STATE.failed : QUOTE_STATE.answered,
    answerHash: hash,
    answerAt: event.at ?? null,
    answer: persist ? answerRecord(event) : null,
  };
  return { update, outcomes: [outcome] };
}

/**
 * GET /quotes/{ID} is answered from the stored quote rather than forwarded to the payee:
 * the payer gets the payee's answer as the payee sent it. Anyone else, and unknown ids, get
 * 3205. A quote still waiting for the payee gets nothing now: the payee's answer reaches
 * the payer when it comes. Without stored answers (QUOTES_PERSIST=false) an answered quote
 * cannot be repeated; the payer is told so with 3205 and may resend its POST instead.
 */
function decideGet(event, prior) {
  if (!prior || prior.payerFsp !== event.from) {
    return { outcomes: [tellError(event.id, event.from, failure(FAILURE.quoteNotFound, `quote ${event.id} was not requested by ${event.from}`))] };
  }
  if (prior.state === QUOTE_STATE.forwarded) return { outcomes: [] };
  if (prior.answer) return { outcomes: [storedAnswer(prior, event)] };
  return { outcomes: [tellError(event.id, event.from, failure(FAILURE.quoteNotFound, `the answer to quote ${event.id} is not kept; resend POST /quotes`))] };
}

const DECIDERS = Object.freeze({
  [QUOTE_ACTION.request]: decideRequest,
  [QUOTE_ACTION.get]: decideGet,
  [QUOTE_ACTION.response]: decideResponse,
  [QUOTE_ACTION.error]: decideResponse,
});
