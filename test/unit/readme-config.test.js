// Every environment variable the processes read is documented in README.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { OPERATOR_TOKEN_VARIABLES } from '../../platform/config.js';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const config = readFileSync(new URL('platform/config.js', root), 'utf8');

test('README documents every variable platform/config.js reads', () => {
  const names = [...config.matchAll(/read(?:String|Integer)\(env, '([A-Z0-9_]+)'/g)].map((match) => match[1]);
  // The operator tokens are read from a table, each from its variable or a file it names.
  names.push(...Object.values(OPERATOR_TOKEN_VARIABLES).flatMap((name) => [name, `${name}_FILE`]));
  assert.ok(names.length >= 20, 'the variables were found');
  const missing = names.filter((name) => !readme.includes(`\`${name}\``));
  assert.deepEqual(missing, []);
});
