// When a quote message is set aside as a dead letter, its sender is told (2001), and so is
// the quote's payer when the message was the payee's answer: both are waiting on it. A quote
// moves no money, so nothing else needs ending.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { QUOTE_ACTION, QUOTE_OUTCOME } from '../domain/quotes.js';
import { runStatement } from '../../platform/db.js';
import { quotesFromRows, selectQuotes } from '../repositories/quotes.js';
import { quoteNotificationRecords } from './records.js';

const isName = (value) => typeof value === 'string' && value !== '';

/** `finishDeadLetter(event, error)` for the quoting handler. */
export function createQuoteDeadLetterFinisher({ db, topics, hubName }) {
  return async function finishDeadLetter(event) {
    const failed = failure(FAILURE.processingFailed, 'the switch could not process this quote message; it was set aside for the operator');
    const told = new Set(isName(event.from) ? [event.from] : []);
    if (event.action === QUOTE_ACTION.response || event.action === QUOTE_ACTION.error) {
      // Only the quote's own payee can leave its payer waiting; anyone else's message concerns only them.
      const quote = quotesFromRows(await runStatement(db, selectQuotes([event.id]))).get(event.id);
      if (quote && quote.payeeFsp === event.from) told.add(quote.payerFsp);
    }
    const outcomes = [...told].map((to) => ({ type: QUOTE_OUTCOME.error, quoteId: event.id, to, failure: failed }));
    return quoteNotificationRecords(topics, outcomes, hubName, [event]);
  };
}
