// Bulk-loads the built-in oracle (table oracle_party) with a range of party identifiers for one
// DFSP, e.g. a million MSISDNs for a load test:
//   node tools/oracle-load.js --type MSISDN --from 1000000000 --count 1000000 --fsp payeefsp
// It uses the database settings every process uses (DB_*, scripts/env.sh) and prints one line
// with the time it took. Exit status 2 is a usage error, 1 a failed load.
import { loadConfig } from '../platform/config.js';
import { createDatabase } from '../platform/db.js';
import { findParticipantState } from '../ledger/ports/participant-directory.js';
import { USAGE, UsageError, loadParties, parseLoadArguments } from '../account-lookup/oracle/bulk-load.js';

function parseOrExit(argv) {
  try {
    return parseLoadArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${USAGE}\n`);
    process.exit(2);
  }
}

const options = parseOrExit(process.argv.slice(2));
const config = loadConfig({ SERVICE_NAME: 'oracle-load', ...process.env });
// One connection per concurrent chunk, whatever the services' pool size is.
const db = createDatabase({ ...config.db, poolSizeMax: Math.max(config.db.poolSizeMax, options.concurrency) });
try {
  const participant = await findParticipantState(db, options.fspId);
  if (!participant?.isActive) process.stderr.write(`warning: ${options.fspId} is not an active participant; lookups will not reach it\n`);
  const { rows, seconds } = await loadParties(db, options);
  const last = options.from + BigInt(options.count - 1);
  process.stdout.write(`loaded ${rows} ${options.type} parties ${options.from}..${last} for ${options.fspId} `
    + `in ${seconds.toFixed(2)} s (${Math.round(rows / seconds)} rows/s)\n`);
} catch (error) {
  process.stderr.write(`load failed: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  await db.destroy();
}
