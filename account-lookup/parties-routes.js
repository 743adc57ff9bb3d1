// FSPIOP /parties: discovery. A payer's GET goes to the DFSP that serves the party (found
// through the oracle for its id type, or named by FSPIOP-Destination); the payee's PUT and
// PUT …/error go back to the payer named by FSPIOP-Destination, but only while a lookup of
// that party by that payer is pending at that payee. Who may be asked and who may answer are
// the rules of domain/discovery.js and domain/pending-lookups.js; each route reads what they
// need, asks them, records what they decided and answers. Only a proven payer's lookup
// (platform/fspiop/sender.js) may choose the payee, and only a proven payee's answer is
// relayed. Both travel with the sending DFSP's own headers and bytes; problems the switch
// finds come from the hub. Every call is sent by this process over HTTP once the DFSP has its
// answer, not through Kafka (party-callbacks.js).
import { fspiopRoute } from '../platform/fspiop/edge.js';
import { failureToFspiop } from '../platform/fspiop/errors.js';
import { isProven, unprovenSenderFailure } from '../platform/fspiop/sender.js';
import { forwardEvent, partyEndpoint, partyErrorEvent } from './callbacks.js';
import { decidePartyLookup, lookupCandidates, oracleListingNeeded } from './domain/discovery.js';
import { partyOf } from './domain/parties.js';
import { decideAnswerRelay, lookupAnsweredBy } from './domain/pending-lookups.js';
import { activeDfspsAmong, pathSchemasOf, refuseUnknownSource, unroutableDestination } from './edge-flow.js';

/**
 * The /parties routes. `respond` comes from createResponder(); `directory` answers which
 * DFSPs are active; `registry.urlFor()` and `client.find()` ask the oracle; `lookups`
 * (createPendingLookups) remembers which payee was asked by whom.
 */
export function partyRoutes({ respond, directory, registry, client, lookups, hubName }) {
  /** The hub's PUT …/error about `problem`, a domain failure, to the sender of `accepted`. */
  const errorTo = (accepted, party, problem) => ({
    callbacks: [partyErrorEvent({ party, resource: 'parties', hubName, accepted, errorBody: failureToFspiop(problem).body })],
  });

  /** The fspIds the oracle lists for `party`. */
  const listedDfsps = async (party, source) => (await client.find(await registry.urlFor({ type: party.type }), { party, source }))
    .map((entry) => entry.fspId);

  async function lookUp(accepted) {
    const refusal = await refuseUnknownSource(directory, accepted);
    if (refusal) return { failure: refusal };
    const party = partyOf(accepted.params);
    const source = accepted.headers['fspiop-source'];
    const named = accepted.headers['fspiop-destination'];
    const payerProven = isProven(accepted.sender);
    const listed = oracleListingNeeded({ named, payerProven }) ? await listedDfsps(party, source) : undefined;
    const { candidates, unlisted } = lookupCandidates({ named, payerProven, listed });
    if (unlisted) return { failure: unprovenSenderFailure(`A lookup at an FSPIOP-Destination the oracle does not list for the party (${unlisted})`) };
    const { payees, error } = decidePartyLookup({ candidates, named, active: await activeDfspsAmong(directory, candidates) });
    if (error) return errorTo(accepted, party, error);
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
    const answerer = accepted.headers['fspiop-source'];
    const unroutable = await unroutableDestination(directory, accepted);
    if (unroutable) return errorTo(accepted, party, unroutable);
    const requester = accepted.headers['fspiop-destination'];
    const pending = await lookups.isPending(lookupAnsweredBy({ party, answerer, requester }));
    const { relayTo, error } = decideAnswerRelay({ party, answerer, requester, pending });
    if (error) return errorTo(accepted, party, error);
    const action = kind === 'put' ? 'answer' : 'error';
    return { callbacks: [forwardEvent({ accepted, party, action, to: relayTo, endpointType: partyEndpoint(kind, party), method: 'PUT' })] };
  };

  const route = (method, path, handle) => fspiopRoute({ resource: 'parties', method, path, pathSchemas: pathSchemasOf(path), handle });
  const paths = ['/parties/{Type}/{ID}', '/parties/{Type}/{ID}/{SubId}'];
  return paths.flatMap((path) => [
    route('GET', path, respond(202, lookUp)),
    route('PUT', path, respond(200, relay('put'))),
    route('PUT', `${path}/error`, respond(200, relay('error'))),
  ]);
}
