// Transaction requests (POST /transactionRequests, a payee's DFSP asking a payer's DFSP to pay)
// and the authorizations asked for them (GET /authorizations/{transactionRequestId}) the
// quoting handler relayed. As for quotes, every one keeps what duplicate detection needs: its
// two DFSPs, its state, the hashes of the request and of the answer, and the edge's
// acceptance times; with QUOTES_PERSIST=true the request and the answer are kept too, headers
// and body text byte for byte. A transaction request also keeps the quote that pays it and
// that quote's transactionId (normally the transfer's id), so that an operator can go from
// the merchant's request to its quote and its transfer.

export async function up(knex) {
  await knex.schema.createTable('transaction_request', (table) => {
    table.string('transaction_request_id', 36).primary();
    // FSPIOP FspId allows 32 characters. The payee's DFSP asks; the payer's DFSP answers.
    table.string('payee_fsp', 32).notNullable();
    table.string('payer_fsp', 32).notNullable();
    table.string('state', 16).notNullable();
    table.string('request_hash', 64).notNullable();
    table.bigInteger('request_at').nullable();
    table.string('answer_hash', 64).nullable();
    table.bigInteger('answer_at').nullable();
    // The request (QUOTES_PERSIST=true). The FSPIOP Amount pattern allows 18 integer digits and 4 decimals.
    table.decimal('amount', 22, 4).nullable();
    table.string('currency', 3).nullable();
    table.text('request_headers').nullable();
    table.text('request_body', 'mediumtext').nullable();
    // The payer DFSP's answer (QUOTES_PERSIST=true).
    table.string('answer_error_code', 4).nullable();
    table.text('answer_headers').nullable();
    table.text('answer_body', 'mediumtext').nullable();
    // The payment: the quote naming this transaction request, and its transactionId.
    table.string('quote_id', 36).nullable().index();
    table.string('transaction_id', 36).nullable().index();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
  });
  await knex.schema.createTable('authorization', (table) => {
    // The transaction request's id: one authorization per transaction request, asked again
    // round after round (an OTP retry replaces the request and forgets the last answer).
    table.string('transaction_request_id', 36).primary();
    // The payer's DFSP asks; the payee's DFSP answers.
    table.string('payer_fsp', 32).notNullable();
    table.string('payee_fsp', 32).notNullable();
    table.string('state', 16).notNullable();
    table.string('request_hash', 64).notNullable();
    table.bigInteger('request_at').nullable();
    table.string('answer_hash', 64).nullable();
    table.bigInteger('answer_at').nullable();
    // The request of the latest round (QUOTES_PERSIST=true): its query, and its headers.
    table.string('authentication_type', 8).nullable();
    table.string('retries_left', 2).nullable();
    table.decimal('amount', 22, 4).nullable();
    table.string('currency', 3).nullable();
    table.text('request_headers').nullable();
    table.text('request_body', 'mediumtext').nullable();
    // The payee DFSP's answer to the latest round (QUOTES_PERSIST=true).
    table.string('answer_error_code', 4).nullable();
    table.text('answer_headers').nullable();
    table.text('answer_body', 'mediumtext').nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
  });
}

export async function down(knex) {
  await knex.schema.dropTableIfExists('authorization');
  await knex.schema.dropTableIfExists('transaction_request');
}
