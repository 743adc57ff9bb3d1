// Which DFSPs may take part in account lookup: a request's FSPIOP-Source must be an active DFSP
// of the switch (other than the hub), and an answer is relayed only to an FSPIOP-Destination
// that is one. Whether a name is an active DFSP is read beforehand (participant-directory.js).
import { FAILURE, failure } from '../../platform/domain/failures.js';

/**
 * The refusal of a request whose FSPIOP-Source (`source`) is not an active DFSP; null when
 * `isActive`. It is answered at once (400): such a requester has no callback endpoint that
 * could hear an asynchronous error. Mojaloop's ALS checks the source against its participants
 * before anything else and answers it as a malformed header (3101 "Malformed syntax - invalid
 * fspiop-source header").
 */
export function unknownSourceFailure({ source, isActive }) {
  if (isActive) return null;
  return failure(FAILURE.malformedSyntax, `Invalid fspiop-source header: ${source} is not an active DFSP of this switch`);
}

/**
 * Why a DFSP's answer cannot be relayed to its FSPIOP-Destination (`destination`: absent, or
 * not an active DFSP), as a failure the hub tells the sender (3201); null when it can.
 */
export function unroutableDestinationFailure({ destination, isActive }) {
  if (destination && isActive) return null;
  const detail = destination ? `FSPIOP-Destination ${destination} is not an active DFSP` : 'FSPIOP-Destination is required to route the callback';
  return failure(FAILURE.destinationUnroutable, detail);
}
