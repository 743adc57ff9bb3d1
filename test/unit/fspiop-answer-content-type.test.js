// Every synchronous FSPIOP answer with a body states its resource and version in Content-Type
// (API definition §3.3.4: the server answers `major.minor`): the version the client sent in,
// or the newest its Accept takes, or, when the client spoke a version the switch does not,
// the newest the resource is served in. The errors hapi writes itself (a body too large) are
// typed the same way; an empty 202 carries no type. On a real server over HTTP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { createHttpServer, emptyResponse } from '../../platform/http/server.js';
import { createMetrics } from '../../platform/metrics.js';
import { fspiopRoute } from '../../platform/fspiop/edge.js';

let server;
let base;

before(async () => {
  server = createHttpServer({ port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }), metrics: createMetrics({ serviceName: 'content-type-test' }), health: async () => ({}) });
  server.route([
    fspiopRoute({ resource: 'transfers', method: 'POST', path: '/transfers', payloadBytesMax: 4096, handle: (accepted, h) => emptyResponse(h, 202) }),
    fspiopRoute({ resource: 'fxTransfers', method: 'POST', path: '/fxTransfers', handle: (accepted, h) => emptyResponse(h, 202) }),
  ]);
  await server.start();
  base = `http://127.0.0.1:${server.info.port}`;
});

after(() => server?.stop());

const media = (resource, version) => `application/vnd.interoperability.${resource}+json;version=${version}`;

function post(path, { resource = path.slice(1), version, accept = version.split('.')[0], body = {} }) {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': media(resource, version), accept: media(resource, accept), date: new Date().toUTCString(), 'fspiop-source': 'payerfsp', 'fspiop-destination': 'payeefsp' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const validTransfer = () => ({
  transferId: randomUUID(), payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { currency: 'USD', amount: '10' },
  ilpPacket: 'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4wCk5vbmNlOiB1SXlweUYzY3pYSXBFdzVVc05TYWh3CkVuY3J5cHRpb246IG5vbmUKUGF5bWVudC1JZDogMTMyMzZhM2ItOGZhOC00MTYzLTg0NDctNGMzZWQzZGE5OGE3CgpDb250ZW50LUxlbmd0aDogMTM1CkNvbnRlbnQtVHlwZTogYXBwbGljYXRpb24vanNvbgpTZW5kZXItSWRlbnRpZmllcjogOTI4MDYzOTEKCiJ7XCJmZWVcIjowLFwidHJhbnNmZXJDb2RlXCI6XCJpbnZvaWNlXCIsXCJkZWJpdE5hbWVcIjpcImFsaWNlIGNvb3BlclwiLFwiY3JlZGl0TmFtZVwiOlwibWVyIGNoYW50XCIsXCJkZWJpdElkZW50aWZpZXJcIjpcIjkyODA2MzkxXCJ9IgA',
  condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAfM', expiration: new Date(Date.now() + 60_000).toISOString(),
});

test('an error answer is typed in the version the client sent: 1.1 and 2.0 alike', async () => {
  for (const version of ['1.1', '2.0']) {
    const answer = await post('/transfers', { version });
    assert.equal(answer.status, 400, await answer.clone().text());
    assert.equal(answer.headers.get('content-type'), media('transfers', version));
    assert.ok((await answer.json()).errorInformation.errorCode);
  }
});

test('a version the switch does not speak is 406, typed in the newest the resource is served in', async () => {
  const transfers = await post('/transfers', { version: '3.0', accept: '3' });
  assert.equal(transfers.status, 406);
  assert.equal(transfers.headers.get('content-type'), media('transfers', '2.0'));
  const fx = await post('/fxTransfers', { version: '1.1', accept: '1' });
  assert.equal(fx.status, 406);
  assert.equal(fx.headers.get('content-type'), media('fxTransfers', '2.0'));
});

test('an error hapi writes itself (a body over the route\'s limit) is typed as well', async () => {
  const answer = await post('/transfers', { version: '1.1', body: JSON.stringify({ padding: 'x'.repeat(8192) }) });
  assert.equal(answer.status, 413);
  assert.equal(answer.headers.get('content-type'), media('transfers', '1.1'));
  assert.equal((await answer.json()).errorInformation.errorCode, '3104');
});

test('an accepted request is an empty 202 with no content type', async () => {
  const answer = await post('/transfers', { version: '1.1', body: validTransfer() });
  assert.equal(answer.status, 202, await answer.clone().text());
  assert.equal(answer.headers.get('content-type'), null);
  assert.equal(await answer.text(), '');
});
