// The public keys each DFSP signs its FSPIOP messages with (JWS). A DFSP has one key, or
// two while it rotates: the new one is registered beside the old, and the old is removed
// once every sender has moved. key_id is the SHA-256 thumbprint of the key's SPKI bytes.

export async function up(knex) {
  await knex.schema.createTable('participant_jws_key', (table) => {
    table.increments('id').primary();
    table.integer('participant_id').unsigned().notNullable().references('participant.id');
    table.string('key_id', 64).notNullable();
    table.text('public_key').notNullable();
    table.string('created_by', 128).notNullable().defaultTo('unknown');
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.unique(['participant_id', 'key_id']);
  });
}

export async function down(knex) {
  await knex.schema.dropTableIfExists('participant_jws_key');
}
