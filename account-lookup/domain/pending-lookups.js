// The right to answer a lookup. A GET /parties the switch forwards to a payee creates a pending
// lookup (party, requester, payee) that lasts `ttlMs` from the GET's acceptance; a payee's
// PUT /parties (or …/error) is relayed only if such a lookup names its sender as the payee and
// its FSPIOP-Destination as the requester, and has not expired. So only the DFSP that was
// asked answers, and only to the DFSP that asked. The lookups themselves are kept in MySQL
// (pending-lookups.js), which compares their expiry with the time of the answer.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { partyKey } from './parties.js';

/** When a lookup accepted at `acceptedAt` (a Date) stops being answerable: `ttlMs` later. */
export function lookupExpiresAt(acceptedAt, ttlMs) {
  return new Date(acceptedAt.getTime() + ttlMs);
}

/**
 * The pending lookup that lets `answerer` send its answer about `party` to `requester`: one
 * the requester made at the answerer. `{ party, requester, payee }`, as pending-lookups.js reads it.
 */
export function lookupAnsweredBy({ party, answerer, requester }) {
  return { party, requester, payee: answerer };
}

/**
 * What becomes of an answer about `party` from `answerer` to `requester`, given whether the
 * lookup lookupAnsweredBy() names is `pending`: `{ relayTo }` the requester, or `{ error }`
 * for the hub to tell the answerer (nothing reaches the requester).
 */
export function decideAnswerRelay({ party, answerer, requester, pending }) {
  if (pending) return { relayTo: requester };
  return { error: failure(FAILURE.unsolicitedPartyAnswer, `no lookup of ${partyKey(party)} by ${requester} is pending at ${answerer}`) };
}
