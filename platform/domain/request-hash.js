// The identity of a request for duplicate detection: sha256 over a canonical JSON form
// (keys sorted), so the same content hashes the same whatever the key order on the wire.
import { createHash } from 'node:crypto';

function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export function requestHash(body) {
  return createHash('sha256').update(canonical(body)).digest('base64url');
}
