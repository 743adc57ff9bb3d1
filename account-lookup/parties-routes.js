// FSPIOP /parties: discovery. A payer's GET goes to the DFSP that serves the party (found
// through the oracle for its id type, or named by FSPIOP-Destination); the payee's PUT and
// PUT …/error go back to the payer named by FSPIOP-Destination, but only while a lookup of
// that party by that payer is pending at that payee (pending-lookups.js). A pending lookup is
// a right to relay an answer to the payer, so only a proven payer (platform/fspiop/sender.js)
// may choose the payee; an unproven one is routed only to a DFSP the oracle lists for the
// party, and only a proven payee's answer is relayed. Both travel with
// the sending DFSP's own headers and bytes; problems the switch finds come from the hub.
// Every call is sent by this process over HTTP once the DFSP has its answer, not through
// Kafka (party-callbacks.js).
import { FAILURE, failure } from '../platform/domain/failures.js';
import { fspiopRoute } from '../platform/fspiop/edge.js';
import { failureToFspiop } from '../platform/fspiop/errors.js';
import { isProven, unprovenSenderFailure } from '../platform/fspiop/sender.js';
import { forwardEvent, partyEndpoint, partyErrorEvent, partyKey, partyOf } from './callbacks.js';
import { activeDfsps, pathSchemasOf, refuseUnknownSource, unroutableDestination } from './edge-flow.js';

/**
 * The /parties routes. `respond` comes from createResponder(); `directory` answers which
 * DFSPs are active; `registry.urlFor()` and `client.find()` ask the oracle; `lookups`
 * (createPendingLookups) remembers which payee was asked by whom.
 */
export function partyRoutes({ respond, directory, registry, client, lookups, hubName }) {
  /** The hub's PUT …/error to `to` about `problem`, a domain failure. */
  const errorTo = (to, accepted, party, problem) => ({
    callbacks: [partyErrorEvent({
      party, resource: 'parties', hubName, to, errorBody: failureToFspiop(problem).body, at: accepted.receivedAt,
    })],
  });

  /**
   * The payee DFSPs: the destination a proven payer named, or those the oracle lists (a
   * destination an unproven payer named must be one of them, else `unlisted`).
   */
  async function payeesOf(accepted, party) {
    const named = accepted.headers['fspiop-destination'];
    if (named && isProven(accepted.sender)) return { payees: await activeDfsps(directory, [named]), named };
    const source = accepted.headers['fspiop-source'];
    const listed = (await client.find(await registry.urlFor({ type: party.type }), { party, source })).map((entry) => entry.fspId);
    if (!named) return { payees: await activeDfsps(directory, listed) };
    if (!listed.includes(named)) return { unlisted: true };
    return { payees: await activeDfsps(directory, [named]), named };
  }

  async function lookUp(accepted) {
    const refusal = await refuseUnknownSource(directory, accepted);
    if (refusal) return { failure: refusal };
    const party = partyOf(accepted.params);
    const source = accepted.headers['fspiop-source'];
    const { payees, named, unlisted } = await payeesOf(accepted, party);
    if (unlisted) return { failure: unprovenSenderFailure(`A lookup at an FSPIOP-Destination the oracle does not list for the party (${named})`) };
    if (payees.length === 0) {
      return named
        ? errorTo(source, accepted, party, failure(FAILURE.destinationUnroutable, `FSPIOP-Destination ${named} is not an active DFSP`))
        : errorTo(source, accepted, party, failure(FAILURE.partyNotFound));
    }
    // Recorded before the GET is sent, so that no answer can arrive before its lookup.
    await lookups.record(party, source, payees);
    return {
      callbacks: payees.map((to) => forwardEvent({
        accepted, party, action: 'lookup', to, endpointType: partyEndpoint('get', party), method: 'GET',
      })),
    };
  }

  /** The payee's answer (`put`) or error (`error`), passed to the DFSP it names. */
  const relay = (kind) => async (accepted) => {
    if (!isProven(accepted.sender)) return { failure: unprovenSenderFailure('An answer relayed to another DFSP') };
    const refusal = await refuseUnknownSource(directory, accepted);
    if (refusal) return { failure: refusal };
    const party = partyOf(accepted.params);
    const unroutable = await unroutableDestination(directory, accepted);
    if (unroutable) return errorTo(accepted.headers['fspiop-source'], accepted, party, unroutable);
    const destination = accepted.headers['fspiop-destination'];
    const source = accepted.headers['fspiop-source'];
    if (!(await lookups.isPending(party, destination, source))) {
      const detail = `no lookup of ${partyKey(party)} by ${destination} is pending at ${source}`;
      return errorTo(source, accepted, party, failure(FAILURE.unsolicitedPartyAnswer, detail));
    }
    const action = kind === 'put' ? 'answer' : 'error';
    return { callbacks: [forwardEvent({ accepted, party, action, to: destination, endpointType: partyEndpoint(kind, party), method: 'PUT' })] };
  };

  const route = (method, path, handle) => fspiopRoute({ resource: 'parties', method, path, pathSchemas: pathSchemasOf(path), handle });
  const paths = ['/parties/{Type}/{ID}', '/parties/{Type}/{ID}/{SubId}'];
  return paths.flatMap((path) => [
    route('GET', path, respond(202, lookUp)),
    route('PUT', path, respond(200, relay('put'))),
    route('PUT', `${path}/error`, respond(200, relay('error'))),
  ]);
}
