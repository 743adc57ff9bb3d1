// platform/http/operator-audit.js with `everyAttempt` (as the settlement API runs it) on a
// real HTTP server with the operator tokens, against a real MariaDB: a change that fails
// (a bug after its write) is rolled back and still recorded, with what was asked and the
// state it failed against; a read-only token's write is recorded as refused; a call without
// a known token is not recorded. The routes are the test's own, so the failures are certain.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { createTestDatabase, operatorTokens, testConfig } from '../support/environment.js';
import { createHttpServer, failureResponse, jsonResponse, RAW_JSON_PAYLOAD } from '../../platform/http/server.js';
import { createOperatorAudit } from '../../platform/http/operator-audit.js';
import { OPERATOR_API, operatorHeaders, requireOperatorTokens } from '../../platform/http/operator-auth.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { createMetrics } from '../../platform/metrics.js';
import { insertAuditEntry } from '../../ledger/repositories/operator-audit.js';

let env;
let server;
let baseUrl;

/** The probe's one value: what the routes change. */
const valueOf = async (db) => (await db('audit_probe').where({ id: 1 }).first('value')).value;

before(async () => {
  env = await createTestDatabase();
  await env.db.schema.createTable('audit_probe', (table) => {
    table.integer('id').primary();
    table.string('value', 64).notNullable();
  });
  await env.db('audit_probe').insert({ id: 1, value: 'initial' });
  const config = testConfig({ SERVICE_NAME: 'audit-test' }, { operatorApi: true });
  const logger = pino({ level: 'silent' });
  server = createHttpServer({ port: 0, host: '127.0.0.1', logger, metrics: createMetrics(config), health: async () => ({}) });
  // Scoped as the settlement API, whose every attempt this audit records.
  requireOperatorTokens(server, config.operatorAuth, OPERATOR_API.settlement);
  const audit = createOperatorAudit({
    db: env.db, api: 'probe', snapshot: async (db) => ({ value: await valueOf(db) }), record: insertAuditEntry, everyAttempt: true, logger,
  });
  server.route(audit.auditWrites([
    {
      method: 'PUT',
      path: '/probe/{value}',
      options: { payload: RAW_JSON_PAYLOAD },
      handler: async (request, h) => {
        await audit.db('audit_probe').where({ id: 1 }).update({ value: request.params.value });
        if (request.params.value === 'bug') throw new Error('a bug after the write');
        return jsonResponse(h, { value: request.params.value });
      },
    },
    { method: 'POST', path: '/refuse', options: { payload: RAW_JSON_PAYLOAD }, handler: (request, h) => failureResponse(h, failure(FAILURE.validation, 'not today')) },
  ]));
  await server.start();
  baseUrl = `http://127.0.0.1:${server.info.port}`;
});

after(async () => {
  await server?.stop();
  await env?.drop();
});

async function call(method, path, { scope = 'readWrite', body } = {}) {
  const token = scope ? operatorTokens()[scope] : undefined;
  const response = await fetch(`${baseUrl}${path}`, { method, headers: { ...operatorHeaders(token), 'content-type': 'application/json' }, body });
  return { status: response.status, body: await response.json() };
}

async function entriesAfter(id) {
  return env.db('operator_audit').where('api', 'probe').where('id', '>', id).orderBy('id');
}

const lastId = async () => (await env.db('operator_audit').max({ id: 'id' }).first()).id ?? 0;

test('a change that fails is rolled back and recorded: 500 with 2001, what was asked, the state before, nothing after', async () => {
  const since = await lastId();
  const failed = await call('PUT', '/probe/bug', { body: '{"why": "to see it fail", "amount": 12345678901234.5678}' });
  assert.deepEqual([failed.status, failed.body.errorInformation.errorCode], [500, '2001']);
  assert.equal(await valueOf(env.db), 'initial', 'the write was rolled back');
  const [entry] = await entriesAfter(since);
  assert.ok(entry, 'the failure is in the trail');
  assert.deepEqual([entry.status, entry.error_code, entry.actor, entry.method, entry.route], [500, '2001', 'operator:read-write', 'PUT', '/probe/{value}']);
  assert.equal(entry.request, '{"why": "to see it fail", "amount": 12345678901234.5678}', 'what was asked, as sent');
  assert.deepEqual([JSON.parse(entry.before), entry.after], [{ value: 'initial' }, null]);
});

test('a success is recorded in its transaction; a refusal after it with the state refused against; a read-only write as 403; no token leaves nothing', async () => {
  const since = await lastId();
  assert.equal((await call('PUT', '/probe/second')).status, 200);
  assert.equal((await call('POST', '/refuse', { body: '{"please": true}' })).status, 400);
  assert.equal((await call('PUT', '/probe/third', { scope: 'readOnly', body: '{}' })).status, 403);
  assert.equal((await call('PUT', '/probe/fourth', { scope: null })).status, 401);
  assert.equal(await valueOf(env.db), 'second');

  const [changed, refused, forbidden, ...rest] = await entriesAfter(since);
  assert.deepEqual(rest, [], 'a call without a known token is not recorded');
  assert.deepEqual([changed.status, changed.error_code, changed.request, JSON.parse(changed.before), JSON.parse(changed.after)],
    [200, null, null, { value: 'initial' }, { value: 'second' }]);
  assert.deepEqual([refused.status, refused.error_code, refused.error_description], [400, '3100', 'Generic validation error - not today']);
  assert.deepEqual([JSON.parse(refused.request), JSON.parse(refused.before), JSON.parse(refused.after)], [{ please: true }, { value: 'second' }, { value: 'second' }]);
  assert.deepEqual([forbidden.status, forbidden.error_code, forbidden.actor, forbidden.before], [403, '3000', 'operator:read-only', null]);
});
