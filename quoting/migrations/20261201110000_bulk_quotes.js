// Bulk quotes the quoting handler relayed (POST /bulkQuotes, a payer asking one payee for up to
// 1,000 quotes). As for quotes, every one keeps what duplicate detection needs: its two DFSPs,
// its state, the hashes of the request and of the payee's answer, and the edge's acceptance
// times; and, whatever is persisted, the ids of its individual quotes, against which the
// payee's answer is checked. With QUOTES_PERSIST=true the request and the answer are kept too,
// headers and body text byte for byte, so that a stored answer can be replayed with its
// signature intact; the number of individual quotes and their currencies are kept beside them
// for an operator's queries.

export async function up(knex) {
  await knex.schema.createTable('bulk_quote', (table) => {
    table.string('bulk_quote_id', 36).primary();
    // FSPIOP FspId allows 32 characters.
    table.string('payer_fsp', 32).notNullable();
    table.string('payee_fsp', 32).notNullable();
    table.string('state', 16).notNullable();
    table.string('request_hash', 64).notNullable();
    table.bigInteger('request_at').nullable();
    table.string('answer_hash', 64).nullable();
    table.bigInteger('answer_at').nullable();
    // A JSON array of up to 1,000 quoteIds (about 39 kB).
    table.text('quote_ids', 'mediumtext').notNullable();
    // The request (QUOTES_PERSIST=true).
    table.integer('item_count').nullable();
    // The distinct currencies of the individual quotes, comma-separated.
    table.string('currencies', 255).nullable();
    table.text('request_headers').nullable();
    table.text('request_body', 'mediumtext').nullable();
    // The payee's answer (QUOTES_PERSIST=true).
    table.string('answer_error_code', 4).nullable();
    table.text('answer_headers').nullable();
    table.text('answer_body', 'mediumtext').nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
  });
}

export async function down(knex) {
  await knex.schema.dropTableIfExists('bulk_quote');
}
