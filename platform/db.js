import knex from 'knex';

/**
 * A knex instance for MySQL/MariaDB. DECIMAL columns come back as strings (mysql2's
 * default), so money never passes through a JavaScript Number; BIGINT ids come back as
 * strings too, for the same reason.
 */
export function createDatabase(dbConfig, { database = dbConfig.database } = {}) {
  return knex({
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
      directory: new URL('../ledger/migrations', import.meta.url).pathname,
      tableName: 'knex_migrations',
      loadExtensions: ['.js'],
    },
  });
}

/** A unique-key violation: a concurrent request created the same row first. */
export function isDuplicateKeyError(error) {
  return error?.code === 'ER_DUP_ENTRY';
}
