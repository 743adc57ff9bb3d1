// Bulk loading of the built-in oracle: a range of consecutive identifiers (MSISDNs, say) for
// one DFSP, written as multi-row INSERTs of a few thousand rows by several connections at
// once. Round trips and commits, not rows, are what a load pays for (DESIGN.md, "Measured
// facts"), so a million parties take seconds.
import { PARTY_ID_TYPES } from '../party-id-types.js';
import { upsertDecimalIdentifiers } from './repository.js';

export const LOAD_DEFAULTS = Object.freeze({ chunkRows: 10_000, concurrency: 4 });
const COUNT_MAX = 100_000_000;

export const USAGE = `usage: node tools/oracle-load.js --type MSISDN --from 1000000000 --count 1000000 --fsp payeefsp
  [--currency USD] [--sub-id ID] [--chunk ${LOAD_DEFAULTS.chunkRows}] [--concurrency ${LOAD_DEFAULTS.concurrency}]
Registers identifiers from..from+count-1 (decimal) of the type for the DFSP, replacing any owner they had.`;

export class UsageError extends Error {}

function readFlags(argv) {
  const flags = {};
  for (let index = 0; index < argv.length; index += 2) {
    const [name, value] = [argv[index], argv[index + 1]];
    if (!name.startsWith('--') || value === undefined || value.startsWith('--')) throw new UsageError(`expected --name value pairs, got "${name}"`);
    flags[name.slice(2)] = value;
  }
  return flags;
}

function wholeNumber(flags, name, fallback, { min, max }) {
  const text = flags[name] ?? (fallback === undefined ? undefined : String(fallback));
  if (text === undefined) throw new UsageError(`--${name} is required`);
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max) throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  return Number(text);
}

/**
 * Parses the command line into `{ type, from, count, fspId, currency?, subId?, chunkRows,
 * concurrency }` (`from` is a BigInt, so identifiers of any length stay exact), or throws
 * UsageError.
 */
export function parseLoadArguments(argv) {
  const flags = readFlags(argv);
  const known = ['type', 'from', 'count', 'fsp', 'currency', 'sub-id', 'chunk', 'concurrency'];
  const unknown = Object.keys(flags).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new UsageError(`unknown option(s) --${unknown.join(', --')}`);
  if (!PARTY_ID_TYPES.includes(flags.type)) throw new UsageError(`--type must be one of ${PARTY_ID_TYPES.join(', ')}`);
  if (!/^\d{1,120}$/.test(flags.from ?? '')) throw new UsageError('--from must be a decimal number');
  if (!/^[A-Za-z0-9_.-]{1,32}$/.test(flags.fsp ?? '')) throw new UsageError('--fsp must be a DFSP name of 1 to 32 characters');
  if (flags.currency !== undefined && !/^[A-Z]{3}$/.test(flags.currency)) throw new UsageError('--currency must be an ISO 4217 code');
  const count = wholeNumber(flags, 'count', undefined, { min: 1, max: COUNT_MAX });
  const from = BigInt(flags.from);
  if (String(from + BigInt(count - 1)).length > 128) throw new UsageError('identifiers must stay within 128 digits');
  return {
    type: flags.type, from, count, fspId: flags.fsp, currency: flags.currency, subId: flags['sub-id'],
    chunkRows: wholeNumber(flags, 'chunk', LOAD_DEFAULTS.chunkRows, { min: 1, max: 50_000 }),
    concurrency: wholeNumber(flags, 'concurrency', LOAD_DEFAULTS.concurrency, { min: 1, max: 64 }),
  };
}

/** The identifiers of chunk `index`: consecutive decimal strings, at most `chunkRows` of them. */
export function chunkIdentifiers({ from, count, chunkRows }, index) {
  const start = index * chunkRows;
  const size = Math.min(chunkRows, count - start);
  const first = from + BigInt(start);
  return Array.from({ length: size }, (_, offset) => String(first + BigInt(offset)));
}

/**
 * Loads the range into oracle_party with `concurrency` connections, each taking the next
 * chunk when it finishes one. Resolves to `{ rows, seconds }`; `onChunk(rowsDone)` reports.
 */
export async function loadParties(db, options, { onChunk = () => {}, now = () => performance.now() } = {}) {
  const { type, fspId, currency, subId, count, chunkRows, concurrency } = options;
  const chunks = Math.ceil(count / chunkRows);
  const started = now();
  let next = 0;
  let rows = 0;
  async function worker() {
    while (next < chunks) {
      const identifiers = chunkIdentifiers(options, next++);
      await upsertDecimalIdentifiers(db, { type, subId, fspId, currency }, identifiers);
      rows += identifiers.length;
      onChunk(rows);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, chunks) }, worker));
  return { rows, seconds: (now() - started) / 1000 };
}
