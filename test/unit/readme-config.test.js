// Every environment variable the processes read is documented in README.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { OPERATOR_TOKEN_VARIABLES } from '../../platform/config.js';
import { imageContents } from '../support/image-contents.js';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
// platform/config.js reads what every process shares, each context's reader (quoting/config.js,
// account-lookup/config.js, ...) its own settings: every file of the switch's image is scanned.
const readers = imageContents(root.pathname).files.filter((file) => file.endsWith('.js'))
  .map((file) => ({ file, text: readFileSync(new URL(file, root), 'utf8') }))
  .filter(({ text }) => /\bread(?:String|Integer|Boolean)\(env, '/.test(text));

test('README documents every variable platform/config.js and the contexts\' readers read', () => {
  assert.ok(['platform/config.js', 'platform/delivery/config.js', 'handlers/notification/config.js', 'quoting/config.js', 'account-lookup/config.js'].every((file) => readers.some((reader) => reader.file === file)), readers.map(({ file }) => file).join(', '));
  const names = readers.flatMap(({ text }) => [...text.matchAll(/read(?:String|Integer|Boolean)\(env, '([A-Z0-9_]+)'/g)].map((match) => match[1]));
  // The operator tokens are read from a table, each from its variable or a file it names.
  names.push(...Object.values(OPERATOR_TOKEN_VARIABLES).flatMap((name) => [name, `${name}_FILE`]));
  assert.ok(names.includes('QUOTES_PERSIST') && names.includes('ORACLE_PORT') && names.length >= 20, 'the variables were found');
  const missing = names.filter((name) => !readme.includes(`\`${name}\``));
  assert.deepEqual(missing, []);
});
