// The rules every resource the quoting context relays (/quotes, /fxQuotes, /bulkQuotes,
// /transactionRequests, /authorizations) follows, written once and parametrised by what
// differs between them (a `kind`: the record's id field, the fields naming its requester and
// its answerer, the resource's name and path, how a request is checked and kept). A requester
// asks its answerer through the switch; only that answerer answers, and only to that
// requester. The switch relays the terms and never changes them, so every forward carries the
// sender's own bytes.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { answerRecord, decideBatch, isRedelivery } from './batch.js';

/** Where a stored record stands. FORWARDED: the answerer has it and has not answered yet. */
export const QUOTE_STATE = Object.freeze({ forwarded: 'FORWARDED', answered: 'ANSWERED', failed: 'FAILED' });

/** The actions of the events the quoting edge produces (handlers/README.md). */
export const QUOTE_ACTION = Object.freeze({ request: 'request', get: 'get', response: 'response', error: 'error' });

/** Who must hear what; quoting/handler/records.js turns each into one notification event. */
export const QUOTE_OUTCOME = Object.freeze({
  forwardRequest: 'FORWARD_REQUEST', // the requester's POST, to the answerer
  forwardAnswer: 'FORWARD_ANSWER', // the answerer's PUT …/{ID}, to the requester
  forwardError: 'FORWARD_ERROR', // the answerer's PUT …/{ID}/error, to the requester
  error: 'ERROR', // a switch-detected failure, from the hub to the sender
});

/**
 * What tells one relayed resource from another:
 * - `idField`: the record's and its outcomes' id field (quoteId, conversionRequestId);
 * - `requesterField`, `answererField`: the record's fields naming its two DFSPs;
 * - `noun`: the record as failures name it; `resource`: its FSPIOP resource (path without `/`);
 * - `requesterRole`: the requester as failures name it;
 * - `requestFailure(event, participants, context)`: why a new request cannot be relayed, or
 *   null (`context` is decideRelayBatch's, with what the batch read beside the records);
 * - `answerPartiesFailure(participants, answerer, requester)`: why an answer cannot be, or null;
 * - `requestRecord(event)`: the request as kept when requests are persisted;
 * and, optionally:
 * - `requestHashOf(event)`: the request's identity for duplicate detection (the body's hash
 *   unless the request has its content elsewhere, as a GET in its query);
 * - `askFailure(event, context)`: why `event.from` may not make this request of `event.to` at
 *   all, checked on every request, the first and any repeated one, before the duplicate rules;
 * - `asksAgain`: a request repeated after its answer starts a new round (it is forwarded to
 *   the answerer, which answers it anew) instead of getting the stored answer;
 * - `notFound`: the failure code of an unknown record (FAILURE.quoteNotFound when not given);
 * - `decisionFields(event)`: what later decisions read of a new request, kept on its record
 *   whatever is persisted (a bulk quote's quoteIds);
 * - `answerFailure(event, record)`: why an answer's content cannot be relayed for the stored
 *   record, or null.
 */
export function relayKind(spec) {
  const kind = Object.freeze({ ...spec });
  return Object.freeze({ ...kind, deciders: decidersOf(kind) });
}

/**
 * `events`: decoded events of `kind` in consumption order. `records`: id → stored record.
 * `participants`: name → what the kind's checks read (at least `{ isActive }`). `persist`:
 * whether requests and answers are kept, or only what duplicate detection needs. Returns
 * records to insert, `{ [idField], changes }` to apply to stored ones, outcomes, and events
 * with an unknown action (which the handler logs and skips).
 */
export function decideRelayBatch(kind, { events, records, participants, persist, ...read }) {
  const decided = decideBatch({
    events, records, deciders: kind.deciders, context: { participants, persist, ...read }, idOf: (record) => record[kind.idField],
  });
  return { ...decided, updates: decided.updates.map(({ id, changes }) => ({ [kind.idField]: id, changes })) };
}

function decidersOf(kind) {
  const respond = (event, prior, context) => decideResponse(kind, event, prior, context);
  return Object.freeze({
    [QUOTE_ACTION.request]: (event, prior, context) => decideRequest(kind, event, prior, context),
    [QUOTE_ACTION.get]: (event, prior) => decideGet(kind, event, prior),
    [QUOTE_ACTION.response]: respond,
    [QUOTE_ACTION.error]: respond,
  });
}

const notFoundOf = (kind) => kind.notFound ?? FAILURE.quoteNotFound;
const forward = (kind, type, id, to, message) => ({ type, [kind.idField]: id, to, message });
const refuse = (kind, event, reason) => ({ outcomes: [{ type: QUOTE_OUTCOME.error, [kind.idField]: event.id, to: event.from, failure: reason }] });

const requestHashOf = (kind, event) => (kind.requestHashOf ? kind.requestHashOf(event) : requestHash(event.body));

/** POST: a new request goes to its answerer once both DFSPs check out. */
function decideRequest(kind, event, prior, context) {
  const { participants, persist } = context;
  const refusal = kind.askFailure?.(event, context);
  if (refusal) return refuse(kind, event, refusal);
  const hash = requestHashOf(kind, event);
  if (prior) return duplicateRequest(kind, event, prior, hash, persist);
  const problem = kind.requestFailure(event, participants, context);
  // A refused request is not stored: a retry once the DFSP is onboarded (or the FXP serves the pair) is then a new one.
  if (problem) return refuse(kind, event, problem);
  const record = {
    [kind.idField]: event.id,
    [kind.requesterField]: event.from,
    [kind.answererField]: event.to,
    state: QUOTE_STATE.forwarded,
    requestHash: hash,
    requestAt: event.at ?? null,
    answerHash: null,
    answerAt: null,
    ...kind.decisionFields?.(event),
    request: persist ? kind.requestRecord(event) : null,
    answer: null,
  };
  return { insert: record, outcomes: [forward(kind, QUOTE_OUTCOME.forwardRequest, event.id, event.to, event)] };
}

