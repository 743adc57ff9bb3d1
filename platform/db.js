import knex from 'knex';

/**
 * A knex instance for MySQL/MariaDB. DECIMAL columns come back as strings (mysql2's
 * default), so money never passes through a JavaScript Number; BIGINT ids come back as
 * strings too, for the same reason. Only a process that migrates passes
 * `migrationDirectories`: each bounded context keeps its own migrations, and knex applies
 * the files of all of them in the order of their timestamped names.
 */
export function createDatabase(dbConfig, { database = dbConfig.database, metrics, migrationDirectories = [] } = {}) {
  const db = knex({
    client: 'mysql2',
    connection: {
      host: dbConfig.host,
      port: dbConfig.port,
      user: dbConfig.user,
      password: dbConfig.password,
      database,
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      dateStrings: false,
      timezone: 'Z',
      ssl: dbConfig.ssl ? { rejectUnauthorized: true } : undefined,
    },
    // READ COMMITTED: locking reads of rows that do not exist yet take no gap locks, so
    // concurrent inserts of different ids never deadlock on each other.
    pool: {
      min: 0,
      max: dbConfig.poolSizeMax,
      afterCreate: (connection, done) => connection.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', (error) => done(error, connection)),
    },
    migrations: {
      directory: migrationDirectories,
      tableName: 'knex_migrations',
      loadExtensions: ['.js'],
    },
  });
  if (metrics) registerPoolMetrics(metrics, db);
  return db;
}

/** The connection pool's state at scrape time: a pool that is always exhausted shows here. */
function registerPoolMetrics(metrics, db) {
  return new metrics.client.Gauge({
    name: 'db_pool_connections',
    help: 'Database connections by state: used, free, and acquires waiting for a connection (pending).',
    labelNames: ['state'],
    registers: [metrics.registry],
    collect() {
      const { pool } = db.client;
      if (!pool) return;
      this.set({ state: 'used' }, pool.numUsed());
      this.set({ state: 'free' }, pool.numFree());
      this.set({ state: 'pending' }, pool.numPendingAcquires());
    },
  });
}

/** A unique-key violation: a concurrent request created the same row first. */
export function isDuplicateKeyError(error) {
  return error?.code === 'ER_DUP_ENTRY';
}

const BULK_UPDATE_ROWS_MAX = 500;

/**
 * Updates many rows with one statement per group of rows that change the same columns:
 * `UPDATE t SET c = CASE key WHEN ? THEN ? ... END WHERE key IN (...)`. Round trips, not
 * rows, are what a batch pays for. `rows` are `{ key, changes: { column: value } }`.
 */
export async function bulkUpdate(trx, table, keyColumn, rows) {
  const groups = new Map();
  for (const row of rows) {
    const columns = Object.keys(row.changes).sort();
    const signature = columns.join(',');
    if (!groups.has(signature)) groups.set(signature, { columns, rows: [] });
    groups.get(signature).rows.push(row);
  }
  for (const { columns, rows: groupRows } of groups.values()) {
    for (let start = 0; start < groupRows.length; start += BULK_UPDATE_ROWS_MAX) {
      const chunk = groupRows.slice(start, start + BULK_UPDATE_ROWS_MAX);
      const bindings = [];
      const assignments = columns.map((column) => {
        const cases = chunk.map((row) => {
          bindings.push(row.key, row.changes[column]);
          return 'WHEN ? THEN ?';
        });
        return `\`${column}\` = CASE \`${keyColumn}\` ${cases.join(' ')} END`;
      });
      bindings.push(...chunk.map((row) => row.key));
      const placeholders = chunk.map(() => '?').join(',');
      await trx.raw(`UPDATE \`${table}\` SET ${assignments.join(', ')} WHERE \`${keyColumn}\` IN (${placeholders})`, bindings);
    }
  }
}
