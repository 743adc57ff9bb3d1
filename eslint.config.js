import js from '@eslint/js';
import globals from 'globals';

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

// platform/ is the shared base every bounded context builds on, so dependencies point one
// way: into platform/, never out of it. A relative import that climbs above platform/ is
// refused; how many `../` that takes depends on how deep the importing file sits.
const PLATFORM_DEPTHS_MAX = 3;
export const PLATFORM_RULES = Array.from({ length: PLATFORM_DEPTHS_MAX }, (_, depth) => ({
  files: [`platform/${'*/'.repeat(depth)}*.js`],
  rules: {
    'no-restricted-imports': ['error', {
      patterns: [{
        regex: `^(\\.\\./){${depth + 1}}`,
        message: 'platform/ imports nothing from the bounded contexts or handlers: pass what it needs in.',
      }],
    }],
  },
}));

export default [
  { ignores: ['node_modules/', '.cache/', '.tools/', '.run/', 'perf/results/', 'charts/'] },
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
  ...PLATFORM_RULES,
  { files: DOMAIN_FOLDERS.map((folder) => `${folder}/**/*.js`), rules: DOMAIN_RULES },
];
