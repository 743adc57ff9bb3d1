// Account lookup's failures are domain values mapped in platform/fspiop/errors.js. DFSPs
// must keep receiving the FSPIOP codes, HTTP statuses and bodies they always have, so each
// failure account lookup returns is pinned here to the code it was answered with before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { FSPIOP_ERRORS, errorInformation, failureToFspiop, fspiopCodeOf } from '../../platform/fspiop/errors.js';

const ACCOUNT_LOOKUP_WIRE_CODES = Object.freeze({
  [FAILURE.partyNotFound]: 3204,
  [FAILURE.destinationUnroutable]: 3201,
  [FAILURE.partyRegistrationRefused]: 3003,
  [FAILURE.partyDeletionRefused]: 3040,
  [FAILURE.oracleUnavailable]: 2003,
  [FAILURE.oracleNotFound]: 3200,
  [FAILURE.participantNotFound]: 3200,
  [FAILURE.validation]: 3100,
});

test('every failure account lookup returns maps to the FSPIOP code DFSPs have always received', () => {
  for (const [failureCode, fspiopCode] of Object.entries(ACCOUNT_LOOKUP_WIRE_CODES)) {
    assert.equal(fspiopCodeOf(failureCode), fspiopCode, `${failureCode} must stay ${fspiopCode}`);
  }
});

test('a failure is answered with the same status and body as the literal code was', () => {
  for (const [failureCode, fspiopCode] of Object.entries(ACCOUNT_LOOKUP_WIRE_CODES)) {
    for (const detail of [undefined, 'what was wrong']) {
      const answer = failureToFspiop(failure(failureCode, detail));
      assert.equal(answer.httpStatus, FSPIOP_ERRORS[fspiopCode].httpStatus, failureCode);
      assert.deepEqual(answer.body, errorInformation(fspiopCode, detail), failureCode);
    }
  }
});

test('an unreachable oracle is a synchronous 503, everything else account lookup refuses is a 400', () => {
  assert.equal(failureToFspiop(failure(FAILURE.oracleUnavailable)).httpStatus, 503);
  const refusals = Object.keys(ACCOUNT_LOOKUP_WIRE_CODES).filter((code) => code !== FAILURE.oracleUnavailable);
  for (const code of refusals) assert.equal(failureToFspiop(failure(code)).httpStatus, 400, code);
});
