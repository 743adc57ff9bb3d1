// A conversion (an fx transfer) is a transfer of kind FX_TRANSFER in the transfer table: its
// transferId is the commitRequestId, its amount and currency the source ones, and beside them
// the target amount and currency and the payment it is for (determiningTransferId). The
// payment a conversion is for names its conversion (commitRequestId), so nothing after its
// prepare searches for it again. One table for both kinds keeps one lock order, one state
// journal and one timeout claim (handlers/README.md, "Currency conversion").
// Migrations are frozen history: each states the money column's precision it was written with.
const MONEY = [18, 4];

export async function up(knex) {
  await knex.schema.alterTable('transfer', (table) => {
    table.decimal('target_amount', ...MONEY).nullable();
    table.string('target_currency', 3).nullable();
    table.string('determining_transfer_id', 36).nullable();
    table.string('commit_request_id', 36).nullable();
    // A payment's prepare finds its conversion by the payment's id, and the timeout claim
    // joins a conversion to its payment by it.
    table.index(['determining_transfer_id'], 'transfer_by_determining_transfer_id');
    // RECEIVED_FULFIL_DEPENDENT, a conversion fulfilled by its FXP, is 25 characters.
    table.string('state', 32).notNullable().alter();
  });
  await knex.schema.alterTable('transfer_state_change', (table) => {
    table.string('state', 32).notNullable().alter();
  });
}

export async function down(knex) {
  await knex.schema.alterTable('transfer_state_change', (table) => {
    table.string('state', 24).notNullable().alter();
  });
  await knex.schema.alterTable('transfer', (table) => {
    table.string('state', 24).notNullable().alter();
    table.dropIndex(['determining_transfer_id'], 'transfer_by_determining_transfer_id');
    table.dropColumns('target_amount', 'target_currency', 'determining_transfer_id', 'commit_request_id');
  });
}