/**
 * The same id again. Changed content, or another DFSP reusing the id: 3106. The very record
 * redelivered (a crash before the offsets were committed): its forward is replayed while the
 * answerer has not answered, since the forward may never have been produced. A DFSP's resend
 * while the answerer has not answered is ignored: the answer is on its way. A resend of an
 * answered request gets the answerer's stored answer; when answers are not kept, the request
 * goes to the answerer again and the record waits for its new answer. For a kind that
 * `asksAgain`, a DFSP's request after the answer, changed or not, is such a new round.
 */
function duplicateRequest(kind, event, prior, hash, persist) {
  const inFlight = prior.state === QUOTE_STATE.forwarded;
  const newRound = Boolean(kind.asksAgain) && !inFlight && !isRedelivery(event, prior.requestAt);
  if ((prior.requestHash !== hash && !newRound) || prior[kind.requesterField] !== event.from) {
    return refuse(kind, event, failure(FAILURE.modifiedRequest, `${kind.noun} ${event.id} was already requested with different content`));
  }
  const answerer = prior[kind.answererField];
  if (isRedelivery(event, prior.requestAt) || inFlight) {
    const replay = isRedelivery(event, prior.requestAt) && inFlight;
    return { outcomes: replay ? [forward(kind, QUOTE_OUTCOME.forwardRequest, event.id, answerer, event)] : [] };
  }
  if (prior.answer && !newRound) return { outcomes: [storedAnswer(kind, prior, event)] };
  // A new round replaces the request it answers and forgets the answer to the last one.
  const round = newRound ? { requestHash: hash, ...(persist ? { answer: null } : {}) } : {};
  const update = {
    state: QUOTE_STATE.forwarded, answerHash: null, answerAt: null, requestAt: event.at ?? null, ...(persist ? { request: kind.requestRecord(event) } : {}), ...round,
  };
  return { update, outcomes: [forward(kind, QUOTE_OUTCOME.forwardRequest, event.id, answerer, event)] };
}

/** The answerer's stored answer, forwarded to the requester as the answerer sent it. */
function storedAnswer(kind, record, event) {
  const type = record.state === QUOTE_STATE.failed ? QUOTE_OUTCOME.forwardError : QUOTE_OUTCOME.forwardAnswer;
  const message = { from: record[kind.answererField], headers: record.answer.headers, rawBody: record.answer.rawBody, at: event.at };
  return forward(kind, type, record[kind.idField], record[kind.requesterField], message);
}

/**
 * PUT …/{ID} and PUT …/{ID}/error, forwarded to the requester only from the answerer the
 * request named. Unlike Mojaloop, which relays an answer to a record it does not know to
 * whoever FSPIOP-Destination names, the switch answers only requests it relayed: every one it
 * forwards is stored (at least what duplicate detection needs), so an answer without one
 * answers nothing a requester asked (3205), and an answer naming another DFSP than the
 * requester is refused.
 */
function decideResponse(kind, event, prior, { participants, persist }) {
  if (!prior) return refuse(kind, event, failure(notFoundOf(kind), `${kind.noun} ${event.id} was not requested through this switch`));
  const answerer = prior[kind.answererField];
  const to = prior[kind.requesterField];
  if (answerer !== event.from) return refuse(kind, event, failure(FAILURE.validation, `${kind.noun} ${event.id} was sent to ${answerer}; ${event.from} cannot answer it`));
  if (event.to && event.to !== to) return refuse(kind, event, failure(FAILURE.validation, `${kind.noun} ${event.id}: its ${kind.requesterRole} is ${to}, not ${event.to}`));
  const problem = kind.answerPartiesFailure(participants, event.from, to) ?? kind.answerFailure?.(event, prior) ?? null;
  if (problem) return refuse(kind, event, problem);
  const isError = event.action === QUOTE_ACTION.error;
  const outcome = forward(kind, isError ? QUOTE_OUTCOME.forwardError : QUOTE_OUTCOME.forwardAnswer, event.id, to, event);
  const hash = requestHash(event.body);
  // An answer already recorded: the same one again is a resend or a redelivery and is
  // forwarded again (the requester may not have had it); a different one is 3106 to the answerer.
  if (prior.answerHash !== null) {
    if (prior.answerHash === hash) return { outcomes: [outcome] };
    return refuse(kind, event, failure(FAILURE.modifiedRequest, `${kind.noun} ${event.id} was already answered with different content`));
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
 * GET …/{ID} is answered from the stored record rather than forwarded to the answerer: the
 * requester gets the answer as the answerer sent it. Anyone else, and unknown ids, get 3205.
 * A record still waiting for its answerer gets nothing now: the answer reaches the requester
 * when it comes. Without stored answers (QUOTES_PERSIST=false) an answer cannot be repeated;
 * the requester is told so with 3205 and may resend its POST instead.
 */
function decideGet(kind, event, prior) {
  if (!prior || prior[kind.requesterField] !== event.from) {
    return refuse(kind, event, failure(notFoundOf(kind), `${kind.noun} ${event.id} was not requested by ${event.from}`));
  }
  if (prior.state === QUOTE_STATE.forwarded) return { outcomes: [] };
  if (prior.answer) return { outcomes: [storedAnswer(kind, prior, event)] };
  return refuse(kind, event, failure(notFoundOf(kind), `the answer to ${kind.noun} ${event.id} is not kept; resend POST /${kind.resource}`));
}
