// account-lookup/domain: who may use account lookup, who may register and delete which party,
// where a lookup goes, who may answer it and to whom, and the batch registration's results.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FAILURE } from '../../platform/domain/failures.js';
import { unknownSourceFailure, unroutableDestinationFailure } from '../../account-lookup/domain/dfsps.js';
import {
  decideDeletion, decideParticipantLookup, decideRegistration, lookupCurrencyFailure, oracleRefusalFailure,
  oracleRegistrationOutcome, servedByAnotherFailure,
} from '../../account-lookup/domain/ownership.js';
import { decidePartyLookup, lookupCandidates, oracleListingNeeded } from '../../account-lookup/domain/discovery.js';
import { decideAnswerRelay, lookupAnsweredBy, lookupExpiresAt } from '../../account-lookup/domain/pending-lookups.js';
import {
  batchIdTypes, groupByOracle, groupRefused, groupResults, planBatchRegistration,
} from '../../account-lookup/domain/participants-batch.js';
import { partyKey, partyOf } from '../../account-lookup/domain/parties.js';

const party = { type: 'MSISDN', id: '27713803912' };

test('a party is named by its path, and keyed with its sub-id when it has one', () => {
  assert.deepEqual(partyOf({ Type: 'MSISDN', ID: '1' }), { type: 'MSISDN', id: '1' });
  assert.deepEqual(partyOf({ Type: 'PERSONAL_ID', ID: '1', SubId: 'PASSPORT' }), { type: 'PERSONAL_ID', id: '1', subId: 'PASSPORT' });
  assert.equal(partyKey({ type: 'PERSONAL_ID', id: '1', subId: 'PASSPORT' }), 'PERSONAL_ID/1/PASSPORT');
  assert.equal(partyKey(party), 'MSISDN/27713803912');
});

test('only an active DFSP may ask, and an answer goes only to an active DFSP it names', () => {
  assert.equal(unknownSourceFailure({ source: 'payerfsp', isActive: true }), null);
  const unknown = unknownSourceFailure({ source: 'ghostfsp', isActive: false });
  assert.equal(unknown.code, FAILURE.malformedSyntax);
  assert.match(unknown.detail, /^Invalid fspiop-source header: ghostfsp is not an active DFSP/);

  assert.equal(unroutableDestinationFailure({ destination: 'payerfsp', isActive: true }), null);
  const inactive = unroutableDestinationFailure({ destination: 'gonefsp', isActive: false });
  assert.deepEqual([inactive.code, inactive.detail], [FAILURE.destinationUnroutable, 'FSPIOP-Destination gonefsp is not an active DFSP']);
  const missing = unroutableDestinationFailure({ destination: undefined, isActive: false });
  assert.deepEqual([missing.code, missing.detail], [FAILURE.destinationUnroutable, 'FSPIOP-Destination is required to route the callback']);
});

test('a lookup by currency names an ISO 4217 code, and is answered with the first DFSP the oracle lists', () => {
  assert.equal(lookupCurrencyFailure(undefined), null);
  assert.equal(lookupCurrencyFailure('USD'), null);
  for (const bad of ['usd', 'US', 'USDT', '']) assert.equal(lookupCurrencyFailure(bad)?.code, FAILURE.validation, bad);

  assert.deepEqual(decideParticipantLookup({ entries: [{ fspId: 'payeefsp' }, { fspId: 'otherfsp' }] }), { answer: { fspId: 'payeefsp' } });
  assert.equal(decideParticipantLookup({ entries: [] }).error.code, FAILURE.partyNotFound);
});

test('a DFSP registers only its own parties', () => {
  assert.deepEqual(decideRegistration({ source: 'payeefsp', fspId: 'payeefsp' }), { register: { fspId: 'payeefsp' } });
  const { error, register } = decideRegistration({ source: 'payeefsp', fspId: 'rivalfsp' });
  assert.equal(register, undefined);
  assert.equal(error.code, FAILURE.validation);
  assert.match(error.detail, /fspId rivalfsp is not the FSPIOP-Source payeefsp/);
  assert.equal(decideRegistration({ source: 'payeefsp', fspId: undefined }).error.code, FAILURE.validation);
});

