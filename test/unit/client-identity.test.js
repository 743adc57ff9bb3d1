// The subject names ingresses pass for a verified client certificate: the DFSP is the value of
// its one CN attribute, read by a real distinguished-name parser (RFC 4514 with its escapes,
// and OpenSSL's legacy form), never by a pattern that an escaped value can fool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commonNameOf } from '../../platform/fspiop/client-identity.js';
import { parseDistinguishedName } from '../../platform/fspiop/distinguished-name.js';

const attribute = (type, value, encoded = false) => ({ type, value, encoded });

test('the DFSP named by a verified subject is its CN, in RFC 4514 or OpenSSL order', () => {
  assert.equal(commonNameOf('CN=payerfsp,O=Scheme,C=ZA'), 'payerfsp');
  assert.equal(commonNameOf('O=Scheme, CN=payerfsp'), 'payerfsp', 'a space after the comma, as Java writes it');
  assert.equal(commonNameOf('/C=ZA/O=Scheme/CN=payerfsp'), 'payerfsp');
  assert.equal(commonNameOf('cn=payerfsp,o=Scheme'), 'payerfsp', 'attribute types are case-insensitive');
  assert.equal(commonNameOf('2.5.4.3=payerfsp,O=Scheme'), 'payerfsp', 'the CN by its OID');
  assert.equal(commonNameOf('O=Scheme,OU=CN=payerfsp'), undefined, 'a CN inside another attribute\'s value is not the CN');
  assert.equal(commonNameOf('O=Scheme'), undefined);
  assert.equal(commonNameOf(''), undefined);
  assert.equal(commonNameOf(undefined), undefined);
});

test('an escaped comma is part of a value: O=Evil\\,CN=victimfsp is one O, and the one CN is mallory', () => {
  const subject = 'O=Evil\\,CN=victimfsp,CN=mallory';
  assert.deepEqual(parseDistinguishedName(subject), [[attribute('O', 'Evil,CN=victimfsp')], [attribute('CN', 'mallory')]]);
  assert.equal(commonNameOf(subject), 'mallory');
  assert.equal(commonNameOf('CN=mallory,O=Evil\\,CN=victimfsp'), 'mallory', 'whichever comes first');
  assert.equal(commonNameOf('O=Evil\\2CCN=victimfsp,CN=mallory'), 'mallory', 'the same comma as a hex pair');
  assert.equal(commonNameOf('O=Evil\\+CN=victimfsp,CN=mallory'), 'mallory', 'an escaped plus starts no attribute either');
});

test('more than one CN, or none, names nobody; so does a CN that is empty or BER-encoded', () => {
  assert.equal(commonNameOf('CN=a,CN=b'), undefined);
  assert.equal(commonNameOf('CN=payerfsp,CN=payerfsp'), undefined, 'even the same name twice');
  assert.equal(commonNameOf('CN=a+CN=b,O=Scheme'), undefined, 'two CNs in one multi-valued RDN');
  assert.equal(commonNameOf('CN=a,2.5.4.3=b'), undefined, 'a CN by name and one by OID');
  assert.equal(commonNameOf('/O=Scheme/CN=a/CN=b'), undefined);
  assert.equal(commonNameOf('CN=,O=Scheme'), undefined);
  assert.equal(commonNameOf('CN=#0c086d616c6c6f7279,O=Scheme'), undefined, 'a BER value is not decoded, so not read');
});

test('RFC 4514 escapes: the special characters, hex pairs as UTF-8 bytes, and anything else refused', () => {
  assert.deepEqual(parseDistinguishedName('CN=a\\,b\\+c\\"d\\\\e\\<f\\>g\\;h\\=i\\#j'), [[attribute('CN', 'a,b+c"d\\e<f>g;h=i#j')]]);
  assert.deepEqual(parseDistinguishedName('CN=\\#lead\\ ,O=\\ x'), [[attribute('CN', '#lead ')], [attribute('O', ' x')]]);
  assert.equal(commonNameOf('CN=\\70\\61yerfsp'), 'payerfsp', 'hex pairs in either case');
  assert.equal(commonNameOf('CN=caf\\c3\\a9'), 'café', 'hex pairs are the UTF-8 bytes of the value');
  assert.equal(commonNameOf('CN=a=b'), 'a=b', 'an unescaped "=" in a value is allowed by RFC 4514');
  for (const subject of ['CN=caf\\c3', 'CN=\\ff', 'CN=\\4', 'CN=\\zz', 'CN=a\\', 'CN=a\\q']) {
    assert.equal(parseDistinguishedName(subject), undefined, `${subject}: a broken escape or invalid UTF-8`);
  }
  for (const subject of ['CN=a"b', 'CN="payerfsp"', 'CN=a;O=b', 'CN=a<b', 'CN=a>b', 'CN=a\0b']) {
    assert.equal(parseDistinguishedName(subject), undefined, `${JSON.stringify(subject)}: a character that must be escaped`);
  }
});

