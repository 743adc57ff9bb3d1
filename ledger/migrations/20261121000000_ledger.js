// The ledger's schema: participants and their accounts, positions as maintained rows with
// an append-only journal, limits, endpoints, settlement models, and transfers with their
// state history. Money columns are DECIMAL(18,4) and are read back as strings.

const MONEY = [18, 4];

export async function up(knex) {
  await knex.schema.createTable('participant', (table) => {
    table.increments('id').primary();
    table.string('name', 30).notNullable().unique();
    table.boolean('is_active').notNullable().defaultTo(true);
    table.boolean('is_proxy').notNullable().defaultTo(false);
    table.string('created_by', 128).notNullable().defaultTo('unknown');
    table.datetime('created_at', { precision: 3 }).notNullable();
  });
  await knex.schema.createTable('account', (table) => {
    table.increments('id').primary();
    table.integer('participant_id').unsigned().notNullable().references('participant.id');
    table.string('currency', 3).notNullable();
    table.string('type', 32).notNullable();
    table.boolean('is_active').notNullable().defaultTo(false);
    table.string('created_by', 128).notNullable().defaultTo('unknown');
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.unique(['participant_id', 'currency', 'type']);
  });
  await knex.schema.createTable('position', (table) => {
    table.integer('account_id').unsigned().primary().references('account.id');
    table.decimal('value', ...MONEY).notNullable().defaultTo(0);
    table.decimal('reserved_value', ...MONEY).notNullable().defaultTo(0);
    table.datetime('changed_at', { precision: 3 }).notNullable();
  });
  await knex.schema.createTable('position_change', (table) => {
    table.bigIncrements('id').primary();
    table.integer('account_id').unsigned().notNullable().references('account.id');
    table.string('transfer_id', 36).nullable();
    table.string('reason', 32).notNullable();
    table.decimal('change', ...MONEY).notNullable();
    table.decimal('value', ...MONEY).notNullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.index(['account_id', 'id']);
    // A transfer moves an account's position at most once per reason: a redelivered message
    // that slipped past the state checks fails here instead of applying twice.
    table.unique(['transfer_id', 'account_id', 'reason']);
  });
  await knex.schema.createTable('participant_limit', (table) => {
    table.increments('id').primary();
    table.integer('account_id').unsigned().notNullable().references('account.id');
    table.string('type', 32).notNullable();
    table.decimal('value', ...MONEY).notNullable();
    table.decimal('alarm_percentage', 5, 2).notNullable().defaultTo(10);
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
    table.unique(['account_id', 'type']);
  });
  await createEndpointAndSettlementTables(knex);
  await createTransferTables(knex);
}

async function createEndpointAndSettlementTables(knex) {
  await knex.schema.createTable('participant_endpoint', (table) => {
    table.increments('id').primary();
    table.integer('participant_id').unsigned().notNullable().references('participant.id');
    table.string('type', 64).notNullable();
    table.string('value', 512).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
    table.unique(['participant_id', 'type']);
  });
  await knex.schema.createTable('settlement_model', (table) => {
    table.increments('id').primary();
    table.string('name', 64).notNullable().unique();
    table.string('granularity', 16).notNullable();
    table.string('interchange', 16).notNullable();
    table.string('delay', 16).notNullable();
    table.string('currency', 3).nullable();
    table.boolean('require_liquidity_check').notNullable();
    table.string('ledger_account_type', 32).notNullable();
    table.string('settlement_account_type', 32).notNullable();
    table.boolean('auto_position_reset').notNullable();
    table.boolean('is_active').notNullable().defaultTo(true);
    table.datetime('created_at', { precision: 3 }).notNullable();
  });
}

async function createTransferTables(knex) {
  await knex.schema.createTable('transfer', (table) => {
    table.string('transfer_id', 36).primary();
    table.string('kind', 16).notNullable();
    // FSPIOP FspId allows 32 characters; an invalid prepare may name no known account.
    table.string('payer_fsp', 32).nullable();
    table.string('payee_fsp', 32).nullable();
    table.integer('payer_account_id').unsigned().nullable().references('account.id');
    table.integer('payee_account_id').unsigned().nullable().references('account.id');
    table.decimal('amount', ...MONEY).notNullable();
    table.string('currency', 3).notNullable();
    table.string('ilp_condition', 48).nullable();
    table.text('ilp_packet', 'mediumtext').nullable();
    table.datetime('expires_at', { precision: 3 }).nullable();
    table.string('state', 24).notNullable();
    table.string('request_hash', 64).notNullable();
    // The hash of the payee's completion (fulfil or error), for its duplicate check.
    table.string('completion_hash', 64).nullable();
    table.string('fulfilment', 48).nullable();
    // A switch-detected failure as the domain named it (replayed on redelivery), and the
    // payee's own error when it rejected the transfer.
    table.string('failure_code', 32).nullable();
    table.string('failure_detail', 512).nullable();
    table.string('payee_error_code', 4).nullable();
    table.string('payee_error_description', 128).nullable();
    table.string('reason', 512).nullable();
    table.string('external_reference', 128).nullable();
    table.text('extension_list').nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('completed_at', { precision: 3 }).nullable();
    // The timeout handler looks for transfers in flight whose expiry has passed.
    table.index(['state', 'expires_at']);
  });
  await knex.schema.createTable('transfer_state_change', (table) => {
    table.bigIncrements('id').primary();
    table.string('transfer_id', 36).notNullable();
    table.string('state', 24).notNullable();
    table.string('reason', 512).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.index(['transfer_id']);
  });
}

export async function down(knex) {
  for (const table of ['transfer_state_change', 'transfer', 'settlement_model', 'participant_endpoint',
    'participant_limit', 'position_change', 'position', 'account', 'participant']) {
    await knex.schema.dropTableIfExists(table);
  }
}
