// The currency pairs a foreign-exchange provider (FXP) converts, registered with it through the
// admin API. A participant with at least one pair is an FXP: there is no separate flag that
// could say "FXP" of a participant that converts nothing, or forget to say it of one that does.
// A pair has a direction (an FXP that sells EUR for USD need not buy EUR with USD), so
// USD → EUR and EUR → USD are two rows.

export async function up(knex) {
  await knex.schema.createTable('fxp_currency_pair', (table) => {
    table.increments('id').primary();
    table.integer('participant_id').unsigned().notNullable().references('participant.id');
    table.string('source_currency', 3).notNullable();
    table.string('target_currency', 3).notNullable();
    table.string('created_by', 128).notNullable().defaultTo('unknown');
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.unique(['participant_id', 'source_currency', 'target_currency'], { indexName: 'fxp_currency_pair_unique' });
    // Discovery asks which FXPs serve one pair.
    table.index(['source_currency', 'target_currency'], 'fxp_currency_pair_by_pair');
  });
}

export async function down(knex) {
  await knex.schema.dropTableIfExists('fxp_currency_pair');
}
