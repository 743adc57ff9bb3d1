// The API a DFSP receives its messages in (issue 34): FSPIOP, as every DFSP registered before
// this column did, or ISO 20022. The notification handler and account lookup read it through
// the admin API to decide whether a forward or a hub callback is converted before it is sent
// (docs/iso20022.md §2). The hub participant keeps FSPIOP: what it originates is FSPIOP.
export async function up(knex) {
  await knex.schema.alterTable('participant', (table) => {
    table.string('api_type', 16).notNullable().defaultTo('FSPIOP');
  });
}

export async function down(knex) {
  await knex.schema.alterTable('participant', (table) => {
    table.dropColumn('api_type');
  });
}
