// Lookups the switch sent to a payee DFSP and has not seen expire: a PUT /parties (or its
// /error) is relayed only from a DFSP that was asked, to the DFSP that asked, while the
// lookup is pending. Without this, any DFSP could answer any lookup and the payer would pay
// whoever answered first.

export async function up(knex) {
  await knex.schema.createTable('party_lookup', (table) => {
    table.bigIncrements('id').primary();
    table.string('party_id_type', 16).notNullable();
    table.string('party_identifier', 128).notNullable();
    table.string('party_sub_id', 128).notNullable().defaultTo('');
    table.string('requester_fsp', 32).notNullable();
    table.string('payee_fsp', 32).notNullable();
    table.datetime('expires_at', { precision: 3 }).notNullable();
    // An answer is checked by party, payee and requester; the purge reads by expiry.
    table.index(['party_id_type', 'party_identifier', 'party_sub_id', 'payee_fsp', 'requester_fsp', 'expires_at'], 'party_lookup_answer');
    table.index(['expires_at'], 'party_lookup_expiry');
  });
}

export async function down(knex) {
  await knex.schema.dropTable('party_lookup');
}
