// Every client of the operator APIs (admin API, ALS admin API, built-in oracle) sends its
// bearer token the same way, so there is one place that knows the header's form.

/**
 * The headers that authenticate a call to an operator API. Without a token (a lab that
 * turned operator authentication off) there is nothing to send.
 */
export function operatorHeaders(token) {
  return token ? { authorization: `Bearer ${token}` } : {};
}

/**
 * The tokens the local scripts send, from the same variables the servers read
 * (scripts/env.sh sets local-only values; a Kubernetes Secret sets deployed ones).
 */
export function operatorTokensFromEnv(env = process.env) {
  return { readWrite: env.OPERATOR_TOKEN_READ_WRITE || undefined, readOnly: env.OPERATOR_TOKEN_READ_ONLY || undefined };
}
