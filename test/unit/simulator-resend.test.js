// The simulated DFSPs resend what the switch may not have taken, as a DFSP does, against real
// HTTP servers standing in for an edge that a rolling upgrade replaces: a payer's request
// whose connection is cut is sent again until it is accepted, counted as a possible duplicate
// only where the validity gate expects it (transfers); a DFSP's answer refused with 503 is
// sent again until taken; a refusal the switch means (400) is never repeated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { answerAs } from '../../perf/simulators/fspiop.js';
import { roundTrip } from '../../perf/simulators/round-trip.js';
import { createCorrelator } from '../../perf/simulators/correlator.js';

/** A server answering its n-th request (from 1) with `answers[n - 1]` ('cut' destroys the socket), then 202. */
async function edge(answers) {
  const received = [];
  const server = http.createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      received.push(request.method);
      const answer = answers[received.length - 1] ?? 202;
      if (answer === 'cut') request.socket.destroy();
      else response.writeHead(answer).end();
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, received, close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }) };
}

const config = { sign: false, callbackTimeoutMs: 10_000 };
const headers = { 'fspiop-source': 'payerfsp', 'content-type': 'application/json' };

test('a quote whose connection is cut is sent again until accepted; its callback ends the wait and nothing is counted as resent', { timeout: 20_000 }, async () => {
  const switchEdge = await edge(['cut', 'cut']);
  const context = { config, correlator: createCorrelator(), counters: { resent: 0 } };
  try {
    const waiting = roundTrip(context, 'quotes:payerfsp:q1', { url: `${switchEdge.url}/quotes`, method: 'POST', headers, body: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    assert.equal(switchEdge.received.length, 3, 'sent until the edge accepted it');
    context.correlator.settle('quotes:payerfsp:q1', { body: { answered: true } });
    assert.deepEqual(await waiting, { body: { answered: true } });
    assert.equal(context.counters.resent, 0, 'a quote is not a prepare-topic record');
  } finally {
    await switchEdge.close();
  }
});

test('a transfer whose connection was cut after it went out, then accepted, counts one possible duplicate for the gate', { timeout: 20_000 }, async () => {
  const switchEdge = await edge(['cut']);
  const context = { config, correlator: createCorrelator(), counters: { resent: 0 } };
  try {
    const waiting = roundTrip(context, 'transfers:payerfsp:t1', { url: `${switchEdge.url}/transfers`, method: 'POST', headers, body: '{}' }, { countResent: true });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    context.correlator.settle('transfers:payerfsp:t1', { body: { transferState: 'COMMITTED' } });
    await waiting;
    assert.equal(switchEdge.received.length, 2);
    assert.equal(context.counters.resent, 1, 'the cut copy may have been stored too');
  } finally {
    await switchEdge.close();
  }
});

test('a refusal the switch means (400) ends the wait at once and is not repeated', { timeout: 20_000 }, async () => {
  const switchEdge = await edge([400]);
  const context = { config, correlator: createCorrelator(), counters: { resent: 0 } };
  try {
    const outcome = await roundTrip(context, 'quotes:payerfsp:q2', { url: `${switchEdge.url}/quotes`, method: 'POST', headers, body: '{}' });
    assert.equal(outcome.error, 'switch answered 400');
    assert.equal(switchEdge.received.length, 1);
  } finally {
    await switchEdge.close();
  }
});

test('an answer refused with 503 is sent again until the switch takes it', { timeout: 20_000 }, async () => {
  const switchEdge = await edge([503, 503, 200]);
  try {
    const sent = await answerAs(config, 'payeefsp', `${switchEdge.url}/quotes/q1`, 'PUT', headers, '{}');
    assert.equal(sent.status, 200);
    assert.deepEqual(switchEdge.received, ['PUT', 'PUT', 'PUT']);
  } finally {
    await switchEdge.close();
  }
});
