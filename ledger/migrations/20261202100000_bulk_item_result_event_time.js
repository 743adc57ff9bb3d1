// The time stamp (`at`, ms) of the event each bulk item's result came in, and of the bulk's request. A result the bulk
// handler already holds may come again for two reasons: the bulk handler crashed after its
// commit and before its produce, and its batch is redelivered (the same event, the same `at`:
// the callback that batch decided may be lost and is produced again); or a handler upstream
// crashed after producing the result and produced it again on its restart (a new event, a new
// `at`: nobody may be told a second time). Without these columns the two look alike. Likewise
// the bulk's own request: the prepare handler's batch redelivered carries the edge's `at`
// again, where the payer's sending it again is a new request whose payer hears the state.
export async function up(knex) {
  await knex.schema.alterTable('bulk_transfer', (table) => {
    table.bigInteger('request_event_at').nullable();
  });
  await knex.schema.alterTable('bulk_transfer_item', (table) => {
    table.bigInteger('prepare_event_at').nullable();
    table.bigInteger('final_event_at').nullable();
  });
}

export async function down(knex) {
  await knex.schema.alterTable('bulk_transfer_item', (table) => {
    table.dropColumn('prepare_event_at');
    table.dropColumn('final_event_at');
  });
  await knex.schema.alterTable('bulk_transfer', (table) => {
    table.dropColumn('request_event_at');
  });
}
