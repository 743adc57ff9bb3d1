// The architecture is enforced by ESLint: domain code is pure, and platform/ depends on no
// bounded context. This proves each rule fires on the kinds of import and call it exists to
// stop, and that the real folders pass it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ESLint } from 'eslint';
import { DOMAIN_FOLDERS } from '../../eslint.config.js';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function ruleErrors(code, filePath) {
  const [result] = await eslint.lintText(code, { filePath });
  return result.messages.map((message) => message.ruleId);
}

const domainErrors = (code) => ruleErrors(code, 'ledger/domain/probe.js');

test('domain code may not import I/O, config or loggers, nor read the clock or process', async () => {
  assert.deepEqual(await domainErrors("import knex from 'knex';\nexport const a = knex;\n"), ['no-restricted-imports']);
  assert.deepEqual(await domainErrors("import { loadConfig } from '../../platform/config.js';\nexport const a = loadConfig;\n"), ['no-restricted-imports']);
  assert.deepEqual(await domainErrors("import pino from 'pino';\nexport const a = pino;\n"), ['no-restricted-imports']);
  assert.deepEqual(await domainErrors("import fs from 'node:fs';\nexport const a = fs;\n"), ['no-restricted-imports']);
  assert.deepEqual(await domainErrors('export const a = () => process.env.X;\n'), ['no-restricted-globals']);
  assert.deepEqual(await domainErrors('export const a = () => Date.now();\n'), ['no-restricted-properties']);
  assert.deepEqual(await domainErrors('export const a = () => new Date();\n'), ['no-restricted-syntax']);
});

test('domain code may import its siblings, the shared kernel and node:crypto', async () => {
  assert.deepEqual(await domainErrors("import { x } from './money.js';\nimport { createHash } from 'node:crypto';\nexport const a = [x, createHash];\n"), []);
  assert.deepEqual(await ruleErrors("import { FAILURE } from '../../platform/domain/failures.js';\nexport const a = FAILURE;\n", 'quoting/domain/probe.js'), []);
  assert.deepEqual(await ruleErrors("import { OUTCOME } from '../../ledger/domain/outcomes.js';\nexport const a = OUTCOME;\n", 'quoting/domain/probe.js'), ['no-restricted-imports']);
  assert.deepEqual(await ruleErrors("import { requestHash } from '../../platform/kafka/envelope.js';\nexport const a = requestHash;\n", 'quoting/domain/probe.js'), ['no-restricted-imports']);
});

test('the domain folder of every bounded context is under the rules, account lookup included', async () => {
  assert.ok(DOMAIN_FOLDERS.includes('account-lookup/domain'));
  for (const folder of DOMAIN_FOLDERS) {
    const probe = `${folder}/probe.js`;
    assert.deepEqual(await ruleErrors("import { findParty } from '../oracle/repository.js';\nexport const a = findParty;\n", probe), ['no-restricted-imports'], probe);
    assert.deepEqual(await ruleErrors('export const a = () => Date.now();\n', probe), ['no-restricted-properties'], probe);
    assert.deepEqual(await ruleErrors("import { partyKey } from './parties.js';\nexport const a = partyKey;\n", probe), [], probe);
  }
});

test('platform/ imports nothing from outside platform/, at any depth', async () => {
  const ledgerImport = (depth) => `import { a } from '${'../'.repeat(depth)}ledger/domain/outcomes.js';\nexport const b = a;\n`;
  assert.deepEqual(await ruleErrors(ledgerImport(1), 'platform/probe.js'), ['no-restricted-imports']);
  assert.deepEqual(await ruleErrors(ledgerImport(2), 'platform/http/probe.js'), ['no-restricted-imports']);
  assert.deepEqual(await ruleErrors(ledgerImport(3), 'platform/kafka/deep/probe.js'), ['no-restricted-imports']);
  assert.deepEqual(await ruleErrors("import { FAILURE } from '../domain/failures.js';\nexport const a = FAILURE;\n", 'platform/http/probe.js'), []);
  assert.deepEqual(await ruleErrors("import knex from 'knex';\nexport const a = knex;\n", 'platform/probe.js'), []);
});

test('the real domain folders and platform/ pass the rules', async () => {
  const results = await eslint.lintFiles([...DOMAIN_FOLDERS.map((folder) => `${folder}/**/*.js`), 'platform/**/*.js']);
  const problems = results.flatMap((result) => result.messages.map((message) => `${result.filePath}: ${message.message}`));
  assert.deepEqual(problems, []);
  assert.ok(results.length >= 20, 'the domain and platform files were linted');
});
