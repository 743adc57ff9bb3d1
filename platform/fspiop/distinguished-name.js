// Distinguished names as ingresses pass a verified client certificate's subject, read
// exactly, so that the switch sees the attributes the certificate holds and never what one
// attribute's value merely spells: `O=Evil\,CN=victimfsp,CN=mallory` holds an O whose value
// is "Evil,CN=victimfsp" and one CN, mallory. Anything the grammar below does not allow makes
// the whole name unparseable (undefined), never a best guess. Small enough to keep here: the
// npm DN parsers are either part of an LDAP client no longer maintained or do not read the
// OpenSSL form.
//
// RFC 4514 form (nginx's $ssl_client_s_dn, ingress-nginx's ssl-client-subject-dn, AWS ALB):
// `CN=payerfsp,O=Scheme`; RDNs are separated by ",", the attributes of a multi-valued RDN by
// "+", each is `type=value` with a type name (`CN`) or a dotted OID (`2.5.4.3`). In a value,
// "\" escapes one of \ " + , ; < > = # or a space, or starts a hex pair (`\2C`) that is one
// byte of the value's UTF-8. An unescaped " ; < > or NUL, a "\" before anything else, bytes
// that are not UTF-8, or an unescaped space at either end of a value are refused; so are
// quoted values and ";" between RDNs (RFC 1779's older forms). Spaces may follow a "," or a
// "+", as Java writes `CN=payerfsp, O=Scheme`. A value that starts with an unescaped "#" is a
// hex-encoded BER value: it is kept as written and marked `encoded`, never decoded.
//
// OpenSSL's legacy one-line form (nginx's $ssl_client_s_dn_legacy): `/O=Scheme/CN=payerfsp`,
// one `/type=value` per attribute. It has no escaping at all: OpenSSL writes a "/" or "="
// inside a value as it is. Every "/" is read as a separator and a value is the text after
// the first "=" up to the next "/", taken literally (OpenSSL's `\xHH` for unprintable bytes
// stays as written). So a value that holds "/CN=x" cannot be told from an attribute of its
// own: a certificate whose O is "Evil/CN=victimfsp" and whose CN is mallory reads as two CNs
// (refused), but one with no CN of its own would read as victimfsp. Pass the RFC 4514 form
// wherever the CA does not choose every value it signs.

const ATTRIBUTE_TYPE = /^(?:[A-Za-z][A-Za-z0-9-]*|(?:0|[1-9]\d*)(?:\.(?:0|[1-9]\d*))+)$/;
const ESCAPABLE = new Set(['\\', '"', '+', ',', ';', '<', '>', '=', '#', ' ']);
const NEVER_UNESCAPED = new Set(['"', ';', '<', '>', '\0']);
const HEX_PAIR = /^[0-9A-Fa-f]{2}$/;
const BER_VALUE = /^#(?:[0-9A-Fa-f]{2})+$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

class Unparseable extends Error {}

/** The byte an escape at `text[index]` (a "\\") stands for, and how many characters it takes. */
function readEscape(text, index) {
  if (ESCAPABLE.has(text[index + 1])) return { byte: text.charCodeAt(index + 1), length: 2 };
  const pair = text.slice(index + 1, index + 3);
  if (HEX_PAIR.test(pair)) return { byte: Number.parseInt(pair, 16), length: 3 };
  throw new Unparseable();
}

/**
 * Reads one attribute value of the RFC 4514 form from `text` at `start`, up to an unescaped
 * "," or "+" or the end: `{ value, encoded, end }` (end: the index of that separator).
 */
function readValue(text, start) {
  let end = start;
  while (end < text.length && text[end] !== ',' && text[end] !== '+') end += text[end] === '\\' ? 2 : 1;
  if (text[start] === '#') {
    const written = text.slice(start, end);
    if (!BER_VALUE.test(written)) throw new Unparseable();
    return { value: written, encoded: true, end };
  }
  const parts = [];
  let run = '';
  let endsInUnescapedSpace = false;
  for (let index = start; index < end;) {
    const character = text[index];
    if (NEVER_UNESCAPED.has(character)) throw new Unparseable();
    endsInUnescapedSpace = character === ' ';
    if (character !== '\\') {
      run += character;
      index += 1;
      continue;
    }
    const { byte, length } = readEscape(text, index);
    parts.push(Buffer.from(run, 'utf8'), Buffer.of(byte));
    run = '';
    index += length;
  }
  parts.push(Buffer.from(run, 'utf8'));
  if (text[start] === ' ' || endsInUnescapedSpace) throw new Unparseable();
  try {
    return { value: utf8.decode(Buffer.concat(parts)), encoded: false, end };
  } catch {
    throw new Unparseable();
  }
}

/** The RFC 4514 form: a list of RDNs, each a list of `{ type, value, encoded }`. */
function parseRfc4514(text) {
  const rdns = [];
  if (text === '') return rdns;
  let rdn = [];
  for (let index = 0; ;) {
    while (text[index] === ' ') index += 1;
    const equals = text.indexOf('=', index);
    const type = text.slice(index, Math.max(equals, index));
    if (!ATTRIBUTE_TYPE.test(type)) throw new Unparseable();
    const { value, encoded, end } = readValue(text, equals + 1);
    rdn.push({ type, value, encoded });
    if (end >= text.length) return [...rdns, rdn];
    if (text[end] === ',') {
      rdns.push(rdn);
      rdn = [];
    }
    // After a separator another attribute must follow: "CN=a," has an empty RDN and is refused.
    index = end + 1;
  }
}

/** OpenSSL's legacy form: one RDN per `/type=value`, values literal. */
function parseLegacy(text) {
  return text.slice(1).split('/').map((part) => {
    const equals = part.indexOf('=');
    const type = part.slice(0, equals);
    if (equals === -1 || !ATTRIBUTE_TYPE.test(type)) throw new Unparseable();
    return [{ type, value: part.slice(equals + 1), encoded: false }];
  });
}

/**
 * The RDNs of a subject in either form (a list of lists of `{ type, value, encoded }`, in
 * the order written), or undefined if it does not parse. An empty name has no RDNs.
 */
export function parseDistinguishedName(text) {
  if (typeof text !== 'string') return undefined;
  try {
    return text.startsWith('/') ? parseLegacy(text) : parseRfc4514(text);
  } catch (error) {
    if (error instanceof Unparseable) return undefined;
    throw error;
  }
}
