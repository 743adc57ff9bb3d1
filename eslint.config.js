import js from '@eslint/js';
import globals from 'globals';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// A pure domain folder (`<context>/domain`, and the shared kernel `platform/domain`) decides
// on values it is given: it may import only its own modules, the shared kernel and
// node:crypto (hashing is computation, not I/O). No database, Kafka, HTTP, config, logger,
// process, console, timers or clock reads.
export const DOMAIN_FOLDERS = ['ledger/domain', 'quoting/domain', 'account-lookup/domain', 'platform/domain'];

export const DOMAIN_RULES = {
  'no-restricted-imports': ['error', {
    patterns: [{
      regex: '^(?!\\./[\\w-]+\\.js$|\\.\\./\\.\\./platform/domain/[\\w-]+\\.js$|node:crypto$)',
      message: 'domain code is pure: import only sibling domain modules, platform/domain (and node:crypto).',
    }],
  }],
  'no-restricted-globals': ['error',
    ...['process', 'console', 'fetch', 'setTimeout', 'setInterval', 'setImmediate', 'require'].map((name) => ({
      name, message: 'domain code does no I/O, reads no config and keeps no timers; pass values in.',
    }))],
  'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'Pass `now` in; the domain reads no clock.' }],
  'no-restricted-syntax': ['error', {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: 'Pass `now` in; the domain reads no clock.',
  }, {
    selector: 'ImportExpression',
    message: 'domain code loads no modules at run time.',
  }],
};

// The folders are the architecture. platform/ is the shared base every bounded context builds
// on, so dependencies point one way: into platform/, never out of it. A bounded context
// imports its own modules, platform/ and what another context publishes as its ports (the
// ledger's `ledger/ports/`), never another context's internals; and no product code imports
// tooling (scripts/, tools/, perf/, test/). The transfer handlers under handlers/ are the
// ledger's own processes; the notification handler is a context of its own.
export const CONTEXT_FOLDERS = Object.freeze({
  platform: ['platform'],
  ledger: ['ledger', 'handlers/prepare', 'handlers/position', 'handlers/fulfil', 'handlers/timeout',
    'handlers/dead-letters.js', 'handlers/transfer-records.js', 'handlers/transfer-metrics.js', 'handlers/bulk-records.js', 'handlers/bulk'],
  notification: ['handlers/notification'],
  quoting: ['quoting'],
  'account-lookup': ['account-lookup'],
  'api-adapter': ['api-adapter'],
  portal: ['portal'],
});
export const PUBLISHED_PORTS = Object.freeze(['ledger/ports']);

const REPOSITORY_ROOT = path.dirname(fileURLToPath(import.meta.url));

const isUnder = (file, folder) => file === folder || file.startsWith(`${folder}/`);

/** The context a repository-relative path belongs to (the longest folder that holds it), if any. */
export function contextOf(file) {
  let found;
  let foundLength = -1;
  for (const [name, folders] of Object.entries(CONTEXT_FOLDERS)) {
    for (const folder of folders) {
      if (isUnder(file, folder) && folder.length > foundLength) [found, foundLength] = [name, folder.length];
    }
  }
  return found;
}

/** Why `importer` may not import `target` (both repository-relative), or undefined when it may. */
export function boundaryProblem(importer, target) {
  const own = contextOf(importer);
  const other = contextOf(target);
  if (own === undefined || other === own) return undefined;
  if (own === 'platform') return 'platform/ imports nothing from the bounded contexts or tooling: pass what it needs in.';
  if (other === 'platform' || PUBLISHED_PORTS.some((folder) => isUnder(target, folder))) return undefined;
  if (other === undefined) return `${own} is product code: it imports no tooling (${target}).`;
  return `${own} may not import ${other}'s internals (${target}): use platform/ or ${other}'s published ports.`;
}

const contextBoundaries = {
  meta: { type: 'problem', schema: [], docs: { description: 'bounded contexts import only themselves, platform/ and published ports' } },
  create(context) {
    const importer = path.relative(REPOSITORY_ROOT, context.filename).split(path.sep).join('/');
    if (contextOf(importer) === undefined) return {};
    const check = (source) => {
      if (typeof source?.value !== 'string' || !source.value.startsWith('.')) return;
      const target = path.relative(REPOSITORY_ROOT, path.resolve(path.dirname(context.filename), source.value)).split(path.sep).join('/');
      const problem = boundaryProblem(importer, target);
      if (problem) context.report({ node: source, message: problem });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

export default [
  { ignores: ['node_modules/', '.cache/', '.tools/', '.run/', 'perf/results/', 'charts/', 'portal/dist/'] },
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: globals.node },
    rules: {
      'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
      eqeqeq: 'error',
      'prefer-const': 'error',
    },
  },
  { files: ['test/**/*.js', 'perf/**/*.js'], rules: { 'max-lines-per-function': 'off' } },
  // The portal's single-page application runs in the browser, bundled by portal/build.mjs: it
  // imports only its own modules and its libraries, never the switch's server code.
  {
    files: ['portal/app/**/*.js'],
    languageOptions: { globals: globals.browser },
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^\\.\\./\\.\\./', message: 'the portal\'s browser code imports only portal/app and its libraries.' }] }],
    },
  },
  { plugins: { architecture: { rules: { 'context-boundaries': contextBoundaries } } }, rules: { 'architecture/context-boundaries': 'error' } },
  { files: DOMAIN_FOLDERS.map((folder) => `${folder}/**/*.js`), rules: DOMAIN_RULES },
];
