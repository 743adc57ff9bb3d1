// The architecture is enforced by ESLint: domain code is pure, platform/ depends on no
// bounded context, and a context imports no other context's internals. This proves each rule fires on the kinds of import and call it exists to
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
  assert.ok((await ruleErrors("import { OUTCOME } from '../../ledger/domain/outcomes.js';\nexport const a = OUTCOME;\n", 'quoting/domain/probe.js')).includes('no-restricted-imports'));
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

const BOUNDARY = 'architecture/context-boundaries';

test('platform/ imports nothing from outside platform/, at any depth', async () => {
  const ledgerImport = (depth) => `import { a } from '${'../'.repeat(depth)}ledger/domain/outcomes.js';\nexport const b = a;\n`;
  assert.deepEqual(await ruleErrors(ledgerImport(1), 'platform/probe.js'), [BOUNDARY]);
  assert.deepEqual(await ruleErrors(ledgerImport(2), 'platform/http/probe.js'), [BOUNDARY]);
  assert.deepEqual(await ruleErrors(ledgerImport(3), 'platform/kafka/deep/probe.js'), [BOUNDARY]);
  assert.deepEqual(await ruleErrors("import { a } from '../../scripts/lib/ports.js';\nexport const b = a;\n", 'platform/http/probe.js'), [BOUNDARY]);
  assert.deepEqual(await ruleErrors("import { FAILURE } from '../domain/failures.js';\nexport const a = FAILURE;\n", 'platform/http/probe.js'), []);
  assert.deepEqual(await ruleErrors("import knex from 'knex';\nexport const a = knex;\n", 'platform/probe.js'), []);
});

test("a bounded context imports only itself, platform/ and another context's published ports", async () => {
  const importing = (specifier, filePath) => ruleErrors(`import { a } from '${specifier}';\nexport const b = a;\n`, filePath);
  // Another context's internals, however they are reached (import, re-export, dynamic import).
  assert.deepEqual(await importing('../ledger/repositories/participants.js', 'account-lookup/probe.js'), [BOUNDARY]);
  assert.deepEqual(await importing('../../handlers/notification/deliver.js', 'account-lookup/admin/probe.js'), [BOUNDARY]);
  assert.deepEqual(await importing('../../quoting/domain/quotes.js', 'handlers/prepare/probe.js'), [BOUNDARY]);
  assert.deepEqual(await importing('../ledger/domain/money.js', 'handlers/notification/probe.js'), [BOUNDARY]);
  assert.deepEqual(await ruleErrors("export { a } from '../ledger/domain/money.js';\n", 'quoting/probe.js'), [BOUNDARY]);
  assert.deepEqual(await ruleErrors("export const a = () => import('../ledger/domain/money.js');\n", 'api-adapter/probe.js'), [BOUNDARY]);
  // Product code imports no tooling.
  assert.deepEqual(await importing('../scripts/lib/ports.js', 'quoting/probe.js'), [BOUNDARY]);
  assert.deepEqual(await importing('../../test/support/switch.js', 'ledger/admin-api/probe.js'), [BOUNDARY]);
  // Allowed: itself, platform/, the ledger's published ports; the transfer handlers are the ledger's processes.
  assert.deepEqual(await importing('../ledger/ports/participant-directory.js', 'quoting/probe.js'), []);
  assert.deepEqual(await importing('../platform/metrics.js', 'account-lookup/probe.js'), []);
  assert.deepEqual(await importing('./domain/quotes.js', 'quoting/probe.js'), []);
  assert.deepEqual(await importing('../../ledger/domain/prepare.js', 'handlers/prepare/probe.js'), []);
  assert.deepEqual(await importing('../ledger/repositories/transfers.js', 'handlers/probe.js'), []);
  // Tooling and tests may import any context.
  assert.deepEqual(await importing('../ledger/repositories/participants.js', 'scripts/probe.js'), []);
});

test('every product folder passes the context boundaries', async () => {
  const results = await eslint.lintFiles(['platform', 'ledger', 'handlers', 'quoting', 'account-lookup', 'api-adapter']);
  const problems = results.flatMap((result) => result.messages.filter((message) => message.ruleId === BOUNDARY)
    .map((message) => `${result.filePath}: ${message.message}`));
  assert.deepEqual(problems, []);
  assert.ok(results.length >= 100, 'the product folders were linted');
});

test('the real domain folders and platform/ pass the rules', async () => {
  const results = await eslint.lintFiles([...DOMAIN_FOLDERS.map((folder) => `${folder}/**/*.js`), 'platform/**/*.js']);
  const problems = results.flatMap((result) => result.messages.map((message) => `${result.filePath}: ${message.message}`));
  assert.deepEqual(problems, []);
  assert.ok(results.length >= 20, 'the domain and platform files were linted');
});
