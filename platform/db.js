import knex from 'knex';
import mysql from 'mysql2/promise';

/** mysql2's connection settings, the same for knex and the hot path's pool (see createDatabase). */
function connectionOptions(dbConfig, database) {
  return {
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
  };
}

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
    connection: connectionOptions(dbConfig, database),
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

/**
 * A mysql2 pool for the handlers' hot path, from the same configuration as the knex instance
 * (money and BIGINT ids as strings, dates in UTC, READ COMMITTED). The query builder costs
 * more CPU per batch than the statements themselves; knex stays for migrations and the admin
 * API. `multipleStatements` lets a batch send its locking reads in one round trip and its
 * writes with the COMMIT in another (see inTransaction); every value still goes through a
 * placeholder, never into the SQL text.
 */
export function createSqlPool(dbConfig, { database = dbConfig.database } = {}) {
  const pool = mysql.createPool({
    ...connectionOptions(dbConfig, database),
    // mysql2 otherwise captures the caller's stack trace for every statement, which cost
    // account-lookup 3.5 % of its CPU; a failed statement still carries its code and SQL.
    trace: false,
    multipleStatements: true,
    connectionLimit: dbConfig.poolSizeMax,
    maxIdle: dbConfig.poolSizeMax,
  });
  // Queued before anything the pool's user sends on the new connection. A failure here
  // surfaces on that first statement, since the connection is then unusable.
  pool.on('connection', (connection) => connection.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED', () => {}));
  return pool;
}

/**
 * Runs `work(tx)` in one transaction on one pooled connection, with as few round trips as
 * the work allows: `tx.read(...statements)` sends its statements together (the first read
 * also opens the transaction) and resolves to each statement's rows, in order; `tx.write(...statements)`
 * only queues them, and they go to the server with the COMMIT in one round trip once `work`
 * resolved. Statements are `{ sql, values }`. The server runs them in order and stops at the
 * first error, so a failed write never reaches the COMMIT: the transaction is rolled back
 * and the error thrown. A connection whose rollback fails is closed, not returned to the pool.
 */
export async function inTransaction(pool, work) {
  const connection = await pool.getConnection();
  const tx = createTransaction(connection);
  try {
    const result = await work(tx);
    await tx.commit();
    connection.release();
    return result;
  } catch (error) {
    await rollbackOrDestroy(connection, tx);
    throw error;
  }
}

function createTransaction(connection) {
  let begun = false;
  const writes = [];
  async function send(statements) {
    const texts = statements.map((statement) => statement.sql);
    const opening = begun ? 0 : 1;
    if (!begun) texts.unshift('START TRANSACTION');
    begun = true;
    const values = statements.flatMap((statement) => statement.values);
    const [results] = await connection.query(texts.join(';\n'), values);
    // One statement gives its result; several give an array with one result each.
    return texts.length === 1 ? [results] : results.slice(opening);
  }
  return {
    get begun() { return begun; },
    // A null statement (nothing to read) keeps its place in the answer as undefined.
    async read(...statements) {
      const present = statements.filter(Boolean);
      const results = present.length > 0 ? await send(present) : [];
      let next = 0;
      return statements.map((statement) => (statement ? results[next++] : undefined));
    },
    write(...statements) { writes.push(...statements.filter(Boolean)); },
    async commit() {
      if (!begun && writes.length === 0) return;
      await send([...writes.splice(0), { sql: 'COMMIT', values: [] }]);
    },
  };
}

async function rollbackOrDestroy(connection, tx) {
  if (!tx.begun) {
    connection.release();
    return;
  }
  try {
    await connection.query('ROLLBACK');
    connection.release();
  } catch {
    connection.destroy();
  }
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

/**
 * Runs one `{ sql, values }` statement (platform/sql-text.js) on a knex instance or
 * transaction, or on a mysql2 pool (createSqlPool), and resolves to its rows, or to the
 * result of a write (`affectedRows`). A builder's null (nothing to read) sends nothing and
 * resolves to undefined, as inTransaction's `tx.read` does.
 */
export async function runStatement(db, statement) {
  if (!statement) return undefined;
  const { sql, values } = statement;
  const [result] = typeof db.raw === 'function' ? await db.raw(sql, values) : await db.query(sql, values);
  return result;
}

/**
 * Runs statements one after the other, each in its own round trip, on any client
 * runStatement takes: the knex callers' counterpart of inTransaction's `tx.write`.
 */
export async function runStatements(db, statements) {
  for (const statement of statements) await runStatement(db, statement);
}

/** The database check behind every process's /health: 'OK' when it answers a trivial query, 'DOWN' otherwise. */
export async function datastoreHealth(db) {
  try {
    await db.raw('SELECT 1');
    return 'OK';
  } catch {
    return 'DOWN';
  }
}
