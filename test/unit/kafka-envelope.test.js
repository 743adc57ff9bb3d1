import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeEvent, decodeEvent, MalformedEventError, isMalformedEvent } from '../../platform/kafka/envelope.js';

const rawBody = '{"transferId":"b51ec534-ee48-4575-b6a9-ead2955b8069","amount":{"amount":"1.2345","currency":"USD"}}';

function sampleEvent() {
  return {
    id: 'b51ec534-ee48-4575-b6a9-ead2955b8069',
    type: 'transfer',
    action: 'prepare',
    from: 'payerfsp',
    to: 'payeefsp',
    headers: { 'fspiop-source': 'payerfsp', 'fspiop-destination': 'payeefsp' },
    body: JSON.parse(rawBody),
    rawBody,
    at: '2025-01-02T03:04:05.678Z',
  };
}

test('an event survives encode then decode unchanged', () => {
  const event = sampleEvent();
  const encoded = encodeEvent(event);
  assert.ok(Buffer.isBuffer(encoded));
  assert.deepEqual(decodeEvent(encoded), event);
});

test('rawBody keeps the exact original bytes, including non-ASCII text', () => {
  const original = '{"note":"paiement reçu – 10 €","amount":"1.0000"}';
  const decoded = decodeEvent(encodeEvent({ ...sampleEvent(), rawBody: Buffer.from(original, 'utf8') }));
  assert.equal(decoded.rawBody, original);
  assert.ok(Buffer.from(decoded.rawBody, 'utf8').equals(Buffer.from(original, 'utf8')));
});

test('undefined optional fields are left out rather than written as null', () => {
  const { rawBody: _unused, ...withoutRawBody } = sampleEvent();
  const text = encodeEvent({ ...withoutRawBody, state: undefined }).toString('utf8');
  assert.equal(text.includes('rawBody'), false);
  assert.equal(text.includes('state'), false);
});

test('fields are written in the documented order, whatever order the caller used', () => {
  const { at, body, id, action, type } = sampleEvent();
  const text = encodeEvent({ at, body, action, type, id }).toString('utf8');
  assert.deepEqual(Object.keys(JSON.parse(text)), ['id', 'type', 'action', 'body', 'at']);
});

test('decode accepts a string as well as a Buffer', () => {
  const event = sampleEvent();
  assert.deepEqual(decodeEvent(encodeEvent(event).toString('utf8')), event);
});

test('encode refuses an event without id, type or action', () => {
  for (const field of ['id', 'type', 'action']) {
    const event = { ...sampleEvent(), [field]: undefined };
    assert.throws(() => encodeEvent(event), { name: 'TypeError', message: new RegExp(field) });
  }
  assert.throws(() => encodeEvent(null), TypeError);
  assert.throws(() => encodeEvent({ ...sampleEvent(), rawBody: 42 }), TypeError);
});

function assertMalformed(value, reasonPattern) {
  assert.throws(() => decodeEvent(value), (error) => {
    assert.ok(error instanceof MalformedEventError, `expected MalformedEventError, got ${error}`);
    assert.ok(isMalformedEvent(error));
    assert.equal(error.code, 'MALFORMED_EVENT');
    assert.match(error.reason, reasonPattern);
    return true;
  });
}

test('decode turns a non-JSON value into MalformedEventError with a preview and a cause', () => {
  assertMalformed(Buffer.from('not json {'), /not JSON/);
  try {
    decodeEvent(Buffer.from('not json {'));
  } catch (error) {
    assert.equal(error.preview, 'not json {');
    assert.ok(error.cause instanceof SyntaxError);
  }
});

test('decode rejects empty values, non-objects and missing required fields', () => {
  assertMalformed(null, /empty/);
  assertMalformed(undefined, /empty/);
  assertMalformed(Buffer.alloc(0), /not JSON/);
  assertMalformed('[1,2,3]', /not a JSON object/);
  assertMalformed('null', /not a JSON object/);
  assertMalformed('"text"', /not a JSON object/);
  assertMalformed('{"type":"transfer","action":"prepare"}', /missing id/);
  assertMalformed('{"id":"a","action":"prepare"}', /missing type/);
  assertMalformed('{"id":"a","type":"transfer","action":""}', /missing action/);
  assertMalformed('{"id":7,"type":"transfer","action":"prepare"}', /missing id/);
});

test('a long poison message is previewed, not copied whole into the error', () => {
  const long = `{"x":"${'a'.repeat(5000)}"}`;
  try {
    decodeEvent(long);
    assert.fail('expected a MalformedEventError');
  } catch (error) {
    assert.ok(isMalformedEvent(error));
    assert.ok(error.preview.length <= 201);
  }
});

test('isMalformedEvent is false for other errors', () => {
  assert.equal(isMalformedEvent(new Error('x')), false);
  assert.equal(isMalformedEvent(undefined), false);
});
