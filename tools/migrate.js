// Runs every bounded context's knex migrations against the configured database (used by
// `make up` and the Helm pre-install Job). Exits non-zero on failure so the caller stops.
import { loadConfig } from '../platform/config.js';
import { createDatabase } from '../platform/db.js';
import { createLogger } from '../platform/logger.js';
import { MIGRATION_DIRECTORIES } from './lib/schema.js';

const config = loadConfig({ SERVICE_NAME: 'migrate', ...process.env });
const logger = createLogger(config);
const db = createDatabase(config.db, { migrationDirectories: MIGRATION_DIRECTORIES });
try {
  const [batch, applied] = await db.migrate.latest();
  logger.info({ batch, applied }, applied.length ? 'migrations applied' : 'schema is up to date');
} catch (error) {
  logger.error({ err: error }, 'migration failed');
  process.exitCode = 1;
} finally {
  await db.destroy();
}
