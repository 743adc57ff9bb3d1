// The ILP condition/fulfilment check of FSPIOP: the payee proves payment by revealing the
// 32-byte preimage whose SHA-256 is the condition the payer sent in the prepare.
import { createHash } from 'node:crypto';

const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{43}$/;

export function isCondition(text) {
  return typeof text === 'string' && BASE64URL_32_BYTES.test(text) && Buffer.from(text, 'base64url').length === 32;
}

export function fulfilmentMatchesCondition(fulfilment, condition) {
  if (!isCondition(fulfilment)) return false;
  const digest = createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url');
  return digest === condition;
}
