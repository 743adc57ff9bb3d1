// A fresh UUID (version 4) for an action's idempotency key. crypto.getRandomValues is used
// rather than randomUUID, which browsers offer only on https or localhost pages.
export function newUuid() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A JWS key's fingerprint: the SHA-256 of its DER (SubjectPublicKeyInfo), in hex pairs. */
export async function keyFingerprint(pem) {
  const base64 = pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');
  const der = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', der));
  return [...digest].map((byte) => byte.toString(16).padStart(2, '0').toUpperCase()).join(':');
}