test('multi-valued RDNs and BER-encoded values are read as RFC 4514 writes them', () => {
  assert.deepEqual(parseDistinguishedName('CN=payerfsp+UID=7,O=Scheme'), [[attribute('CN', 'payerfsp'), attribute('UID', '7')], [attribute('O', 'Scheme')]]);
  assert.equal(commonNameOf('OU=Payments+CN=payerfsp,O=Scheme'), 'payerfsp');
  assert.deepEqual(parseDistinguishedName('1.2.840.113549.1.9.1=#160b6140622e6578616d706c65,CN=x'), [
    [attribute('1.2.840.113549.1.9.1', '#160b6140622e6578616d706c65', true)], [attribute('CN', 'x')],
  ]);
  assert.equal(parseDistinguishedName('O=#0c0'), undefined, 'an odd number of hex digits');
  assert.equal(parseDistinguishedName('O=#zz'), undefined);
});

test('whitespace: spaces may follow a separator; an unescaped space at either end of a value, or beside "=", is refused', () => {
  assert.equal(commonNameOf('O=Scheme,  CN=payerfsp'), 'payerfsp');
  assert.equal(commonNameOf('UID=7+ CN=payerfsp'), 'payerfsp');
  assert.equal(commonNameOf('CN=payer fsp'), 'payer fsp', 'a space inside a value is part of it');
  for (const subject of ['CN=payerfsp ', 'CN= payerfsp', 'CN =payerfsp', 'CN=payerfsp ,O=Scheme', 'O=Scheme,CN=payerfsp\\\\ ']) {
    assert.equal(parseDistinguishedName(subject), undefined, JSON.stringify(subject));
  }
  assert.equal(commonNameOf('CN=payerfsp\\ '), 'payerfsp ', 'an escaped trailing space is kept, so it is not payerfsp');
});

test('a name that does not parse names nobody: empty RDNs, bad attribute types', () => {
  for (const subject of ['CN=a,', 'CN=a, ', ',CN=a', 'CN=a,,O=b', 'CN=a+', '+CN=a', 'payerfsp', '=payerfsp', 'C N=a', '1.=a', '01.2=a', 'OID.2.5.4.3=a', '  ']) {
    assert.equal(parseDistinguishedName(subject), undefined, JSON.stringify(subject));
    assert.equal(commonNameOf(subject), undefined, JSON.stringify(subject));
  }
  assert.deepEqual(parseDistinguishedName(''), [], 'the empty name has no RDNs');
  assert.equal(parseDistinguishedName(['CN=a', 'CN=b']), undefined, 'only text is a name');
});

test('the OpenSSL legacy form: "/" separates, values are literal, and a "/" inside a value cannot be told apart', () => {
  assert.deepEqual(parseDistinguishedName('/C=ZA/O=Scheme, Inc./CN=payerfsp'), [[attribute('C', 'ZA')], [attribute('O', 'Scheme, Inc.')], [attribute('CN', 'payerfsp')]]);
  assert.equal(commonNameOf('/O=Evil,CN=victimfsp/CN=mallory'), 'mallory', 'a comma is part of a value in this form');
  assert.equal(commonNameOf('/O=a=b/CN=payerfsp'), 'payerfsp', 'the first "=" ends the type');
  assert.equal(commonNameOf('/CN=pay\\x65rfsp'), 'pay\\x65rfsp', 'OpenSSL\'s \\xHH stays as written: no escaping in this form');
  // OpenSSL writes an O of "Evil/CN=victimfsp" unescaped; with mallory's own CN that is two CNs.
  assert.equal(commonNameOf('/O=Evil/CN=victimfsp/CN=mallory'), undefined);
  for (const subject of ['/', '/O=Scheme/', '//CN=a', '/CN', '/=a', '/C N=a']) {
    assert.equal(parseDistinguishedName(subject), undefined, JSON.stringify(subject));
  }
});
