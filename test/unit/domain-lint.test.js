// The domain's purity is enforced by ESLint; this proves the rule fires on the kinds of
// import and call it exists to stop, and that the real domain folder passes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function domainErrors(code) {
  const [result] = await eslint.lintText(code, { filePath: 'ledger/domain/probe.js' });
  return result.messages.map((message) => message.ruleId);
}

test('domain code may not import I/O, config or loggers, nor read the clock or process', async () => {
  assert.deepEqual(await domainErrors("import knex from 'knex';\nexport const a = knex;\n"), ['no-restricted-imports']);
  assert.deepEqual(await domainErrors("import { loadConfig } from '../../platform/config.js';\nexport const a = loadConfig;\n"), ['no-restricted-imports']);
  assert.deepEqual(await domainErrors("import pino from 'pino';\nexport const a = pino;\n"), ['no-restricted-imports']);
  assert.deepEqual(await domainErrors("import fs from 'node:fs';\nexport const a = fs;\n"), ['no-restricted-imports']);
  assert.deepEqual(await domainErrors('export const a = () => process.env.X;\n'), ['no-restricted-globals']);
  assert.deepEqual(await domainErrors('export const a = () => Date.now();\n'), ['no-restricted-properties']);
  assert.deepEqual(await domainErrors('export const a = () => new Date();\n'), ['no-restricted-syntax']);
});

test('domain code may import its siblings and node:crypto', async () => {
  assert.deepEqual(await domainErrors("import { x } from './money.js';\nimport { createHash } from 'node:crypto';\nexport const a = [x, createHash];\n"), []);
});

test('the real domain folder passes the rule', async () => {
  const results = await eslint.lintFiles(['ledger/domain/**/*.js']);
  const problems = results.flatMap((result) => result.messages.map((message) => `${result.filePath}: ${message.message}`));
  assert.deepEqual(problems, []);
  assert.ok(results.length >= 6, 'the domain files were linted');
});
