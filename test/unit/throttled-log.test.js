// The throttled warning: one line per key per interval carrying how many it stood in for, and
// a bounded memory of keys however many distinct keys (names a client chose) come by.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createThrottledWarn } from '../../platform/throttled-log.js';

function recordingLogger() {
  const lines = [];
  return { lines, warn: (fields, message) => lines.push({ fields, message }) };
}

test('a key logs once per interval; the next line says how many were held back', () => {
  let clock = 0;
  const logger = recordingLogger();
  const warn = createThrottledWarn(logger, { intervalMs: 1_000, now: () => clock });
  for (let index = 0; index < 5; index += 1) warn('down\u0000payerfsp', { fsp: 'payerfsp' }, 'callback failed');
  assert.equal(logger.lines.length, 1);
  clock = 1_000;
  warn('down\u0000payerfsp', { fsp: 'payerfsp' }, 'callback failed');
  assert.deepEqual(logger.lines.map((line) => line.fields.suppressed), [0, 4]);
});

test('distinct keys beyond keysMax are forgotten least recently used first; a busy key stays throttled', () => {
  const logger = recordingLogger();
  const warn = createThrottledWarn(logger, { intervalMs: 60_000, keysMax: 100 });
  for (let index = 0; index < 10_000; index += 1) {
    warn(`none\u0000${','.repeat(index % 50)}${index}`, {}, 'unknown DFSP');
    warn('failed\u0000payerfsp', {}, 'callback failed');
  }
  assert.ok(warn.size() <= 100, `${warn.size()} keys remembered`);
  assert.equal(logger.lines.filter((line) => line.message === 'callback failed').length, 1, 'the busy key was never forgotten');
});
