// Where a GET /parties goes. A pending lookup is a right to relay an answer to the payer, so
// only a proven payer (platform/fspiop/sender.js) may choose the payee with FSPIOP-Destination;
// an unproven one is routed only to a DFSP the oracle lists for the party. The decision is in
// two steps around two reads: the oracle's list (when it is needed), then which of the
// candidates are active DFSPs.
import { FAILURE, failure } from '../../platform/domain/failures.js';

/** Whether the oracle's list of the party's DFSPs is needed: unless a proven payer `named` the payee. */
export function oracleListingNeeded({ named, payerProven }) {
  return !(named && payerProven);
}

/**
 * The DFSPs a lookup may go to, before their states are known: `{ candidates, named? }`, each
 * candidate once in its first order; `{ unlisted: named }` when an unproven payer named a DFSP
 * the oracle does not list (`listed`: the fspIds it lists, when oracleListingNeeded).
 */
export function lookupCandidates({ named, payerProven, listed }) {
  if (named && payerProven) return { candidates: [named], named };
  if (!named) return { candidates: [...new Set(listed)] };
  if (!listed.includes(named)) return { unlisted: named };
  return { candidates: [named], named };
}

/**
 * The lookup's payees from the `candidates` and those of them that are `active` (a Set):
 * `{ payees }`, to which the GET is forwarded and for which a pending lookup is recorded, or
 * `{ error }` for the hub to tell the payer when none is active.
 */
export function decidePartyLookup({ candidates, named, active }) {
  const payees = candidates.filter((name) => active.has(name));
  if (payees.length > 0) return { payees };
  return {
    error: named
      ? failure(FAILURE.destinationUnroutable, `FSPIOP-Destination ${named} is not an active DFSP`)
      : failure(FAILURE.partyNotFound),
  };
}
