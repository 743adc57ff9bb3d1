// Operator API settings: tokens are secrets without defaults, read from the environment or a
// file (a mounted Kubernetes Secret); servers bind to loopback unless told otherwise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, OPERATOR_TOKEN_VARIABLES, loadConfig } from '../../platform/config.js';

const BASE = { DB_PASSWORD: 'x' };
const TOKENS = {
  OPERATOR_TOKEN_READ_WRITE: 'read-write-token-0123',
  OPERATOR_TOKEN_READ_ONLY: 'read-only-token-01234',
  OPERATOR_TOKEN_ORACLE_WRITE: 'oracle-write-token-0123',
  OPERATOR_TOKEN_DFSP_DIRECTORY_READ: 'dfsp-directory-token-0123',
};
const serving = (env) => loadConfig({ ...BASE, ...env }, { operatorApi: true });
const without = (variable) => Object.fromEntries(Object.entries(TOKENS).filter(([name]) => name !== variable));

test('a process serving an operator API needs every token, to tell a known token out of scope from a stranger', () => {
  assert.deepEqual(serving(TOKENS).operatorAuth, {
    required: true,
    tokens: {
      readWrite: TOKENS.OPERATOR_TOKEN_READ_WRITE, readOnly: TOKENS.OPERATOR_TOKEN_READ_ONLY,
      oracleWrite: TOKENS.OPERATOR_TOKEN_ORACLE_WRITE, dfspDirectoryRead: TOKENS.OPERATOR_TOKEN_DFSP_DIRECTORY_READ,
    },
  });
  for (const variable of Object.values(OPERATOR_TOKEN_VARIABLES)) {
    assert.throws(() => serving(without(variable)), new RegExp(`${variable} is required`), variable);
  }
});

test('tokens are at least 16 characters and no two are the same', () => {
  assert.throws(() => serving({ ...TOKENS, OPERATOR_TOKEN_READ_ONLY: 'short' }), /at least 16 characters/);
  assert.throws(() => serving({ ...TOKENS, OPERATOR_TOKEN_READ_ONLY: TOKENS.OPERATOR_TOKEN_READ_WRITE }), /OPERATOR_TOKEN_READ_ONLY must differ from OPERATOR_TOKEN_READ_WRITE/);
  assert.throws(
    () => serving({ ...TOKENS, OPERATOR_TOKEN_DFSP_DIRECTORY_READ: TOKENS.OPERATOR_TOKEN_ORACLE_WRITE }),
    /OPERATOR_TOKEN_DFSP_DIRECTORY_READ must differ from OPERATOR_TOKEN_ORACLE_WRITE/,
  );
});

test('a token may come from a file, trimmed; an unreadable file stops the process', () => {
  const dir = mkdtempSync(join(tmpdir(), 'operator-token-'));
  writeFileSync(join(dir, 'rw'), 'read-write-token-from-a-file\n');
  writeFileSync(join(dir, 'oracle'), 'oracle-write-token-from-a-file\n');
  const config = serving({ ...without('OPERATOR_TOKEN_READ_WRITE'), OPERATOR_TOKEN_READ_WRITE_FILE: join(dir, 'rw'), OPERATOR_TOKEN_ORACLE_WRITE_FILE: join(dir, 'oracle') });
  assert.equal(config.operatorAuth.tokens.readWrite, 'read-write-token-from-a-file');
  assert.equal(config.operatorAuth.tokens.oracleWrite, 'oracle-write-token-from-a-file', 'the file wins over the variable');
  assert.throws(() => serving({ ...TOKENS, OPERATOR_TOKEN_READ_ONLY_FILE: join(dir, 'missing') }), (error) => error instanceof ConfigError && /cannot be read/.test(error.message));
});

test('clients read only the tokens they use; OPERATOR_AUTH=off reads none', () => {
  const client = (names, env = TOKENS) => loadConfig({ ...BASE, ...env }, { operatorTokens: names }).operatorAuth.tokens;
  assert.deepEqual(client(['dfspDirectoryRead']), { dfspDirectoryRead: TOKENS.OPERATOR_TOKEN_DFSP_DIRECTORY_READ });
  assert.deepEqual(client(['oracleWrite', 'dfspDirectoryRead'], without('OPERATOR_TOKEN_READ_WRITE')), {
    oracleWrite: TOKENS.OPERATOR_TOKEN_ORACLE_WRITE, dfspDirectoryRead: TOKENS.OPERATOR_TOKEN_DFSP_DIRECTORY_READ,
  }, 'account lookup starts without the operator\'s tokens');
  assert.throws(() => client(['dfspDirectoryRead'], without('OPERATOR_TOKEN_DFSP_DIRECTORY_READ')), /OPERATOR_TOKEN_DFSP_DIRECTORY_READ is required/);
  assert.throws(() => client(['superuser']), /no operator token is called superuser/);
  assert.deepEqual(loadConfig(BASE).operatorAuth.tokens, {}, 'a process that neither serves nor calls needs none');
  assert.deepEqual(serving({ OPERATOR_AUTH: 'off' }).operatorAuth, { required: false, tokens: {} });
  assert.throws(() => serving({ ...TOKENS, OPERATOR_AUTH: 'optional' }), /OPERATOR_AUTH must be one of required, off/);
});

test('every server binds to 127.0.0.1 by default; operator APIs have their own setting', () => {
  assert.equal(loadConfig(BASE).httpHost, '127.0.0.1');
  assert.equal(serving(TOKENS).httpHost, '127.0.0.1');
  assert.equal(loadConfig({ ...BASE, HOST: '0.0.0.0' }).httpHost, '0.0.0.0');
  assert.equal(serving({ ...TOKENS, HOST: '0.0.0.0' }).httpHost, '127.0.0.1', 'opening the edges does not open the operator APIs');
  assert.equal(serving({ ...TOKENS, OPERATOR_HOST: '0.0.0.0' }).httpHost, '0.0.0.0');
});

test('callback URLs on link-local addresses are refused unless a lab allows them', () => {
  assert.equal(loadConfig(BASE).callbackUrlsAllowLinkLocal, false);
  assert.equal(loadConfig({ ...BASE, CALLBACK_URL_ALLOW_LINK_LOCAL: 'true' }).callbackUrlsAllowLinkLocal, true);
  assert.throws(() => loadConfig({ ...BASE, CALLBACK_URL_ALLOW_LINK_LOCAL: 'yes' }), /must be true or false/);
});
