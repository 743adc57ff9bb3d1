// Every FSPIOP error code the switch can return is documented in README.md's error table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FSPIOP_ERRORS, errorInformation, fspiopCodeOf } from '../../platform/fspiop/errors.js';
import { FAILURE } from '../../platform/domain/failures.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

test('every code in the catalogue has a row in the README error table, with its HTTP status', () => {
  for (const [code, { httpStatus }] of Object.entries(FSPIOP_ERRORS)) {
    assert.match(readme, new RegExp(`^\\| ${code} \\| ${httpStatus} \\|`, 'm'), `README.md does not document ${code} (${httpStatus})`);
  }
});

test('every domain failure maps to a catalogued code', () => {
  for (const code of Object.values(FAILURE)) {
    assert.ok(FSPIOP_ERRORS[fspiopCodeOf(code)], `${code} maps to no catalogued FSPIOP code`);
  }
});

test('every domain failure has a code of its own', () => {
  // Two names sharing one code would share one mapping, so renaming either would move both.
  const codes = Object.values(FAILURE);
  assert.equal(new Set(codes).size, codes.length, 'two FAILURE names share a code');
});

test('errorInformation has the FSPIOP shape and a bounded description', () => {
  const body = errorInformation(3100, 'x'.repeat(500));
  assert.equal(body.errorInformation.errorCode, '3100');
  assert.equal(body.errorInformation.errorDescription.length, 128);
  assert.throws(() => errorInformation(9999));
});
