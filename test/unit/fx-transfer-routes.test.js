// The /fxTransfers edge (api-adapter/fx-routes.js) on a real hapi server: each valid v2.0
// request becomes one `fxTransfer` event on the transfer topic and with the action the design
// names (handlers/README.md, "Messages and positions"), keyed by the commitRequestId; a v1.1
// request is refused with 406/3001, a body outside the v2.0 document with 3100-class errors,
// and a PATCH to the switch with 501. The publisher records instead of producing to Kafka:
// what is tested here is which request becomes which event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import Hapi from '@hapi/hapi';
import { loadConfig } from '../../platform/config.js';
import { TOPIC } from '../../platform/kafka/topics.js';
import { fxFulfilAction, fxTransferRoutes } from '../../api-adapter/fx-routes.js';

const config = loadConfig({}, { usesDatabase: false });

async function edge() {
  const published = [];
  const publisher = { publish: async (topic, event) => { published.push({ topic, event }); return null; } };
  const server = Hapi.server();
  server.route(fxTransferRoutes({ publisher, config }));
  await server.initialize();
  return { server, published };
}

const fxHeaders = (from, to, version = '2.0') => ({
  accept: `application/vnd.interoperability.fxTransfers+json;version=${version.split('.')[0]}`,
  'content-type': `application/vnd.interoperability.fxTransfers+json;version=${version}`,
  date: new Date().toUTCString(),
  'fspiop-source': from,
  ...(to ? { 'fspiop-destination': to } : {}),
});

const prepareBody = (commitRequestId = randomUUID()) => ({
  commitRequestId,
  determiningTransferId: randomUUID(),
  initiatingFsp: 'payerfsp',
  counterPartyFsp: 'fxp1',
  sourceAmount: { currency: 'USD', amount: '100' },
  targetAmount: { currency: 'EUR', amount: '92.5' },
  condition: 'GRzLaTP7DJ9t4P-a_BA0WA9wzzlsugf00-Tn6kESAfM',
  expiration: new Date(Date.now() + 60_000).toISOString(),
});

const send = (server, method, url, headers, body) => server.inject({ method, url, headers, payload: body === undefined ? undefined : JSON.stringify(body) });

test('POST /fxTransfers is an fx-prepare on the prepare topic, keyed by commitRequestId, to the FXP', async () => {
  const { server, published } = await edge();
  const body = prepareBody();
  const response = await send(server, 'POST', '/fxTransfers', fxHeaders('payerfsp', 'fxp1'), body);
  assert.equal(response.statusCode, 202, response.payload);
  assert.equal(published.length, 1);
  const [{ topic, event }] = published;
  assert.equal(topic, TOPIC.transferPrepare);
  assert.deepEqual([event.id, event.type, event.action, event.from, event.to], [body.commitRequestId, 'fxTransfer', 'fx-prepare', 'payerfsp', 'fxp1']);
  assert.deepEqual(event.body, body);
  assert.equal(typeof event.rawBody, 'string', 'the sender\'s bytes go on with the event');

  const withoutDestination = prepareBody();
  assert.equal((await send(server, 'POST', '/fxTransfers', fxHeaders('payerfsp'), withoutDestination)).statusCode, 202);
  assert.equal(published[1].event.to, 'fxp1', 'without FSPIOP-Destination the counterparty FXP is the destination');
});

test('the FXP\'s answers and GET are fx actions on the fulfil topic, keyed by the {ID}', async () => {
  const { server, published } = await edge();
  const id = randomUUID();
  const fulfilment = { conversionState: 'RESERVED', fulfilment: 'WLctttbu2HvTsa1XWvUoGRcQozHsqeu9Ahl2JW9Bsu8', completedTimestamp: new Date().toISOString() };
  const cases = [
    ['PUT', `/fxTransfers/${id}`, fulfilment, 200, 'fx-reserve'],
    ['PUT', `/fxTransfers/${id}`, { ...fulfilment, conversionState: 'COMMITTED' }, 200, 'fx-commit'],
    ['PUT', `/fxTransfers/${id}`, { conversionState: 'ABORTED' }, 200, 'fx-reject'],
    ['PUT', `/fxTransfers/${id}/error`, { errorInformation: { errorCode: '5100', errorDescription: 'no' } }, 200, 'fx-abort'],
    ['GET', `/fxTransfers/${id}`, undefined, 202, 'fx-get'],
  ];
  for (const [method, url, body, status, action] of cases) {
    const response = await send(server, method, url, fxHeaders('fxp1', 'payerfsp'), body);
    assert.equal(response.statusCode, status, `${method} ${url}: ${response.payload}`);
    const { topic, event } = published.at(-1);
    assert.deepEqual([topic, event.id, event.type, event.action, event.to], [TOPIC.transferFulfil, id, 'fxTransfer', action, 'payerfsp'], `${method} ${url}`);
  }
  assert.equal(published.length, cases.length, 'one event per request');
});

test('/fxTransfers speaks v2.0 only and against its document; PATCH to the switch is not served', async () => {
  const { server, published } = await edge();
  const old = await send(server, 'POST', '/fxTransfers', fxHeaders('payerfsp', 'fxp1', '1.1'), prepareBody());
  assert.equal(old.statusCode, 406);
  assert.equal(JSON.parse(old.payload).errorInformation.errorCode, '3001');
  const extra = await send(server, 'POST', '/fxTransfers', fxHeaders('payerfsp', 'fxp1'), { ...prepareBody(), transferId: randomUUID() });
  assert.equal(extra.statusCode, 400, 'the v2.0 document admits no property it does not name');
  assert.match(JSON.parse(extra.payload).errorInformation.errorCode, /^31/);
  const badId = await send(server, 'GET', '/fxTransfers/not-an-id', fxHeaders('fxp1', 'payerfsp'));
  assert.equal(badId.statusCode, 400);
  const patch = await send(server, 'PATCH', `/fxTransfers/${randomUUID()}`, fxHeaders('payerfsp', 'fxp1'), { conversionState: 'COMMITTED' });
  assert.equal(patch.statusCode, 501);
  assert.equal(published.length, 0, 'nothing refused is produced');
});

test('only RESERVED and COMMITTED are the FXP\'s fulfilment; any other state is refused', () => {
  assert.equal(fxFulfilAction('RESERVED'), 'fx-reserve');
  assert.equal(fxFulfilAction('COMMITTED'), 'fx-commit');
  for (const state of ['ABORTED', 'RECEIVED', undefined]) assert.equal(fxFulfilAction(state), 'fx-reject');
});
