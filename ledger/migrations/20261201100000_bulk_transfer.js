// A bulk transfer (POST /bulkTransfers) and its items. Each individual transfer of a bulk is
// an ordinary row of the transfer table, prepared, reserved, committed and expired like any
// other; what belongs to the bulk is kept beside it: the bulk's own row (its parties,
// expiry, state, and the payer's request as received, headers and bytes, so that the payee
// can be sent the payer's signed request) and one item row per individual transfer, linking
// it to its bulk and recording its result as the bulk handler learnt it.
//
// An item table rather than a nullable bulk_transfer_id on the transfer row: an item whose
// transferId is already taken has no transfer row of its own, yet belongs to the bulk and
// must be answered in it; and the bulk handler records each item's result once, in its own
// transaction, so that a redelivered result changes nothing and the bulk moves on exactly
// when its last item has a result. The transfer table and its hot-path statements stay as
// they are (handlers/README.md, "Bulk transfers").
export async function up(knex) {
  await knex.schema.createTable('bulk_transfer', (table) => {
    table.string('bulk_transfer_id', 36).primary();
    table.string('bulk_quote_id', 36).notNullable();
    table.string('payer_fsp', 32).notNullable();
    table.string('payee_fsp', 32).notNullable();
    table.datetime('expires_at', { precision: 3 }).notNullable();
    table.string('state', 24).notNullable();
    table.integer('item_count').unsigned().notNullable();
    table.string('request_hash', 64).notNullable();
    // The payer's FSPIOP headers (JSON) and body text, byte for byte, for the forward.
    table.text('headers').notNullable();
    table.text('raw_body', 'mediumtext').notNullable();
    table.string('failure_code', 32).nullable();
    table.string('failure_detail', 512).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
    table.datetime('completed_at', { precision: 3 }).nullable();
    table.index(['state', 'expires_at']);
  });
  await knex.schema.createTable('bulk_transfer_item', (table) => {
    table.string('bulk_transfer_id', 36).notNullable().references('bulk_transfer.bulk_transfer_id');
    table.string('transfer_id', 36).notNullable();
    // The item's place in the payer's individualTransfers, for the bodies rebuilt from it.
    table.integer('item_index').unsigned().notNullable();
    // Null until the bulk handler records the item's prepare result: RESERVED or FAILED.
    table.string('prepare_result', 16).nullable();
    table.string('failure_code', 32).nullable();
    table.string('failure_detail', 512).nullable();
    // Null until the bulk handler records the item's final result (its commit or abort):
    // COMMITTED with the payee's fulfilment, or ABORTED with the errorInformation the payer
    // is told (the payee's own error, or the switch's failure).
    table.string('final_result', 16).nullable();
    table.string('fulfilment', 48).nullable();
    table.string('error_code', 4).nullable();
    table.string('error_description', 128).nullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
    table.primary(['bulk_transfer_id', 'transfer_id']);
    // The handlers that meet an individual transfer find its bulk by its id.
    table.index(['transfer_id']);
  });
}

export async function down(knex) {
  await knex.schema.dropTableIfExists('bulk_transfer_item');
  await knex.schema.dropTableIfExists('bulk_transfer');
}
