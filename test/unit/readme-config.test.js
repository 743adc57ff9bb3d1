// Every environment variable the processes read is documented in README.md.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { OPERATOR_TOKEN_VARIABLES } from '../../platform/config.js';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');

/**
 * The configuration readers: platform/config.js, and the config.js beside the code whose
 * settings only some processes need (platform/delivery/config.js, handlers/notification/config.js),
 * which the composition roots call on the same environment after loadConfig.
 */
function configReaders(folder = root) {
  const found = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || ['node_modules', 'test', 'perf'].includes(entry.name)) continue;
    if (entry.isDirectory()) found.push(...configReaders(new URL(`${entry.name}/`, folder)));
    else if (entry.name === 'config.js') found.push(new URL(entry.name, folder));
  }
  return found;
}

const readerFiles = configReaders();
const readers = readerFiles.map((url) => readFileSync(url, 'utf8')).join('\n');

test('README documents every variable the configuration readers read', () => {
  const names = [...readers.matchAll(/read(?:String|Integer|Boolean)\(env, '([A-Z0-9_]+)'/g)].map((match) => match[1]);
  // The operator tokens are read from a table, each from its variable or a file it names.
  names.push(...Object.values(OPERATOR_TOKEN_VARIABLES).flatMap((name) => [name, `${name}_FILE`]));
  assert.ok(readerFiles.some((url) => url.pathname.endsWith('/platform/delivery/config.js')), 'the readers were found');
  assert.ok(names.length >= 20, 'the variables were found');
  const missing = names.filter((name) => !readme.includes(`\`${name}\``));
  assert.deepEqual(missing, []);
});