test('only the DFSP that serves a party deletes it', () => {
  assert.deepEqual(decideDeletion({ source: 'payeefsp', entry: { fspId: 'payeefsp' } }), { remove: true });
  const refused = decideDeletion({ source: 'rivalfsp', entry: { fspId: 'payeefsp' } });
  assert.equal(refused.remove, undefined);
  assert.deepEqual([refused.error.code, refused.error.detail], [FAILURE.partyDeletionRefused, 'the party is served by another DFSP than rivalfsp']);
  assert.equal(decideDeletion({ source: 'payeefsp', entry: undefined }).error.code, FAILURE.partyNotFound);
});

test("the oracle's refusals are told in its words, as 3003 for a registration and 3040 for a deletion", () => {
  assert.deepEqual({ ...oracleRefusalFailure.register('taken') }, { ok: false, code: FAILURE.partyRegistrationRefused, detail: 'taken' });
  assert.deepEqual({ ...oracleRefusalFailure.remove('no') }, { ok: false, code: FAILURE.partyDeletionRefused, detail: 'no' });
});

test('the built-in oracle takes no party from the DFSP that serves it', () => {
  assert.deepEqual(oracleRegistrationOutcome({ fspId: 'payeefsp', servedBy: 'payeefsp' }), { registered: true });
  assert.deepEqual(oracleRegistrationOutcome({ fspId: 'rivalfsp', servedBy: 'payeefsp' }), { registered: false, servedBy: 'payeefsp' });
  const refusal = servedByAnotherFailure('payeefsp');
  assert.deepEqual([refusal.code, refusal.detail], [FAILURE.partyRegistrationRefused, 'the party is already served by payeefsp']);
});

test('a proven payer may choose the payee; an unproven one only among those the oracle lists', () => {
  assert.equal(oracleListingNeeded({ named: 'payeefsp', payerProven: true }), false);
  assert.equal(oracleListingNeeded({ named: 'payeefsp', payerProven: false }), true);
  assert.equal(oracleListingNeeded({ named: undefined, payerProven: true }), true);

  assert.deepEqual(lookupCandidates({ named: 'payeefsp', payerProven: true }), { candidates: ['payeefsp'], named: 'payeefsp' });
  assert.deepEqual(lookupCandidates({ named: undefined, payerProven: false, listed: ['b', 'a', 'b'] }), { candidates: ['b', 'a'] });
  assert.deepEqual(lookupCandidates({ named: 'a', payerProven: false, listed: ['b', 'a'] }), { candidates: ['a'], named: 'a' });
  assert.deepEqual(lookupCandidates({ named: 'rivalfsp', payerProven: false, listed: ['payeefsp'] }), { unlisted: 'rivalfsp' });
});

test('a lookup goes to the active candidates; with none, the payer hears why', () => {
  assert.deepEqual(decidePartyLookup({ candidates: ['a', 'b', 'c'], active: new Set(['c', 'a']) }), { payees: ['a', 'c'] });
  const none = decidePartyLookup({ candidates: ['a'], active: new Set() });
  assert.equal(none.payees, undefined);
  assert.equal(none.error.code, FAILURE.partyNotFound);
  const gone = decidePartyLookup({ candidates: ['gonefsp'], named: 'gonefsp', active: new Set() });
  assert.deepEqual([gone.error.code, gone.error.detail], [FAILURE.destinationUnroutable, 'FSPIOP-Destination gonefsp is not an active DFSP']);
  assert.equal(decidePartyLookup({ candidates: [], active: new Set() }).error.code, FAILURE.partyNotFound);
});

