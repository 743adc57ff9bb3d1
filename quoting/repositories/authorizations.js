// Authorizations for the quoting handler: the `authorization` table's relay records
// (relay-records.js), keyed by the transaction request's id, with the query of the latest
// ask (authentication type, retries left, amount) kept beside its headers.
import { relayRecordRepository } from './relay-records.js';

const authorizations = relayRecordRepository({
  table: 'authorization',
  id: { field: 'transactionRequestId', column: 'transaction_request_id' },
  parties: [{ field: 'payerFsp', column: 'payer_fsp' }, { field: 'payeeFsp', column: 'payee_fsp' }],
  requestColumns: (request) => ({
    authentication_type: request?.authenticationType ?? null,
    retries_left: request?.retriesLeft ?? null,
    amount: request?.amount ?? null,
    currency: request?.currency ?? null,
  }),
});

/** Authorizations by transaction request id; `forUpdate` locks them in id order. */
export const selectAuthorizations = authorizations.select;

/** transactionRequestId → authorization, from selectAuthorizations's rows. */
export const authorizationsFromRows = authorizations.fromRows;

/** The states of the participants `names` and of both DFSPs of the authorizations `ids`. */
export const selectAuthorizationParties = (names, ids = []) => authorizations.participantStates(names, ids);

/** New authorizations in one statement (null when there are none). */
export const insertAuthorizations = authorizations.insert;

/** `[{ transactionRequestId, changes }]` as decided: one UPDATE per group changing the same columns. */
export const updateAuthorizations = authorizations.update;
