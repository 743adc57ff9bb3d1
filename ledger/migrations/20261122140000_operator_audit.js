// The operator audit trail: one row per change made through an operator API (admin API,
// ALS admin API, built-in oracle), written in the change's own transaction. It lives in the
// shared schema beside the ledger because the admin API serves it (GET /audit) and every
// operator API writes it. Rows are only ever inserted.

export async function up(knex) {
  await knex.schema.createTable('operator_audit', (table) => {
    table.bigIncrements('id').primary();
    table.datetime('occurred_at', { precision: 3 }).notNullable();
    table.string('actor', 128).notNullable(); // the token's scope (operator:read-write), or unauthenticated in a lab
    table.string('api', 16).notNullable(); // admin, als-admin or oracle
    table.string('method', 8).notNullable();
    table.string('route', 255).notNullable(); // the route's template, e.g. /participants/{name}/limits
    table.string('target', 1024).notNullable(); // the path and query called
    table.smallint('status').unsigned().notNullable(); // the HTTP status answered
    table.text('before', 'mediumtext').nullable(); // JSON: what the call changes, as it was
    table.text('after', 'mediumtext').nullable(); // JSON: the same, as the call left it
    table.index(['occurred_at']);
    table.index(['route', 'occurred_at']);
  });
}

export async function down(knex) {
  await knex.schema.dropTable('operator_audit');
}
