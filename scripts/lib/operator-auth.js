// Every client of the operator APIs (admin API, ALS admin API, built-in oracle) sends its
// bearer token the same way; the header's form lives beside the servers' check.

export { operatorHeaders } from '../../platform/http/operator-auth.js';

/**
 * The tokens the local scripts send, from the same variables the servers read
 * (scripts/env.sh sets local-only values; a Kubernetes Secret sets deployed ones).
 */
export function operatorTokensFromEnv(env = process.env) {
  return { readWrite: env.OPERATOR_TOKEN_READ_WRITE || undefined, readOnly: env.OPERATOR_TOKEN_READ_ONLY || undefined };
}