test('a lookup is answerable for its TTL from acceptance, by the DFSP asked, to the DFSP that asked', () => {
  const acceptedAt = new Date('2026-11-27T08:00:00.000Z');
  assert.equal(lookupExpiresAt(acceptedAt, 60_000).toISOString(), '2026-11-27T08:01:00.000Z');
  assert.equal(acceptedAt.toISOString(), '2026-11-27T08:00:00.000Z', 'the acceptance time is not changed');

  // The answerer is the payee of the lookup, the destination of its answer the requester.
  assert.deepEqual(lookupAnsweredBy({ party, answerer: 'payeefsp', requester: 'payerfsp' }), { party, requester: 'payerfsp', payee: 'payeefsp' });

  assert.deepEqual(decideAnswerRelay({ party, answerer: 'payeefsp', requester: 'payerfsp', pending: true }), { relayTo: 'payerfsp' });
  const unsolicited = decideAnswerRelay({ party, answerer: 'rivalfsp', requester: 'payerfsp', pending: false });
  assert.equal(unsolicited.relayTo, undefined);
  assert.deepEqual([unsolicited.error.code, unsolicited.error.detail],
    [FAILURE.unsolicitedPartyAnswer, 'no lookup of MSISDN/27713803912 by payerfsp is pending at rivalfsp']);
});

const entry = (id, fspId, type = 'MSISDN') => ({ partyIdType: type, partyIdentifier: id, ...(fspId ? { fspId } : {}) });

test("a batch registers the requester's own parties, another DFSP's are refused in their place", () => {
  const { results, members } = planBatchRegistration({
    partyList: [entry('1', 'payeefsp'), entry('2', 'rivalfsp'), entry('3')], source: 'payeefsp',
  });
  assert.equal(results.length, 3);
  assert.deepEqual(members, [{ index: 0, partyId: entry('1', 'payeefsp') }, { index: 2, partyId: entry('3', 'payeefsp') }]);
  assert.equal(results[0], undefined);
  assert.deepEqual(results[1].partyId, entry('2', 'rivalfsp'));
  assert.deepEqual([results[1].failure.code, results[1].failure.detail], [FAILURE.validation, 'fspId rivalfsp is not the FSPIOP-Source payeefsp']);
});

test('a batch is grouped by oracle, one group per URL in the order the parties come', () => {
  const members = [
    { index: 0, partyId: entry('1', 'a', 'MSISDN') }, { index: 1, partyId: entry('x', 'a', 'EMAIL') },
    { index: 2, partyId: entry('2', 'a', 'MSISDN') }, { index: 3, partyId: entry('p', 'a', 'PERSONAL_ID') },
  ];
  assert.deepEqual(batchIdTypes(members), ['MSISDN', 'EMAIL', 'PERSONAL_ID']);
  const groups = groupByOracle(members, new Map([['MSISDN', 'http://o1'], ['EMAIL', 'http://o2'], ['PERSONAL_ID', 'http://o1']]));
  assert.deepEqual([...groups.keys()], ['http://o1', 'http://o2']);
  assert.deepEqual(groups.get('http://o1').map((member) => member.index), [0, 2, 3]);
  assert.deepEqual(groups.get('http://o2').map((member) => member.index), [1]);
});

test("an oracle's batch answer is matched by party id; a party it leaves out or a batch it refuses is 3003", () => {
  const members = [
    { index: 4, partyId: entry('1', 'a') }, { index: 7, partyId: { ...entry('2', 'a'), partySubIdOrType: 'S' } }, { index: 9, partyId: entry('3', 'a') },
  ];
  const errorInformation = { errorCode: '3003', errorDescription: 'already served by b' };
  const answered = [
    { partyId: { ...entry('2', 'a'), partySubIdOrType: 'S' }, errorInformation },
    { partyId: entry('1', 'a') },
    null,
    { errorInformation },
  ];
  const filled = groupResults(members, answered);
  assert.deepEqual(filled.map(({ index }) => index), [4, 7, 9]);
  assert.deepEqual(filled[0].result, { partyId: entry('1', 'a') });
  assert.deepEqual(filled[1].result, { partyId: members[1].partyId, errorInformation });
  assert.equal(filled[2].result.failure.code, FAILURE.partyRegistrationRefused);
  assert.equal(filled[2].result.failure.detail, 'the oracle did not answer for this party');

  const refused = groupRefused(members, 'the oracle is read-only');
  assert.deepEqual(refused.map(({ index }) => index), [4, 7, 9]);
  for (const { result } of refused) assert.deepEqual([result.failure.code, result.failure.detail], [FAILURE.partyRegistrationRefused, 'the oracle is read-only']);
});
