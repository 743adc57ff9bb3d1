// When a message of a relayed kind (handler/relayed-kinds.js) is set aside as a dead letter,
// its sender is told (2001), and so is the requester when the message was the answering DFSP's
// answer (the payer of a quote or bulk quote, the fx quote's initiating DFSP): both are waiting on it. None of
// them moves money, so nothing else needs ending.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { QUOTE_ACTION, QUOTE_OUTCOME } from '../domain/quotes.js';
import { runStatement } from '../../platform/db.js';
import { relayedKindOf } from './relayed-kinds.js';

const isName = (value) => typeof value === 'string' && value !== '';

/** The requester of the stored record `event` answers, or null when its sender is not that record's answerer. */
async function requesterOf(db, { kind, select, fromRows }, event) {
  const record = fromRows(await runStatement(db, select([event.id]))).get(event.id);
  return record && record[kind.answererField] === event.from ? record[kind.requesterField] : null;
}

/** `finishDeadLetter(event, error)` for the quoting handler. */
export function createQuoteDeadLetterFinisher({ db, topics, hubName }) {
  return async function finishDeadLetter(event) {
    const relayed = relayedKindOf(event);
    const failed = failure(FAILURE.processingFailed, 'the switch could not process this quote message; it was set aside for the operator');
    const told = new Set(isName(event.from) ? [event.from] : []);
    if (event.action === QUOTE_ACTION.response || event.action === QUOTE_ACTION.error) {
      // Only the answering DFSP can leave the requester waiting; anyone else's message concerns only them.
      const requester = await requesterOf(db, relayed, event);
      if (requester) told.add(requester);
    }
    const outcomes = [...told].map((to) => ({ type: QUOTE_OUTCOME.error, [relayed.kind.idField]: event.id, to, failure: failed }));
    return relayed.records(topics, outcomes, hubName, [event]);
  };
}
