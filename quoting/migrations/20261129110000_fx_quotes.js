// Fx quotes the quoting handler relayed (POST /fxQuotes to an FXP). As for quotes, every one
// keeps what duplicate detection needs: its two parties, its state, the hashes of the request
// and of the FXP's answer, and the edge's acceptance times. With QUOTES_PERSIST=true the
// request and the answer are kept too, headers and body text byte for byte, so that a stored
// answer can be replayed with its signature intact; the conversion's currencies are kept
// beside them for an operator's queries.

export async function up(knex) {
  await knex.schema.createTable('fx_quote', (table) => {
    table.string('conversion_request_id', 36).primary();
    // FSPIOP FspId allows 32 characters.
    table.string('initiating_fsp', 32).notNullable();
    table.string('counter_party_fsp', 32).notNullable();
    table.string('state', 16).notNullable();
    table.string('request_hash', 64).notNullable();
    table.bigInteger('request_at').nullable();
    table.string('answer_hash', 64).nullable();
    table.bigInteger('answer_at').nullable();
    // The request (QUOTES_PERSIST=true).
    table.string('source_currency', 3).nullable();
    table.string('target_currency', 3).nullable();
    table.text('request_headers').nullable();
    table.text('request_body', 'mediumtext').nullable();
    // The FXP's answer (QUOTES_PERSIST=true).
    table.string('answer_error_code', 4).nullable();
    table.text('answer_headers').nullable();
    table.text('answer_body', 'mediumtext').nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
  });
}

export async function down(knex) {
  await knex.schema.dropTableIfExists('fx_quote');
}
