// A quote's or fx quote's headers (QUOTES_PERSIST=true) hold an ISO 20022 message's original
// text when it came as ISO 20022 (platform/iso20022/original.js): up to the edge's 64 KB body
// limit, written as a JSON string with its quotes escaped, which a TEXT column (65,535 bytes)
// cannot hold. The headers get the bodies' MEDIUMTEXT.
const TABLES = ['quote', 'fx_quote'];
const COLUMNS = ['request_headers', 'answer_headers'];

export async function up(knex) {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (builder) => {
      for (const column of COLUMNS) builder.text(column, 'mediumtext').nullable().alter();
    });
  }
}

export async function down(knex) {
  for (const table of TABLES) {
    await knex.schema.alterTable(table, (builder) => {
      for (const column of COLUMNS) builder.text(column).nullable().alter();
    });
  }
}
