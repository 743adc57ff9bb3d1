// README.md's code layout table matches the tree: every folder it names exists, and every
// top-level folder of the repository has a row (its own, or one of a folder inside it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const table = readme.slice(readme.indexOf('| folder | what is in it |'));
const rows = table.slice(0, table.indexOf('\n\n')).split('\n').slice(2);
// The first cell's paths: `ledger/domain/`, or several (`test/unit/`, `test/repositories/`).
const folders = rows.flatMap((row) => [...row.split(' | ')[0].matchAll(/`([^`]+\/)`/g)].map((match) => match[1]));

test('every folder of README.md\'s layout table exists', () => {
  assert.ok(folders.includes('tools/') && folders.includes('scripts/') && folders.includes('test/cluster/'), folders.join(', '));
  assert.deepEqual(folders.filter((folder) => !existsSync(join(root, folder)) || !statSync(join(root, folder)).isDirectory()), []);
});

test('every top-level folder of the repository has a row in README.md\'s layout table', () => {
  const local = new Set(['node_modules']);
  const topLevel = readdirSync(root).filter((name) => !name.startsWith('.') && !local.has(name) && statSync(join(root, name)).isDirectory());
  assert.deepEqual(topLevel.filter((name) => !folders.some((folder) => folder.startsWith(`${name}/`))), []);
});
