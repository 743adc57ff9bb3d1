// What the audit trail says beyond who changed what: the FSPIOP error a call was answered
// with (a refusal, a failure, or a change refused in part), and what was asked (the request
// body, for the APIs that record every attempt, refused or not: the settlement API). A
// refusal changes nothing, so its before and after alone cannot say what was refused.

export async function up(knex) {
  await knex.schema.alterTable('operator_audit', (table) => {
    table.string('error_code', 8).nullable(); // the FSPIOP errorCode answered, if any
    table.string('error_description', 1024).nullable(); // its errorDescription, cut to the column
    table.text('request', 'mediumtext').nullable(); // JSON: the body asked, as sent (a string when it was not JSON)
  });
}

export async function down(knex) {
  await knex.schema.alterTable('operator_audit', (table) => {
    table.dropColumns('error_code', 'error_description', 'request');
  });
}
