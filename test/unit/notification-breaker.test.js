// The callback circuit breaker as a pure state machine on an injected clock: which attempts
// count against it (only those without any HTTP answer) and that it is kept per DFSP endpoint.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakerKey, createCircuitBreaker, provesEndpointAlive } from '../../platform/delivery/deliver.js';

test('any HTTP answer proves the endpoint alive; only an attempt without one counts against it', () => {
  for (const status of [200, 202, 400, 404, 500, 501, 503]) assert.equal(provesEndpointAlive({ status }), true, `HTTP ${status}`);
  for (const reason of ['ECONNREFUSED', 'ECONNRESET', 'CALLBACK_TIMEOUT']) assert.equal(provesEndpointAlive({ reason }), false, reason);
});

test('the breaker is kept per DFSP endpoint, not per DFSP', () => {
  const url = new URL('http://dfsp.example:8444/parties/MSISDN/1');
  const parties = breakerKey({ fsp: 'payeefsp', endpoint: 'http://dfsp.example:8444/parties/{{partyIdType}}/{{partyIdentifier}}', url });
  const participants = breakerKey({ fsp: 'payeefsp', endpoint: 'http://dfsp.example:8444/participants/{{partyIdType}}/{{partyIdentifier}}', url });
  assert.notEqual(parties, participants);
  assert.equal(breakerKey({ fsp: 'payeefsp', url }), breakerKey({ fsp: 'payeefsp', url: new URL('http://dfsp.example:8444/other') }),
    'without a template the origin is the endpoint');

  let clockMs = 1_000;
  const opened = [];
  const breaker = createCircuitBreaker({ threshold: 3, openMs: 10_000, now: () => clockMs, onOpen: (key) => opened.push(key) });
  for (let i = 0; i < 3; i += 1) breaker.failed(participants);
  assert.equal(breaker.isOpen(participants), true);
  assert.equal(breaker.isOpen(parties), false, 'the DFSP\'s other endpoint stays usable');
  assert.deepEqual(opened, [participants]);
  clockMs += 9_999;
  assert.equal(breaker.isOpen(participants), true);
  clockMs += 1;
  assert.equal(breaker.isOpen(participants), false, 'closes after openMs');
  breaker.failed(participants);
  assert.equal(breaker.isOpen(participants), true, 'one more failure reopens it at once');
  breaker.succeeded(participants);
  assert.equal(breaker.isOpen(participants), false, 'a success closes it');
});
