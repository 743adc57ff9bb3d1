// The ledger's participant directory, as other bounded contexts may use it: which participants
// exist, whether they are active and which API (FSPIOP or ISO 20022) they receive messages in, and which FXPs convert which currency pairs with active
// positions in which currencies (findFxpCandidates, for account lookup's /services/FXP to
// decide on; selectFxParticipantFacts, for the quoting handler's /fxQuotes). ledger/ports/ is
// the only part of the ledger that code outside it imports (the ledger's own processes in
// handlers/ aside); behind it the ledger is free to change its tables and repositories.
import { findParticipantByName } from '../repositories/participants.js';

export { findFxpCandidates } from '../repositories/currency-pairs.js';
export {
  fxParticipantFactsFromRows, participantStatesFromRows, participantStatesStatementFor, selectFxParticipantFacts,
} from '../repositories/participant-states.js';

/** `{ name, isActive, apiType }` of the participant `name`, or null when there is none (`db`: knex). */
export async function findParticipantState(db, name) {
  const participant = await findParticipantByName(db, name);
  return participant ? { name: participant.name, isActive: participant.isActive, apiType: participant.apiType } : null;
}
