// The identity of a request for duplicate detection: sha256 over a canonical JSON form
// (keys sorted), so the same content hashes the same whatever the key order on the wire.
import { createHash } from 'node:crypto';

// A pending piece of output: literal text, or a value still to be written.
const text = (literal) => ({ literal });

/**
 * Writes the canonical form with an explicit stack rather than recursion, so that a body
 * nested thousands of levels deep cannot overflow the call stack of the process hashing it.
 * The output is the one the recursive definition gives: arrays and objects as JSON with the
 * keys of each object sorted, scalars as JSON.stringify writes them.
 */
function canonical(root) {
  const parts = [];
  const pending = [{ value: root, inArray: false }];
  while (pending.length > 0) {
    const item = pending.pop();
    if ('literal' in item) { parts.push(item.literal); continue; }
    const { value, inArray } = item;
    if (Array.isArray(value)) {
      parts.push('[');
      pending.push(text(']'));
      for (let index = value.length - 1; index >= 0; index -= 1) {
        pending.push({ value: value[index], inArray: true });
        if (index > 0) pending.push(text(','));
      }
    } else if (value !== null && typeof value === 'object') {
      parts.push('{');
      pending.push(text('}'));
      const keys = Object.keys(value).sort();
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        pending.push({ value: value[keys[index]], inArray: false });
        pending.push(text(`${index > 0 ? ',' : ''}${JSON.stringify(keys[index])}:`));
      }
    } else {
      // JSON.stringify gives undefined for undefined (and functions): Array#join wrote that
      // as nothing and a template string as "undefined"; both are kept for identical hashes.
      const written = JSON.stringify(value);
      parts.push(written === undefined && inArray ? '' : String(written));
    }
  }
  return parts.join('');
}

export function requestHash(body) {
  return createHash('sha256').update(canonical(body)).digest('base64url');
}
