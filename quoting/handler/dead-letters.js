// When a quote or fx quote message is set aside as a dead letter, its sender is told (2001),
// and so is the requester when the message was the answering DFSP's answer (the quote's payer,
// the fx quote's initiating DFSP): both are waiting on it. A quote moves no money, so nothing
// else needs ending.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { QUOTE_ACTION, QUOTE_OUTCOME } from '../domain/quotes.js';
import { runStatement } from '../../platform/db.js';
import { quotesFromRows, selectQuotes } from '../repositories/quotes.js';
import { fxQuotesFromRows, selectFxQuotes } from '../repositories/fx-quotes.js';
import { fxQuoteNotificationRecords, quoteNotificationRecords } from './records.js';
import { FX_QUOTE_EVENT } from '../domain/fx-quotes.js';

const isName = (value) => typeof value === 'string' && value !== '';

// How each kind finds its requester (null when the sender is not the answering DFSP) and names its outcomes.
const KINDS = Object.freeze({
  quote: {
    requesterOf: async (db, event) => {
      const quote = quotesFromRows(await runStatement(db, selectQuotes([event.id]))).get(event.id);
      return quote && quote.payeeFsp === event.from ? quote.payerFsp : null;
    },
    outcome: (id, to, failed) => ({ type: QUOTE_OUTCOME.error, quoteId: id, to, failure: failed }),
    records: quoteNotificationRecords,
  },
  fxQuote: {
    requesterOf: async (db, event) => {
      const fxQuote = fxQuotesFromRows(await runStatement(db, selectFxQuotes([event.id]))).get(event.id);
      return fxQuote && fxQuote.counterPartyFsp === event.from ? fxQuote.initiatingFsp : null;
    },
    outcome: (id, to, failed) => ({ type: QUOTE_OUTCOME.error, conversionRequestId: id, to, failure: failed }),
    records: fxQuoteNotificationRecords,
  },
});

/** `finishDeadLetter(event, error)` for the quoting handler. */
export function createQuoteDeadLetterFinisher({ db, topics, hubName }) {
  return async function finishDeadLetter(event) {
    const kind = event.type === FX_QUOTE_EVENT ? KINDS.fxQuote : KINDS.quote;
    const failed = failure(FAILURE.processingFailed, 'the switch could not process this quote message; it was set aside for the operator');
    const told = new Set(isName(event.from) ? [event.from] : []);
    if (event.action === QUOTE_ACTION.response || event.action === QUOTE_ACTION.error) {
      // Only the answering DFSP can leave the requester waiting; anyone else's message concerns only them.
      const requester = await kind.requesterOf(db, event);
      if (requester) told.add(requester);
    }
    return kind.records(topics, [...told].map((to) => kind.outcome(event.id, to, failed)), hubName, [event]);
  };
}
