// The sender of a request and its proof, as the edge's checks leave them for every rule after
// them (platform/fspiop/sender.js), on a real hapi server with the checks in the edge's order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Hapi from '@hapi/hapi';
import { PROOF, isProven, recordProof, registerSourceRefusals, registerUnprovenSender, senderOf } from '../../platform/fspiop/sender.js';

/** A server whose stand-in checks record what the `x-proofs` header lists, as the real checks do. */
async function serverWith({ checksOff = false } = {}) {
  const server = Hapi.server();
  registerSourceRefusals(server, { hubName: 'Hub' });
  server.ext('onPreHandler', (request, h) => {
    for (const proof of (request.headers['x-proofs'] ?? '').split(',').filter(Boolean)) recordProof(request, proof);
    return h.continue;
  });
  registerUnprovenSender(server, { checksOff });
  server.route({ method: 'GET', path: '/parties/{id}', handler: (request) => senderOf(request) });
  await server.initialize();
  return server;
}

const ask = (server, headers) => server.inject({ method: 'GET', url: '/parties/1', headers: { 'fspiop-source': 'payerfsp', ...headers } });

test('a request no check proved is unproven; one a check proved keeps the strongest proof', async () => {
  const server = await serverWith();
  assert.deepEqual((await ask(server)).result, { fsp: 'payerfsp', proof: PROOF.none });
  assert.equal((await ask(server, { 'x-proofs': 'signature' })).result.proof, PROOF.signature);
  assert.equal((await ask(server, { 'x-proofs': 'certificate,signature' })).result.proof, PROOF.certificate, 'a certificate outranks a signature');
  assert.equal(isProven({ fsp: 'payerfsp', proof: PROOF.none }), false);
  assert.equal(isProven({ fsp: 'payerfsp', proof: PROOF.signature }), true);
});

test('with every check off (a lab), the header is taken as configured', async () => {
  const server = await serverWith({ checksOff: true });
  const { result } = await ask(server);
  assert.equal(result.proof, PROOF.configuration);
  assert.equal(isProven(result), true);
});

test('a request in the hub\'s own name is refused before any check, whatever its case', async () => {
  const server = await serverWith();
  for (const hub of ['Hub', 'hub', 'HUB']) {
    const response = await ask(server, { 'fspiop-source': hub, 'x-proofs': 'signature' });
    assert.equal(response.statusCode, 400, hub);
    assert.equal(JSON.parse(response.payload).errorInformation.errorCode, '3100');
    assert.match(JSON.parse(response.payload).errorInformation.errorDescription, /is the hub/);
  }
});

test('an FSPIOP-Source that can name no DFSP is 3101 before any check compares it; an absent one is left to the route', async () => {
  const server = await serverWith();
  for (const source of ['{fspId}', 'payer fsp', ','.repeat(100), 'a'.repeat(33)]) {
    const response = await ask(server, { 'fspiop-source': source, 'x-proofs': 'certificate' });
    assert.equal(response.statusCode, 400, source);
    assert.deepEqual(JSON.parse(response.payload).errorInformation, { errorCode: '3101', errorDescription: 'Malformed syntax - Invalid fspiop-source header' });
  }
  assert.equal((await ask(server, { 'fspiop-source': '' })).statusCode, 200);
});
