// Who may register, find and delete which party mappings (FSPIOP /participants/{Type}/{ID}):
// anyone may ask which DFSP serves a party; a DFSP registers and deletes only its own parties,
// so no request in another DFSP's name can take that DFSP's customers. Only a proven sender
// reaches these rules (platform/fspiop/sender.js, checked at the edge), so `source` is the
// DFSP that sent the request. A decision is `{ failure }` (refused at once), `{ error }` (the
// hub's PUT …/error to the requester) or what to do next.
import { FAILURE, failure } from '../../platform/domain/failures.js';

const CURRENCY = /^[A-Z]{3}$/;

/** A lookup's `?currency`, if given, must be an ISO 4217 code: `{ failure }` or null. */
export function lookupCurrencyFailure(currency) {
  if (currency === undefined || CURRENCY.test(currency)) return null;
  return failure(FAILURE.validation, `currency "${currency}" is not an ISO 4217 code`);
}

/** The answer to a lookup from the oracle's `entries` (`[{ fspId }]`): the first DFSP it lists. */
export function decideParticipantLookup({ entries }) {
  if (entries.length === 0) return { error: failure(FAILURE.partyNotFound) };
  return { answer: { fspId: entries[0].fspId } };
}

/**
 * Whether `source` may register a party for `fspId`: a DFSP speaks for its own customers only,
 * as Mojaloop's ALS insists in the batch form. `{ register: { fspId } }` or `{ error }`.
 */
export function decideRegistration({ source, fspId }) {
  if (fspId !== source) {
    return { error: failure(FAILURE.validation, `fspId ${fspId} is not the FSPIOP-Source ${source}: a DFSP registers only its own parties`) };
  }
  return { register: { fspId } };
}

/**
 * Whether `source` may delete a party the oracle lists as `entry` (`{ fspId }`, or undefined
 * when it lists none): only the DFSP that serves it. `{ remove: true }` or `{ error }`.
 */
export function decideDeletion({ source, entry }) {
  if (!entry) return { error: failure(FAILURE.partyNotFound) };
  if (entry.fspId !== source) return { error: failure(FAILURE.partyDeletionRefused, `the party is served by another DFSP than ${source}`) };
  return { remove: true };
}

/** What the requester is told when the oracle refuses its registration (3003) or deletion (3040), in the oracle's words. */
export const oracleRefusalFailure = Object.freeze({
  register: (detail) => failure(FAILURE.partyRegistrationRefused, detail),
  remove: (detail) => failure(FAILURE.partyDeletionRefused, detail),
});

/**
 * The built-in oracle's rule: a registration takes no party from another DFSP. Given who serves
 * the party once the registration was written (`servedBy`), it is `{ registered: true }` for
 * `fspId`, or `{ registered: false, servedBy }` when another DFSP keeps it until it deletes it.
 */
export function oracleRegistrationOutcome({ fspId, servedBy }) {
  return servedBy === fspId ? { registered: true } : { registered: false, servedBy };
}

/** Why the oracle refused a registration (3003): the party is `servedBy` another DFSP. */
export function servedByAnotherFailure(servedBy) {
  return failure(FAILURE.partyRegistrationRefused, `the party is already served by ${servedBy}`);
}
