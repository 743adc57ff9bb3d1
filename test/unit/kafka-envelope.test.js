import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import {
  encodeEvent, decodeEvent, MalformedEventError, isMalformedEvent, carriedBody, copyForRelay,
} from '../../platform/kafka/envelope.js';
import { decodeEvents } from '../../platform/handler-runtime.js';
import { notificationEvent, positionRecords } from '../../handlers/transfer-records.js';
import { OUTCOME } from '../../ledger/domain/outcomes.js';

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

// One serialisation per hop: an event with rawBody is written with that text alone.

const isUnread = (event) => typeof Object.getOwnPropertyDescriptor(event, 'body')?.get === 'function';
const silentLogger = pino({ level: 'silent' });

test('an event with rawBody is written without body and decodes to body = JSON.parse(rawBody), rawBody byte for byte', () => {
  // Whitespace, key order and escapes that a re-serialised body would not keep.
  const original = '{ "transferId" : "b51ec534", "note":"re\\u00e7u – 10 €",\n "amount":{"currency":"USD","amount":"1.2345"} }';
  const encoded = encodeEvent({ ...sampleEvent(), body: JSON.parse(original), rawBody: original });
  assert.equal('body' in JSON.parse(encoded.toString('utf8')), false, 'the body is not written a second time');
  const decoded = decodeEvent(encoded);
  assert.ok(Buffer.from(decoded.rawBody, 'utf8').equals(Buffer.from(original, 'utf8')));
  assert.deepEqual(decoded.body, JSON.parse(original));
  assert.deepEqual(Object.keys(JSON.parse(encoded.toString('utf8'))), ['id', 'type', 'action', 'from', 'to', 'headers', 'rawBody', 'at']);
});

test('encoding an event with rawBody never reads its body', () => {
  const event = sampleEvent();
  Object.defineProperty(event, 'body', { enumerable: true, get: () => assert.fail('body was read') });
  const decoded = decodeEvent(encodeEvent(event));
  assert.equal(decoded.rawBody, rawBody);
});

test('an event without rawBody keeps its body, also when rawBody is null', () => {
  const body = { errorInformation: { errorCode: '3100', errorDescription: 'Generic validation error' } };
  const { rawBody: _unused, ...hubEvent } = { ...sampleEvent(), type: 'notification', body };
  const decoded = decodeEvent(encodeEvent(hubEvent));
  assert.deepEqual(decoded.body, body);
  assert.equal(isUnread(decoded), false);
  assert.deepEqual(decodeEvent(encodeEvent({ ...hubEvent, rawBody: null })).body, body);
  assert.ok(JSON.parse(encodeEvent(hubEvent).toString('utf8')).body, 'written as the body');
});

test('a transfer or quote event has its body parsed at decode', () => {
  for (const type of ['transfer', 'quote']) {
    const decoded = decodeEvent(encodeEvent({ ...sampleEvent(), type }));
    assert.equal(isUnread(decoded), false, type);
    assert.deepEqual(decoded.body, JSON.parse(rawBody));
  }
});

test('a position or notification event parses its body on first read only, once', () => {
  for (const type of ['position', 'notification']) {
    const decoded = decodeEvent(encodeEvent({ ...sampleEvent(), type }));
    assert.equal(isUnread(decoded), true, `${type}: not parsed at decode`);
    const first = decoded.body;
    assert.deepEqual(first, JSON.parse(rawBody));
    assert.equal(isUnread(decoded), false, `${type}: kept once read`);
    assert.equal(decoded.body, first, `${type}: the same object on the next read`);
    decoded.body = { replaced: true };
    assert.deepEqual(decoded.body, { replaced: true });
  }
});

test('a value that carries both body and rawBody (written before bodies were written once) keeps the body it carries', () => {
  const value = JSON.stringify({ ...sampleEvent(), type: 'notification', body: { as: 'written' } });
  assert.deepEqual(decodeEvent(value).body, { as: 'written' });
});

test('a transfer event whose rawBody is not JSON is a MalformedEventError at decode, which the handlers skip', () => {
  const value = JSON.stringify({ ...sampleEvent(), body: undefined, rawBody: '{"transferId": oops' });
  assertMalformed(value, /rawBody is not JSON/);
  assertMalformed(JSON.stringify({ ...sampleEvent(), body: undefined, rawBody: 42 }), /rawBody is not a string/);
  const good = encodeEvent(sampleEvent());
  // handler-runtime's decodeEvents is what the prepare, fulfil, position and quoting handlers use.
  const events = decodeEvents([{ topic: 't', partition: 0, offset: 1, value: Buffer.from(value) }, { topic: 't', partition: 0, offset: 2, value: good }], silentLogger);
  assert.deepEqual(events.map((event) => event.id), [sampleEvent().id]);
});

test('a relayed event whose rawBody is not JSON fails with MalformedEventError when its body is read, never with a TypeError', () => {
  const decoded = decodeEvent(JSON.stringify({ ...sampleEvent(), type: 'notification', body: undefined, rawBody: 'not json' }));
  assert.equal(decoded.rawBody, 'not json', 'its bytes are still there to send');
  assert.throws(() => decoded.body, (error) => isMalformedEvent(error) && /rawBody is not JSON/.test(error.reason));
});

test('copyForRelay and carriedBody pass an unread body on as its text, without parsing it', () => {
  const decoded = decodeEvent(encodeEvent({ ...sampleEvent(), type: 'notification', callback: { method: 'PUT' } }));
  const copy = copyForRelay(decoded, { retry: { attempt: 1 } });
  assert.equal(isUnread(decoded), true, 'the original is still unread');
  assert.equal('body' in copy, false);
  assert.deepEqual([copy.rawBody, copy.retry, copy.callback, copy.id], [rawBody, { attempt: 1 }, { method: 'PUT' }, sampleEvent().id]);
  assert.deepEqual(decodeEvent(encodeEvent(copy)).body, JSON.parse(rawBody));
  assert.deepEqual(carriedBody({ body: { a: 1 } }), { body: { a: 1 } });
  assert.deepEqual(copyForRelay({ ...sampleEvent(), rawBody: undefined }).body, JSON.parse(rawBody));
});

test('prepare → position → notification: the DFSP body is never parsed on the way and arrives byte for byte', () => {
  const prepare = decodeEvent(encodeEvent(sampleEvent()));
  const topics = { transferPositionBatch: 'position', notificationEvent: 'notification' };
  const [positionRecord] = positionRecords(topics, [{ accountId: 7, action: 'prepare', message: prepare }]);
  const position = decodeEvent(positionRecord.value);
  assert.deepEqual([position.type, position.accountId], ['position', 7]);
  const forward = notificationEvent({ type: OUTCOME.forwardPrepare, transferId: prepare.id, to: 'payeefsp', message: position }, 'Hub');
  const notification = decodeEvent(encodeEvent(forward));
  assert.equal(isUnread(position), true, 'the position handler did not parse the body');
  assert.equal(notification.rawBody, rawBody);
  assert.deepEqual(notification.body, JSON.parse(rawBody));
});
