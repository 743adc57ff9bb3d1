// Where each bounded context keeps its schema migrations. The one list both the migration
// Job (tools/migrate.js) and the integration tests' per-file databases apply.
const folder = (path) => new URL(`../../${path}/`, import.meta.url).pathname;

export const MIGRATION_DIRECTORIES = Object.freeze([
  folder('ledger/migrations'),
  folder('quoting/migrations'),
  folder('account-lookup/migrations'),
]);
