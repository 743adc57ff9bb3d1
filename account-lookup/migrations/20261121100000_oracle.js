// Account lookup's tables: the built-in oracle (which DFSP serves a party) and the registry of
// oracles (which oracle serves a party id type), as Mojaloop's ALS admin API manages them.

export async function up(knex) {
  // One row per party identifier. A party without a sub-id has sub_id '' rather than NULL,
  // because NULLs never collide in a unique key and the primary key must hold one owner per
  // (type, identifier, sub-id). The key order makes every lookup a primary-key read.
  await knex.schema.createTable('oracle_party', (table) => {
    table.string('party_id_type', 16).notNullable();
    table.string('party_identifier', 128).notNullable();
    table.string('party_sub_id', 128).notNullable().defaultTo('');
    table.string('fsp_id', 32).notNullable();
    table.string('currency', 3).nullable();
    // Defaults on the server, so the bulk loader sends only the columns that vary.
    table.datetime('created_at', { precision: 3 }).notNullable().defaultTo(knex.raw('CURRENT_TIMESTAMP(3)'));
    // No secondary index: it would cost a quarter of every bulk load's time, for the rare
    // operator question of how many parties one DFSP serves (a scan answers that).
    table.primary(['party_id_type', 'party_identifier', 'party_sub_id']);
  });
  await knex.schema.createTable('oracle_endpoint', (table) => {
    table.increments('id').primary();
    table.string('party_id_type', 16).notNullable();
    table.string('endpoint_type', 16).notNullable().defaultTo('URL');
    table.string('value', 512).notNullable();
    table.string('currency', 3).nullable();
    table.boolean('is_default').notNullable().defaultTo(false);
    table.string('created_by', 128).notNullable().defaultTo('unknown');
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.index(['party_id_type']);
  });
}

export async function down(knex) {
  await knex.schema.dropTableIfExists('oracle_endpoint');
  await knex.schema.dropTableIfExists('oracle_party');
}
