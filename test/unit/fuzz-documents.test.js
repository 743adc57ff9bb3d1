// The documents the fuzzer is given (test/fuzz/): the admin API's, made from its route table,
// must cover every route with the schema its body is validated with; the FSPIOP one must keep
// the switch's resources, drop what it declares not served, and hold no pattern Schemathesis
// cannot generate from (an operation it would otherwise skip without a word).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adminOpenApiDocument, alsAdminOpenApiDocument } from '../fuzz/admin-openapi.js';
import { fuzzedFspiopDocument } from '../fuzz/fspiop-spec.js';
import { validators } from '../../ledger/admin-api/schemas.js';
import { isServerError } from '../fuzz/signing-proxy.js';
import { OPERATOR_QUERY_ROUTES, repeatedQueryProbes, repeatedQueryProblem } from '../fuzz/repeated-query.js';

test('the admin document has each route of the table, with its body schema for writes', () => {
  const document = adminOpenApiDocument([
    { method: 'get', path: '/participants' }, { method: 'post', path: '/participants' },
    { method: 'put', path: '/participants/{name}/accounts/{id}' }, { method: 'get', path: '/health' },
  ]);
  assert.deepEqual(Object.keys(document.paths), ['/participants', '/participants/{name}/accounts/{id}']);
  assert.equal(document.paths['/participants'].post.requestBody.content['application/json'].schema, validators.participantCreate.schema);
  assert.deepEqual(document.paths['/participants/{name}/accounts/{id}'].put.parameters.map((parameter) => parameter.name), ['name', 'id']);
  assert.deepEqual(document.paths['/participants'].get.parameters.map((parameter) => parameter.name), ['isProxy']);
});

test('the ALS admin document: the oracle routes with their schemas and query parameters', () => {
  const document = alsAdminOpenApiDocument([
    { method: 'get', path: '/oracles' }, { method: 'post', path: '/oracles' }, { method: 'put', path: '/oracles/{ID}' }, { method: 'delete', path: '/oracles/{ID}' },
  ]);
  assert.ok(document.paths['/oracles'].post.requestBody.content['application/json'].schema.required.includes('oracleIdType'));
  assert.deepEqual(document.paths['/oracles'].get.parameters.map((parameter) => parameter.name), ['type', 'currency']);
  assert.equal(document.paths['/oracles/{ID}'].delete.requestBody, undefined);
});

test('query parameters are declared so that Schemathesis can send one repeated (an exploded array)', () => {
  const document = adminOpenApiDocument([{ method: 'get', path: '/audit' }]);
  for (const parameter of document.paths['/audit'].get.parameters) {
    assert.deepEqual([parameter.in, parameter.style, parameter.explode], ['query', 'form', true], parameter.name);
    assert.deepEqual(parameter.schema.anyOf.map((schema) => schema.type), ['string', 'array'], parameter.name);
  }
});

test('the repeated-query probe sends each query parameter of every operator API twice, and accepts only 400/3100 naming it', () => {
  const probes = repeatedQueryProbes();
  const expected = Object.values(OPERATOR_QUERY_ROUTES).flatMap((routes) => Object.values(routes)).flat().length;
  assert.equal(probes.length, expected);
  assert.deepEqual(Object.keys(OPERATOR_QUERY_ROUTES), ['admin', 'settlement', 'alsAdmin', 'oracle']);
  for (const probe of probes) {
    const values = new URL(probe.path, 'http://switch').searchParams.getAll(probe.parameter);
    assert.equal(values.length, 2, probe.path);
    assert.doesNotMatch(probe.path, /[{}]/, 'every path parameter is filled in');
  }
  const state = probes.find((probe) => probe.api === 'settlement' && probe.path.startsWith('/v2/settlements?state='));
  assert.equal(state.path, '/v2/settlements?state=OPEN&state=CLOSED');
  const refusal = (parameter) => JSON.stringify({ errorInformation: { errorCode: '3100', errorDescription: `Generic validation error - query parameter '${parameter}' must appear at most once` } });
  assert.equal(repeatedQueryProblem(state, 400, refusal('state')), null);
  assert.match(repeatedQueryProblem(state, 400, refusal('currency')), /HTTP 400/, 'the refusal must name the parameter sent twice');
  assert.match(repeatedQueryProblem(state, 500, '{"errorInformation":{"errorCode":"2001"}}'), /HTTP 500/);
  assert.match(repeatedQueryProblem(state, 200, '[]'), /HTTP 200/);
  assert.match(repeatedQueryProblem(state, 400, 'not json'), /not json/);
});

test('a write route without a known body schema stops the run instead of going unfuzzed', () => {
  assert.throws(() => adminOpenApiDocument([{ method: 'post', path: '/participants/{name}/somethingNew' }]), /no body schema/);
});

test('the FSPIOP document: served resources only, no 2002 operations, every pattern generatable', () => {
  const document = fuzzedFspiopDocument();
  const paths = Object.keys(document.paths);
  assert.ok(paths.includes('/transfers') && paths.includes('/quotes/{ID}') && paths.includes('/parties/{Type}/{ID}'));
  assert.ok(paths.every((path) => /^\/(transfers|quotes|parties|participants)/.test(path)), paths.join(' '));
  assert.equal(document.paths['/transfers/{ID}'].patch, undefined);
  assert.equal(document.paths['/participants/{ID}'], undefined);
  assert.equal(document.paths['/participants/{Type}/{ID}'].put, undefined);
  assert.ok(document.paths['/participants/{Type}/{ID}/error'].put, 'the relayed error about a party is fuzzed');
  assert.ok(document.paths['/participants'].post, 'the batch registration is fuzzed');
  assert.doesNotMatch(JSON.stringify(document), /\\\\p\{/);
});

test('a 501 with 2002 is the switch declining an operation; every other 5xx is a server error', () => {
  assert.equal(isServerError(501, '2002'), false);
  assert.equal(isServerError(501, undefined), true);
  assert.equal(isServerError(503, '2003'), true);
  assert.equal(isServerError(500, '2001'), true);
  assert.equal(isServerError(413, '3104'), false);
});
