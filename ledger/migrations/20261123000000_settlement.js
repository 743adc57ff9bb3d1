// Settlement: windows, the journal of the transfers each window holds, and settlements over
// closed windows with the net amount of each participant's account.
//
// The open window is named by one pointer row (settlement_window_open, id 1). The position
// handler reads it with a shared lock in the transaction that commits transfers and records
// them in that window; closing a window takes the row's exclusive lock, so it waits for the
// commits in flight and every commit after it records into the next window. A window's
// content is therefore final once its close has committed.

const MONEY = [18, 4];

export async function up(knex) {
  await createWindowTables(knex);
  await createSettlementTables(knex);
  const now = new Date();
  const [windowId] = await knex('settlement_window').insert({ state: 'OPEN', reason: 'initial window', created_at: now, changed_at: now });
  await knex('settlement_window_state_change').insert({ settlement_window_id: windowId, state: 'OPEN', reason: 'initial window', created_at: now });
  await knex('settlement_window_open').insert({ id: 1, settlement_window_id: windowId });
}

async function createWindowTables(knex) {
  await knex.schema.createTable('settlement_window', (table) => {
    table.increments('id').primary();
    table.string('state', 24).notNullable();
    table.string('reason', 512).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
    table.index(['state']);
    table.index(['created_at']);
  });
  await knex.schema.createTable('settlement_window_state_change', (table) => {
    table.bigIncrements('id').primary();
    table.integer('settlement_window_id').unsigned().notNullable().references('settlement_window.id');
    table.string('state', 24).notNullable();
    table.string('reason', 512).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.index(['settlement_window_id']);
  });
  await knex.schema.createTable('settlement_window_open', (table) => {
    table.tinyint('id').unsigned().primary();
    table.integer('settlement_window_id').unsigned().notNullable().references('settlement_window.id');
  });
  // One row per committed transfer, written by the position handler in the commit's own
  // transaction; the transfer id as key means a transfer is in exactly one window, once.
  await knex.schema.createTable('settlement_window_transfer', (table) => {
    table.string('transfer_id', 36).primary();
    table.integer('settlement_window_id').unsigned().notNullable().references('settlement_window.id');
    table.integer('payer_account_id').unsigned().notNullable();
    table.integer('payee_account_id').unsigned().notNullable();
    table.string('currency', 3).notNullable();
    table.decimal('amount', ...MONEY).notNullable();
    table.datetime('committed_at', { precision: 3 }).notNullable();
    // Set when a continuous gross settlement model settled the transfer on its own.
    table.datetime('gross_settled_at', { precision: 3 }).nullable();
    // Window totals (at close, and for the open window's gauges at every scrape) are read
    // from this index alone, never from the rows.
    table.index(['settlement_window_id', 'currency', 'gross_settled_at', 'amount'], 'settlement_window_transfer_totals');
    table.index(['currency', 'gross_settled_at']);
  });
  // What a closed window holds per currency, and the deferred net model that currency was
  // closed under: that model alone settles it, even if the currency's model changes later.
  await knex.schema.createTable('settlement_window_content', (table) => {
    table.increments('id').primary();
    table.integer('settlement_window_id').unsigned().notNullable().references('settlement_window.id');
    table.integer('settlement_model_id').unsigned().notNullable().references('settlement_model.id');
    table.string('currency', 3).notNullable();
    table.string('ledger_account_type', 32).notNullable();
    table.string('state', 24).notNullable();
    table.integer('settlement_id').unsigned().nullable();
    table.integer('transfer_count').unsigned().notNullable();
    table.decimal('amount', ...MONEY).notNullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
    table.unique(['settlement_window_id', 'currency', 'ledger_account_type'], { indexName: 'settlement_window_content_unique' });
  });
}

async function createSettlementTables(knex) {
  await knex.schema.createTable('settlement', (table) => {
    table.increments('id').primary();
    table.integer('settlement_model_id').unsigned().notNullable().references('settlement_model.id');
    table.string('state', 24).notNullable();
    table.string('reason', 512).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
    table.index(['state']);
  });
  await knex.schema.createTable('settlement_state_change', (table) => {
    table.bigIncrements('id').primary();
    table.integer('settlement_id').unsigned().notNullable().references('settlement.id');
    table.string('state', 24).notNullable();
    table.string('reason', 512).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.index(['settlement_id']);
  });
  await knex.schema.createTable('settlement_settlement_window', (table) => {
    table.integer('settlement_id').unsigned().notNullable().references('settlement.id');
    table.integer('settlement_window_id').unsigned().notNullable().references('settlement_window.id');
    table.primary(['settlement_id', 'settlement_window_id']);
    table.index(['settlement_window_id']);
  });
  // Each participant's position account in the settlement, with its net amount (above zero:
  // the participant owes the scheme) and its own state.
  await knex.schema.createTable('settlement_participant_account', (table) => {
    table.integer('settlement_id').unsigned().notNullable().references('settlement.id');
    table.integer('account_id').unsigned().notNullable().references('account.id');
    table.integer('participant_id').unsigned().notNullable().references('participant.id');
    table.string('currency', 3).notNullable();
    table.decimal('net_amount', ...MONEY).notNullable();
    table.string('state', 24).notNullable();
    table.string('reason', 512).nullable();
    table.string('external_reference', 128).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.datetime('changed_at', { precision: 3 }).notNullable();
    table.primary(['settlement_id', 'account_id']);
    table.index(['account_id']);
  });
  await knex.schema.createTable('settlement_participant_account_state_change', (table) => {
    table.bigIncrements('id').primary();
    table.integer('settlement_id').unsigned().notNullable();
    table.integer('account_id').unsigned().notNullable();
    table.string('state', 24).notNullable();
    table.string('reason', 512).nullable();
    table.string('external_reference', 128).nullable();
    table.datetime('created_at', { precision: 3 }).notNullable();
    table.index(['settlement_id', 'account_id'], 'settlement_account_state_change_account');
  });
}

export async function down(knex) {
  for (const table of ['settlement_participant_account_state_change', 'settlement_participant_account', 'settlement_settlement_window',
    'settlement_state_change', 'settlement', 'settlement_window_content', 'settlement_window_transfer', 'settlement_window_open',
    'settlement_window_state_change', 'settlement_window']) {
    await knex.schema.dropTableIfExists(table);
  }
}
