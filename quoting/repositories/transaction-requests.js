// Transaction requests for the quoting handler: the `transaction_request` table's relay
// records (relay-records.js), with the amount kept beside a request and the link to the
// quote that pays it (its quoteId and transactionId), written when that quote is relayed.
import { relayRecordRepository } from './relay-records.js';

const transactionRequests = relayRecordRepository({
  table: 'transaction_request',
  id: { field: 'transactionRequestId', column: 'transaction_request_id' },
  parties: [{ field: 'payeeFsp', column: 'payee_fsp' }, { field: 'payerFsp', column: 'payer_fsp' }],
  requestColumns: (request) => ({
    amount: request?.amount ?? null,
    currency: request?.currency ?? null,
  }),
  linkColumns: { quoteId: 'quote_id', transactionId: 'transaction_id' },
});

/** Transaction requests by id (without the stored request); `forUpdate` locks them in id order. */
export const selectTransactionRequests = transactionRequests.select;

/** transactionRequestId → transaction request, from selectTransactionRequests's rows. */
export const transactionRequestsFromRows = transactionRequests.fromRows;

/** The states of the participants `names` and of both DFSPs of the transaction requests `ids`. */
export const selectTransactionRequestParties = (names, ids = []) => transactionRequests.participantStates(names, ids);

/** New transaction requests in one statement (null when there are none). */
export const insertTransactionRequests = transactionRequests.insert;

/**
 * `[{ transactionRequestId, changes }]` as decided, and the links to quotes
 * (`changes: { quoteId, transactionId }`): one UPDATE per group changing the same columns.
 */
export const updateTransactionRequests = transactionRequests.update;
