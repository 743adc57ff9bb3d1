import js from '@eslint/js';
import globals from 'globals';

// The pure domain (ledger/domain) decides on values it is given: it may import only its
// own modules and node:crypto (hashing is computation, not I/O). No database, Kafka, HTTP,
// config, logger, process, console, timers or clock reads.
export const DOMAIN_RULES = {
  'no-restricted-imports': ['error', {
    patterns: [{
      regex: '^(?!\\./[\\w-]+\\.js$|node:crypto$)',
      message: 'ledger/domain is pure: import only sibling domain modules (and node:crypto).',
    }],
  }],
  'no-restricted-globals': ['error',
    ...['process', 'console', 'fetch', 'setTimeout', 'setInterval', 'setImmediate', 'require'].map((name) => ({
      name, message: 'ledger/domain does no I/O, reads no config and keeps no timers; pass values in.',
    }))],
  'no-restricted-properties': ['error', { object: 'Date', property: 'now', message: 'Pass `now` in; the domain reads no clock.' }],
  'no-restricted-syntax': ['error', {
    selector: "NewExpression[callee.name='Date'][arguments.length=0]",
    message: 'Pass `now` in; the domain reads no clock.',
  }, {
    selector: 'ImportExpression',
    message: 'ledger/domain loads no modules at run time.',
  }],
};

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
  { files: ['ledger/domain/**/*.js'], rules: DOMAIN_RULES },
];
