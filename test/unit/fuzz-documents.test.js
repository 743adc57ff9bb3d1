// The documents the fuzzer is given (test/fuzz/): the admin API's, made from its route table,
// must cover every route with the schema its body is validated with; the FSPIOP ones (v1.1
// and v2.0) must keep the switch's resources, drop what it declares not served, and hold no
// pattern Schemathesis cannot generate from (an operation it would otherwise skip without a
// word); the signing proxy must state the slice's version for the resource each path names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { adminOpenApiDocument, alsAdminOpenApiDocument } from '../fuzz/admin-openapi.js';
import { fuzzedFspiopDocument } from '../fuzz/fspiop-spec.js';
import { validators } from '../../ledger/admin-api/schemas.js';
import { isServerError, startFuzzProxy } from '../fuzz/signing-proxy.js';
import { verifyFspiopMessage } from '../../platform/fspiop/jws.js';
import { jwsKeyPair } from '../support/jws-keys.js';
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
  for (const path of ['/transfers', '/quotes/{ID}', '/parties/{Type}/{ID}', '/bulkQuotes', '/transactionRequests/{ID}', '/authorizations/{ID}']) {
    assert.ok(paths.includes(path), `${path} is fuzzed`);
  }
  assert.ok(paths.every((path) => /^\/(transfers|quotes|bulkQuotes|parties|participants|transactionRequests|authorizations)/.test(path)), paths.join(' '));
  assert.equal(document.paths['/transfers/{ID}'].patch, undefined);
  assert.equal(document.paths['/participants/{ID}'], undefined);
  assert.equal(document.paths['/participants/{Type}/{ID}'].put, undefined);
  assert.ok(document.paths['/participants/{Type}/{ID}/error'].put, 'the relayed error about a party is fuzzed');
  assert.ok(document.paths['/participants'].post, 'the batch registration is fuzzed');
  assert.doesNotMatch(JSON.stringify(document), /\\\\p\{/);
});

test('the FSPIOP v2.0 document: conversion and the 2.0 versions of transfers, quotes and parties, without what goes from the switch', () => {
  const document = fuzzedFspiopDocument('2.0');
  const paths = Object.keys(document.paths);
  for (const path of ['/fxQuotes', '/fxQuotes/{ID}/error', '/fxTransfers', '/fxTransfers/{ID}', '/services/FXP', '/services/FXP/{SourceCurrency}/{TargetCurrency}', '/transfers', '/quotes/{ID}', '/parties/{Type}/{ID}']) {
    assert.ok(paths.includes(path), `${path} is fuzzed`);
  }
  assert.ok(paths.every((path) => /^\/(fxQuotes|fxTransfers|services\/FXP|transfers|quotes|parties)/.test(path)), paths.join(' '));
  assert.equal(document.paths['/fxTransfers/{ID}'].patch, undefined);
  assert.equal(document.paths['/transfers/{ID}'].patch, undefined);
  assert.equal(document.paths['/services/FXP'].put, undefined);
  assert.equal(document.paths['/services/FXP/{SourceCurrency}/{TargetCurrency}'].put, undefined);
  assert.ok(document.paths['/fxTransfers/{ID}'].put && document.paths['/services/FXP'].get);
  assert.doesNotMatch(JSON.stringify(document), /\\\\p\{/);
  assert.throws(() => fuzzedFspiopDocument('1.0'), /no FSPIOP 1.0 slice/);
});

/** A proxy in 'signed' mode for v2.0 in front of a server that records what reaches it. */
async function v2ProxyWithUpstream(t) {
  const received = [];
  const upstream = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    received.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(202).end();
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const url = `http://127.0.0.1:${upstream.address().port}`;
  const dfsps = ['payerfsp', 'payeefsp', 'fxpfsp'].map((name) => ({ name, privateKey: jwsKeyPair(name).privateKey, fxp: name === 'fxpfsp' }));
  const proxy = await startFuzzProxy({
    mode: 'signed', edges: { transfers: url, quotes: url, accountLookup: url }, dfsps, version: '2.0', currencyPair: { sourceCurrency: 'USD', targetCurrency: 'EUR' },
  });
  t.after(async () => { await proxy.close(); upstream.closeAllConnections(); upstream.close(); });
  return { proxy, received };
}

test('the v2.0 proxy states 2.0 for the resource each path names and sends conversions between the payer and the FXP', async (t) => {
  const { proxy, received } = await v2ProxyWithUpstream(t);
  const conversion = {
    commitRequestId: 'x', initiatingFsp: 'a', counterPartyFsp: 'b', sourceAmount: { currency: 'AED', amount: '1' }, targetAmount: { currency: 'XOF', amount: '2' }, expiration: '1000-01-01T00:00:00.000Z',
  };
  for (let index = 0; index < 4; index += 1) {
    await fetch(`${proxy.url}/fxTransfers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(conversion) });
  }
  await fetch(`${proxy.url}/services/FXP/USD/EUR`, { headers: { accept: 'application/json' } });
  const posts = received.filter((call) => call.url === '/fxTransfers');
  assert.equal(posts.length, 4);
  for (const call of posts) {
    assert.equal(call.headers['content-type'], 'application/vnd.interoperability.fxTransfers+json;version=2.0');
    assert.equal(call.headers.accept, 'application/vnd.interoperability.fxTransfers+json;version=2');
    const body = JSON.parse(call.body);
    assert.deepEqual([body.initiatingFsp, body.counterPartyFsp], [call.headers['fspiop-source'], call.headers['fspiop-destination']]);
    assert.deepEqual(new Set([body.initiatingFsp, body.counterPartyFsp]), new Set(['payerfsp', 'fxpfsp']), 'a conversion is between the payer and the FXP');
    const source = call.headers['fspiop-source'];
    const keys = [createPublicKey(jwsKeyPair(source).publicKey)];
    assert.equal(await verifyFspiopMessage({ keys, method: 'POST', uri: '/fxTransfers', headers: call.headers, body: Buffer.from(call.body) }), null, 'signed by the source');
  }
  const currencies = posts.map((call) => JSON.parse(call.body)).map((body) => `${body.sourceAmount.currency}/${body.targetAmount.currency}`);
  assert.ok(currencies.includes('USD/EUR') && currencies.includes('AED/XOF'), `the FXP's pair in some conversions, the fuzzed currencies in the rest: ${currencies}`);
  for (const body of posts.map((call) => JSON.parse(call.body)).filter((body) => body.sourceAmount.currency === 'USD')) {
    assert.ok(Date.parse(body.expiration) > Date.now(), 'a conversion in the pair expires ahead, to pass the expiry check');
  }
  const discovery = received.find((call) => call.url === '/services/FXP/USD/EUR');
  assert.equal(discovery.headers['content-type'], 'application/vnd.interoperability.services+json;version=2.0');
  assert.equal(discovery.headers.accept, 'application/vnd.interoperability.services+json;version=2');
  assert.notEqual(discovery.headers['fspiop-source'], 'fxpfsp', 'requests other than conversions go between the DFSPs that are not FXPs');
});

test('a 501 with 2002 is the switch declining an operation; every other 5xx is a server error', () => {
  assert.equal(isServerError(501, '2002'), false);
  assert.equal(isServerError(501, undefined), true);
  assert.equal(isServerError(503, '2003'), true);
  assert.equal(isServerError(500, '2001'), true);
  assert.equal(isServerError(413, '3104'), false);
});
