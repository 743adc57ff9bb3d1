// The quoting context's own settings, read from the same environment as loadConfig's and
// validated the same way: a bad value stops the process at start-up, and the result is frozen.
import { ConfigError, readString } from '../platform/config.js';

/**
 * The quoting handler's settings (quoting/handler). QUOTES_PERSIST=true keeps each quote's
 * request and the payee's answer (so resends and GET /quotes/{ID} are answered from them);
 * false keeps only what duplicate detection needs.
 */
export function readQuotingConfig(env) {
  const persist = readString(env, 'QUOTES_PERSIST', 'true');
  if (persist !== 'true' && persist !== 'false') throw new ConfigError(`QUOTES_PERSIST must be true or false, got "${persist}"`);
  return Object.freeze({ persist: persist === 'true' });
}
