// What the operators' portal finds (issue 35): a transfer by the quote it pays or by the
// payer's or payee's party, read from its ILP packet's transaction when the transfer is stored
// (ledger/repositories/statements/transfers.js), each indexed; and the dead letters an operator
// replayed through the admin API, one row per letter, so a repeated request replays none twice.
// Transfers stored before this migration keep these columns empty: they are found by id only.
export async function up(knex) {
  await knex.schema.alterTable('transfer', (table) => {
    table.string('quote_id', 36).nullable();
    // "<partyIdType>:<partyIdentifier>", e.g. "MSISDN:27710000002".
    table.string('payer_party', 160).nullable();
    table.string('payee_party', 160).nullable();
    table.index(['quote_id'], 'transfer_quote_id');
    table.index(['payer_party'], 'transfer_payer_party');
    table.index(['payee_party'], 'transfer_payee_party');
  });
  await knex.schema.createTable('dead_letter_replay', (table) => {
    table.increments('id').primary();
    table.string('handler', 32).notNullable();
    table.string('topic', 255).notNullable();
    table.integer('dead_letter_partition').unsigned().notNullable();
    table.bigInteger('dead_letter_offset').unsigned().notNullable();
    table.string('actor', 64).notNullable();
    table.datetime('replayed_at', { precision: 3 }).notNullable();
    table.unique(['topic', 'dead_letter_partition', 'dead_letter_offset'], { indexName: 'dead_letter_replay_letter' });
  });
}

export async function down(knex) {
  await knex.schema.dropTableIfExists('dead_letter_replay');
  await knex.schema.alterTable('transfer', (table) => {
    table.dropIndex(['quote_id'], 'transfer_quote_id');
    table.dropIndex(['payer_party'], 'transfer_payer_party');
    table.dropIndex(['payee_party'], 'transfer_payee_party');
    table.dropColumn('quote_id');
    table.dropColumn('payer_party');
    table.dropColumn('payee_party');
  });
}
