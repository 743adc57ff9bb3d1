// Quotes the quoting handler relayed. Every quote keeps what duplicate detection needs: its
// two DFSPs, its state, the hashes of the request and of the payee's answer, and the edge's
// acceptance times (which tell a redelivered record from a DFSP's resend). With
// QUOTES_PERSIST=true the request and the answer are kept too, with the DFSPs' headers and
// body text byte for byte, so that a stored answer can be replayed with its signature intact.

export async function up(knex) {
  await knex.schema.createTable('quote', (table) => {
    table.string('quote_id', 36).primary();
    // FSPIOP FspId allows 32 characters.
    table.string('payer_fsp', 32).notNullable();
    table.string('payee_fsp', 32).notNullable();
    table.string('state', 16).notNullable();
    table.string('request_hash', 64).notNullable();
    table.bigInteger('request_at').nullable();
    table.string('answer_hash', 64).nullable();
    table.bigInteger('answer_at').nullable();
    // The request (QUOTES_PERSIST=true).
    table.string('transaction_id', 36).nullable();
    // The FSPIOP Amount pattern allows 18 integer digits and 4 decimals.
    table.decimal('amount', 22, 4).nullable();
    table.string('currency', 3).nullable();
    table.datetime('expires_at', { precision: 3 }).nullable();
    table.text('request_headers').nullable();
    table.text('request_body', 'mediumtext').nullable();
    // The payee's answer (QUOTES_PERSIST=true).
    table.string('ilp_condition', 48).nullable();
    table.string('answer_error_code', 4).nullable();
    table.text('answer_headers').nullable();
    table.text('answer_body', 'mediumtext').nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
  });
}

export async function down(knex) {
  await knex.schema.dropTableIfExists('quote');
}
